package variant

import (
	"encoding/binary"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// ErrSizeLimit is a value or metadata past SizeLimit; callers raise VARIANT_SIZE_LIMIT.
var ErrSizeLimit = sparkerr.New(sparkerr.SparkRuntimeException, "VARIANT_SIZE_LIMIT", "22023",
	"Cannot build variant bigger than 16.0 MiB in parse_json.")

// DuplicateKey is Spark's VARIANT_DUPLICATE_KEY.
func DuplicateKey(key string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "VARIANT_DUPLICATE_KEY", "22023",
		"Failed to build variant because of a duplicate object key `%s`.", key).WithParams("key", key)
}

// Builder writes one variant value and its dictionary.
type Builder struct {
	buf  []byte
	keys []string
	ids  map[string]int
	err  error
}

// FieldEntry records one object field while its value is written: its key, dictionary id and
// offset from the object's start.
type FieldEntry struct {
	Key    string
	ID     int
	Offset int
}

// Err is the first error the builder met (size limit, duplicate key).
func (b *Builder) Err() error { return b.err }

func (b *Builder) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

func (b *Builder) grow(n int) {
	if len(b.buf)+n > SizeLimit {
		b.fail(ErrSizeLimit)
	}
}

// AppendNull writes a variant null.
func (b *Builder) AppendNull() { b.buf = append(b.buf, primNull<<2) }

// AppendBool writes a boolean.
func (b *Builder) AppendBool(v bool) {
	if v {
		b.buf = append(b.buf, primTrue<<2)
	} else {
		b.buf = append(b.buf, primFalse<<2)
	}
}

// AppendLong writes an integer in the smallest width that holds it.
func (b *Builder) AppendLong(v int64) {
	switch {
	case v == int64(int8(v)):
		b.buf = append(b.buf, primInt1<<2, byte(v))
	case v == int64(int16(v)):
		b.buf = binary.LittleEndian.AppendUint16(append(b.buf, primInt2<<2), uint16(v))
	case v == int64(int32(v)):
		b.buf = binary.LittleEndian.AppendUint32(append(b.buf, primInt4<<2), uint32(v))
	default:
		b.buf = binary.LittleEndian.AppendUint64(append(b.buf, primInt8<<2), uint64(v))
	}
}

// AppendDouble writes a double.
func (b *Builder) AppendDouble(v float64) {
	b.buf = binary.LittleEndian.AppendUint64(append(b.buf, primDouble<<2), math.Float64bits(v))
}

// AppendFloat writes a float.
func (b *Builder) AppendFloat(v float32) {
	b.buf = binary.LittleEndian.AppendUint32(append(b.buf, primFloat<<2), math.Float32bits(v))
}

// AppendDecimal writes a decimal (unscaled, scale) of at most 38 digits in the smallest class
// its precision and scale fit: 9 digits in 4 bytes, 18 in 8, 38 in 16.
func (b *Builder) AppendDecimal(unscaled *big.Int, scale int) {
	prec := DecimalPrecision(unscaled)
	switch {
	case scale <= 9 && prec <= 9:
		b.buf = append(b.buf, primDecimal4<<2, byte(scale))
		b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(int32(unscaled.Int64())))
	case scale <= 18 && prec <= 18:
		b.buf = append(b.buf, primDecimal8<<2, byte(scale))
		b.buf = binary.LittleEndian.AppendUint64(b.buf, uint64(unscaled.Int64()))
	default:
		b.buf = append(b.buf, primDecimal16<<2, byte(scale))
		var le [16]byte
		n := new(big.Int).Set(unscaled)
		if n.Sign() < 0 {
			n.Add(n, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		be := n.FillBytes(make([]byte, 16))
		for i := range be {
			le[15-i] = be[i]
		}
		b.buf = append(b.buf, le[:]...)
	}
}

// DecimalPrecision is the number of digits of an unscaled value (1 for zero), as BigDecimal's
// precision.
func DecimalPrecision(unscaled *big.Int) int {
	if unscaled.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(unscaled).String())
}

// AppendDate writes a date (days since the epoch).
func (b *Builder) AppendDate(days int32) {
	b.buf = binary.LittleEndian.AppendUint32(append(b.buf, primDate<<2), uint32(days))
}

// AppendTimestamp writes a timestamp (micros since the epoch, UTC).
func (b *Builder) AppendTimestamp(micros int64) {
	b.buf = binary.LittleEndian.AppendUint64(append(b.buf, primTimestamp<<2), uint64(micros))
}

// AppendTimestampNTZ writes a timestamp without time zone.
func (b *Builder) AppendTimestampNTZ(micros int64) {
	b.buf = binary.LittleEndian.AppendUint64(append(b.buf, primTimestampNTZ<<2), uint64(micros))
}

// AppendString writes a string: short (header length) up to 63 bytes, else long.
func (b *Builder) AppendString(s string) {
	b.grow(5 + len(s))
	if len(s) <= 63 {
		b.buf = append(b.buf, byte(len(s))<<2|basicShortStr)
	} else {
		b.buf = binary.LittleEndian.AppendUint32(append(b.buf, primLongStr<<2), uint32(len(s)))
	}
	b.buf = append(b.buf, s...)
}

// AppendBinary writes a binary.
func (b *Builder) AppendBinary(p []byte) {
	b.grow(5 + len(p))
	b.buf = binary.LittleEndian.AppendUint32(append(b.buf, primBinary<<2), uint32(len(p)))
	b.buf = append(b.buf, p...)
}

// AddKey is key's dictionary id, added on first use.
func (b *Builder) AddKey(key string) int {
	if b.ids == nil {
		b.ids = map[string]int{}
	}
	if id, ok := b.ids[key]; ok {
		return id
	}
	id := len(b.keys)
	b.ids[key] = id
	b.keys = append(b.keys, key)
	return id
}

// Pos is the current write position; pass it to FinishObject / FinishArray as start.
func (b *Builder) Pos() int { return len(b.buf) }

func intSize(v int) int {
	switch {
	case v <= 0xff:
		return 1
	case v <= 0xffff:
		return 2
	}
	return 3
}

func putUint(p []byte, v, n int) {
	for i := 0; i < n; i++ {
		p[i] = byte(v >> (8 * i))
	}
}

// insertHeader moves the data written since start right by len(hdr) and writes hdr there.
func (b *Builder) insertHeader(start int, hdr []byte) {
	b.grow(len(hdr))
	b.buf = slices.Insert(b.buf, start, hdr...)
}

// FinishObject turns the field values written since start into an object: sorts the fields
// by key, refuses a duplicate key, and writes the header, ids and offsets before them.
func (b *Builder) FinishObject(start int, fields []FieldEntry) {
	dataSize := len(b.buf) - start
	slices.SortFunc(fields, func(x, y FieldEntry) int { return strings.Compare(x.Key, y.Key) })
	maxID := 0
	for i, f := range fields {
		maxID = max(maxID, f.ID)
		if i > 0 && f.Key == fields[i-1].Key {
			b.fail(DuplicateKey(f.Key))
		}
	}
	n := len(fields)
	large := n > 0xff
	sizeBytes := 1
	if large {
		sizeBytes = 4
	}
	idSize, offSize := intSize(maxID), intSize(dataSize)
	hdr := make([]byte, 1+sizeBytes+n*idSize+(n+1)*offSize)
	hdr[0] = byte((idSize-1)<<4|(offSize-1)<<2|basicObject) | boolBit(large)<<6
	putUint(hdr[1:], n, sizeBytes)
	idStart := 1 + sizeBytes
	offStart := idStart + n*idSize
	for i, f := range fields {
		putUint(hdr[idStart+i*idSize:], f.ID, idSize)
		putUint(hdr[offStart+i*offSize:], f.Offset, offSize)
	}
	putUint(hdr[offStart+n*offSize:], dataSize, offSize)
	b.insertHeader(start, hdr)
}

// FinishArray turns the elements written since start (at offsets from start) into an array.
func (b *Builder) FinishArray(start int, offsets []int) {
	dataSize := len(b.buf) - start
	n := len(offsets)
	large := n > 0xff
	sizeBytes := 1
	if large {
		sizeBytes = 4
	}
	offSize := intSize(dataSize)
	hdr := make([]byte, 1+sizeBytes+(n+1)*offSize)
	hdr[0] = byte((offSize-1)<<2|basicArray) | boolBit(large)<<4
	putUint(hdr[1:], n, sizeBytes)
	for i, o := range offsets {
		putUint(hdr[1+sizeBytes+i*offSize:], o, offSize)
	}
	putUint(hdr[1+sizeBytes+n*offSize:], dataSize, offSize)
	b.insertHeader(start, hdr)
}

func boolBit(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// AppendValue copies v (from another variant) in, re-numbering its object keys into this
// builder's dictionary.
func (b *Builder) AppendValue(v Value) {
	switch v.Type() {
	case Object:
		start := b.Pos()
		n := v.Len()
		fields := make([]FieldEntry, 0, n)
		for i := 0; i < n; i++ {
			k, f := v.Field(i)
			fields = append(fields, FieldEntry{Key: k, ID: b.AddKey(k), Offset: b.Pos() - start})
			b.AppendValue(f)
		}
		b.FinishObject(start, fields)
	case Array:
		start := b.Pos()
		n := v.Len()
		offs := make([]int, 0, n)
		for i := 0; i < n; i++ {
			offs = append(offs, b.Pos()-start)
			b.AppendValue(v.Elem(i))
		}
		b.FinishArray(start, offs)
	default:
		raw := v.Raw()
		b.grow(len(raw))
		b.buf = append(b.buf, raw...)
	}
}

// Result is the value and metadata buffers, or the builder's error.
func (b *Builder) Result() (value, metadata []byte, err error) {
	if b.err != nil {
		return nil, nil, b.err
	}
	total := 0
	for _, k := range b.keys {
		total += len(k)
	}
	offSize := intSize(max(total, len(b.keys)))
	if max(total, len(b.keys)) > SizeLimit || len(b.buf) > SizeLimit {
		return nil, nil, ErrSizeLimit
	}
	n := len(b.keys)
	meta := make([]byte, 1+offSize+(n+1)*offSize, 1+offSize+(n+1)*offSize+total)
	meta[0] = version | byte(offSize-1)<<6
	putUint(meta[1:], n, offSize)
	off := 0
	for i, k := range b.keys {
		putUint(meta[1+offSize+i*offSize:], off, offSize)
		off += len(k)
		meta = append(meta, k...)
	}
	putUint(meta[1+offSize+n*offSize:], off, offSize)
	if len(meta) > SizeLimit {
		return nil, nil, ErrSizeLimit
	}
	return b.buf, meta, nil
}
