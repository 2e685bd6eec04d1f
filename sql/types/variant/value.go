package variant

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
)

// Basic types (the low 2 bits of a value's header).
const (
	basicPrimitive = 0
	basicShortStr  = 1
	basicObject    = 2
	basicArray     = 3
)

// Primitive type ids (the high 6 bits of a primitive's header).
const (
	primNull           = 0
	primTrue           = 1
	primFalse          = 2
	primInt1           = 3
	primInt2           = 4
	primInt4           = 5
	primInt8           = 6
	primDouble         = 7
	primDecimal4       = 8
	primDecimal8       = 9
	primDecimal16      = 10
	primDate           = 11
	primTimestamp      = 12
	primTimestampNTZ   = 13
	primFloat          = 14
	primBinary         = 15
	primLongStr        = 16
	primTime           = 17
	primTimestampNs    = 18
	primTimestampNTZNs = 19
	primUUID           = 20
)

// SizeLimit is the largest value or metadata buffer (Spark's VariantUtil.SIZE_LIMIT).
const SizeLimit = 16 << 20

// version is the only metadata version.
const version = 1

// Type is what a value holds, in Spark's VariantUtil.Type terms.
type Type uint8

// Types.
const (
	Null Type = iota
	Boolean
	Long
	Double
	Decimal
	Date
	Timestamp
	TimestampNTZ
	Float
	Binary
	String
	Object
	Array
	UUID
	Time
	TimestampNanos
	TimestampNTZNanos
)

// ErrMalformed is a value or metadata that breaks the encoding (Spark's MALFORMED_VARIANT).
var ErrMalformed = errors.New("variant: malformed variant")

// Value is one value inside a variant: the whole value and metadata buffers and the position of
// the value's header byte. It must come from Validate'd buffers or from a Builder.
type Value struct {
	Buf, Meta []byte
	Pos       int
}

// New is the value at the root of a (value, metadata) pair.
func New(value, metadata []byte) Value { return Value{Buf: value, Meta: metadata} }

func readUint(b []byte, pos, n int) int {
	v := 0
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | int(b[pos+i])
	}
	return v
}

func (v Value) header() byte { return v.Buf[v.Pos] }

// Type is the value's type.
func (v Value) Type() Type {
	h := v.header()
	switch h & 3 {
	case basicShortStr:
		return String
	case basicObject:
		return Object
	case basicArray:
		return Array
	}
	switch h >> 2 {
	case primNull:
		return Null
	case primTrue, primFalse:
		return Boolean
	case primInt1, primInt2, primInt4, primInt8:
		return Long
	case primDouble:
		return Double
	case primDecimal4, primDecimal8, primDecimal16:
		return Decimal
	case primDate:
		return Date
	case primTimestamp:
		return Timestamp
	case primTimestampNTZ:
		return TimestampNTZ
	case primFloat:
		return Float
	case primBinary:
		return Binary
	case primLongStr:
		return String
	case primTime:
		return Time
	case primTimestampNs:
		return TimestampNanos
	case primTimestampNTZNs:
		return TimestampNTZNanos
	case primUUID:
		return UUID
	}
	return Null
}

// Bool is a boolean's value.
func (v Value) Bool() bool { return v.header()>>2 == primTrue }

// Int is an integer's value (also a date's days, a timestamp's micros or nanos, a time's
// micros).
func (v Value) Int() int64 {
	p := v.Pos + 1
	switch v.header() >> 2 {
	case primInt1:
		return int64(int8(v.Buf[p]))
	case primInt2:
		return int64(int16(binary.LittleEndian.Uint16(v.Buf[p:])))
	case primInt4, primDate:
		return int64(int32(binary.LittleEndian.Uint32(v.Buf[p:])))
	}
	return int64(binary.LittleEndian.Uint64(v.Buf[p:]))
}

// IntWidth is the byte width of an integer (1, 2, 4 or 8).
func (v Value) IntWidth() int {
	switch v.header() >> 2 {
	case primInt1:
		return 1
	case primInt2:
		return 2
	case primInt4:
		return 4
	}
	return 8
}

// Double is a double's value.
func (v Value) Double() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(v.Buf[v.Pos+1:]))
}

// Float is a float's value.
func (v Value) Float() float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(v.Buf[v.Pos+1:]))
}

// Decimal is a decimal's unscaled value and scale.
func (v Value) Decimal() (*big.Int, int) {
	p := v.Pos + 1
	scale := int(v.Buf[p])
	switch v.header() >> 2 {
	case primDecimal4:
		return big.NewInt(int64(int32(binary.LittleEndian.Uint32(v.Buf[p+1:])))), scale
	case primDecimal8:
		return big.NewInt(int64(binary.LittleEndian.Uint64(v.Buf[p+1:]))), scale
	}
	le := v.Buf[p+1 : p+17]
	be := make([]byte, 16)
	for i := range le {
		be[15-i] = le[i]
	}
	n := new(big.Int).SetBytes(be)
	if be[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return n, scale
}

// DecimalWidth is 4, 8 or 16: the decimal's storage class.
func (v Value) DecimalWidth() int {
	switch v.header() >> 2 {
	case primDecimal4:
		return 4
	case primDecimal8:
		return 8
	}
	return 16
}

// Bytes is a string's or binary's bytes, or a UUID's 16 bytes.
func (v Value) Bytes() []byte {
	h := v.header()
	if h&3 == basicShortStr {
		n := int(h >> 2)
		return v.Buf[v.Pos+1 : v.Pos+1+n]
	}
	if h>>2 == primUUID {
		return v.Buf[v.Pos+1 : v.Pos+17]
	}
	n := readUint(v.Buf, v.Pos+1, 4)
	return v.Buf[v.Pos+5 : v.Pos+5+n]
}

// container reads an object's or array's layout.
type container struct {
	size               int
	idSize, offsetSize int
	idStart, offStart  int
	dataStart          int
}

func (v Value) container() container {
	h := v.header()
	info := int(h >> 2)
	var c container
	large := false
	if h&3 == basicObject {
		c.offsetSize = info&3 + 1
		c.idSize = info>>2&3 + 1
		large = info>>4&1 == 1
	} else {
		c.offsetSize = info&3 + 1
		large = info>>2&1 == 1
	}
	sizeBytes := 1
	if large {
		sizeBytes = 4
	}
	c.size = readUint(v.Buf, v.Pos+1, sizeBytes)
	c.idStart = v.Pos + 1 + sizeBytes
	c.offStart = c.idStart + c.size*c.idSize
	c.dataStart = c.offStart + (c.size+1)*c.offsetSize
	return c
}

// Len is the number of fields of an object or elements of an array.
func (v Value) Len() int { return v.container().size }

// Elem is an array's i-th element.
func (v Value) Elem(i int) Value {
	c := v.container()
	return Value{Buf: v.Buf, Meta: v.Meta, Pos: c.dataStart + readUint(v.Buf, c.offStart+i*c.offsetSize, c.offsetSize)}
}

// Field is an object's i-th field (in key order).
func (v Value) Field(i int) (string, Value) {
	c := v.container()
	id := readUint(v.Buf, c.idStart+i*c.idSize, c.idSize)
	off := readUint(v.Buf, c.offStart+i*c.offsetSize, c.offsetSize)
	return metaKey(v.Meta, id), Value{Buf: v.Buf, Meta: v.Meta, Pos: c.dataStart + off}
}

// Get is an object's field named key.
func (v Value) Get(key string) (Value, bool) {
	n := v.Len()
	lo, hi := 0, n-1
	for lo <= hi {
		mid := (lo + hi) / 2
		k, f := v.Field(mid)
		switch {
		case k == key:
			return f, true
		case k < key:
			lo = mid + 1
		default:
			hi = mid - 1
		}
	}
	return Value{}, false
}

// metaKey is the dictionary's id-th key.
func metaKey(meta []byte, id int) string {
	offSize := int(meta[0]>>6) + 1
	n := readUint(meta, 1, offSize)
	offStart := 1 + offSize
	strStart := offStart + (n+1)*offSize
	a := readUint(meta, offStart+id*offSize, offSize)
	b := readUint(meta, offStart+(id+1)*offSize, offSize)
	return string(meta[strStart+a : strStart+b])
}

// size is the number of bytes the value occupies.
func (v Value) size() int {
	h := v.header()
	switch h & 3 {
	case basicShortStr:
		return 1 + int(h>>2)
	case basicObject, basicArray:
		c := v.container()
		return c.dataStart - v.Pos + readUint(v.Buf, c.offStart+c.size*c.offsetSize, c.offsetSize)
	}
	switch h >> 2 {
	case primNull, primTrue, primFalse:
		return 1
	case primInt1:
		return 2
	case primInt2:
		return 3
	case primInt4, primDate, primFloat:
		return 5
	case primInt8, primDouble, primTimestamp, primTimestampNTZ, primTime, primTimestampNs, primTimestampNTZNs:
		return 9
	case primDecimal4:
		return 6
	case primDecimal8:
		return 10
	case primDecimal16:
		return 18
	case primBinary, primLongStr:
		return 5 + readUint(v.Buf, v.Pos+1, 4)
	case primUUID:
		return 17
	}
	return 1
}

// Raw is the value's own bytes (a slice of Buf).
func (v Value) Raw() []byte { return v.Buf[v.Pos : v.Pos+v.size()] }
