package expr

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Spark's Murmur3_x86_32 as used by hash(): seed 42, fields hashed in order, each hash the seed
// of the next; NULL leaves the seed unchanged.

const (
	m3c1 = 0xcc9e2d51
	m3c2 = 0x1b873593
)

func m3MixK1(k uint32) uint32 {
	k *= m3c1
	k = bits.RotateLeft32(k, 15)
	return k * m3c2
}

func m3MixH1(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

func m3Fmix(h uint32, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func m3HashInt(v int32, seed uint32) uint32 {
	return m3Fmix(m3MixH1(seed, m3MixK1(uint32(v))), 4)
}

func m3HashLong(v int64, seed uint32) uint32 {
	low, high := uint32(v), uint32(uint64(v)>>32)
	h := m3MixH1(seed, m3MixK1(low))
	h = m3MixH1(h, m3MixK1(high))
	return m3Fmix(h, 8)
}

// m3HashBytes is Spark's hashUnsafeBytes: 4-byte little-endian words, then each trailing byte
// (sign-extended) mixed as a whole word.
func m3HashBytes(b []byte, seed uint32) uint32 {
	n := len(b)
	aligned := n - n%4
	h := seed
	for i := 0; i < aligned; i += 4 {
		w := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
		h = m3MixH1(h, m3MixK1(w))
	}
	for i := aligned; i < n; i++ {
		h = m3MixH1(h, m3MixK1(uint32(int32(int8(b[i])))))
	}
	return m3Fmix(h, uint32(n))
}

// sparkHash hashes v of type t with seed (Spark's Murmur3Hash for one child).
func sparkHash(v any, t sqltypes.DataType, seed uint32) uint32 {
	return murmur3Hasher.hash(v, t, seed)
}

var murmur3Hasher = valueHasher[uint32]{hashInt: m3HashInt, hashLong: m3HashLong, hashBytes: m3HashBytes}

// valueHasher walks a value as Spark's HashExpression does for both of its hashes (Murmur3 and
// XXH64): each primitive through the hash's int, long or byte function with the running hash
// as seed; -0.0 hashes as 0.0 and every NaN alike; decimals up to precision 18 as their
// unscaled long, wider ones as Java's BigInteger bytes; arrays, structs and maps element by
// element; NULL leaves the seed.
type valueHasher[H uint32 | uint64] struct {
	hashInt   func(int32, H) H
	hashLong  func(int64, H) H
	hashBytes func([]byte, H) H
}

func (x valueHasher[H]) hash(v any, t sqltypes.DataType, seed H) H {
	if v == nil {
		return seed
	}
	switch t.Kind {
	case sqltypes.Boolean:
		if v.(bool) {
			return x.hashInt(1, seed)
		}
		return x.hashInt(0, seed)
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return x.hashInt(int32(toInt64(v)), seed)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.Time:
		return x.hashLong(toInt64(v), seed)
	case sqltypes.CalendarInterval:
		// HashExpression: hashInt(months, hashInt(days, hashLong(microseconds, seed))).
		c := v.(sqltypes.CalendarIntervalValue)
		return x.hashInt(c.Months, x.hashInt(c.Days, x.hashLong(c.Micros, seed)))
	case sqltypes.Float:
		f := v.(float32)
		if f == 0 {
			f = 0
		}
		bitsv := math.Float32bits(f)
		if f != f {
			bitsv = 0x7fc00000
		}
		return x.hashInt(int32(bitsv), seed)
	case sqltypes.Double:
		f := v.(float64)
		if f == 0 {
			f = 0
		}
		bitsv := math.Float64bits(f)
		if f != f {
			bitsv = 0x7ff8000000000000
		}
		return x.hashLong(int64(bitsv), seed)
	case sqltypes.Decimal:
		n := v.(decimal128.Num)
		if t.Precision <= 18 {
			return x.hashLong(n.BigInt().Int64(), seed)
		}
		return x.hashBytes(javaBigIntBytes(n), seed)
	case sqltypes.String:
		return x.hashBytes([]byte(v.(string)), seed)
	case sqltypes.Binary:
		return x.hashBytes(v.([]byte), seed)
	case sqltypes.Array:
		h := seed
		for _, e := range v.([]any) {
			h = x.hash(e, *t.Elem, h)
		}
		return h
	case sqltypes.Struct:
		h := seed
		for i, e := range v.([]any) {
			h = x.hash(e, t.Fields[i].Type, h)
		}
		return h
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		h := seed
		for i := range m.Keys {
			h = x.hash(m.Keys[i], *t.Key, h)
			h = x.hash(m.Values[i], *t.Value, h)
		}
		return h
	}
	return seed
}

func javaBigIntBytes(n decimal128.Num) []byte {
	b := n.BigInt()
	if b.Sign() >= 0 {
		raw := b.Bytes()
		if len(raw) == 0 || raw[0]&0x80 != 0 {
			raw = append([]byte{0}, raw...)
		}
		return raw
	}
	// two's complement of a negative value
	byteLen := (b.BitLen()+8)/8 + 1
	raw := make([]byte, byteLen)
	hi, lo := uint64(n.HighBits()), n.LowBits()
	for i := 0; i < byteLen; i++ {
		var by byte
		if i < 8 {
			by = byte(lo >> (8 * i))
		} else if i < 16 {
			by = byte(hi >> (8 * (i - 8)))
		} else {
			by = 0xff
		}
		raw[byteLen-1-i] = by
	}
	for len(raw) > 1 && raw[0] == 0xff && raw[1]&0x80 != 0 {
		raw = raw[1:]
	}
	return raw
}
