package expr

import (
	"encoding/binary"
	"math"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The bytes of a frequent-items sketch as DataSketches' ItemsSketch.toByteArray writes them
// (and getInstance reads them), with the item serializer Spark's approx_top_k picks for the item
// type (ApproxTopK.genSketchSerDe). Little-endian throughout:
//
//	byte 0 preamble longs (1 empty, 4 otherwise), 1 serial version 1, 2 family 10 (frequency),
//	3 lg max map size, 4 lg current map size, 5 flags (5 when empty), 6-7 unused;
//	non-empty: int32 active items + 4 unused, int64 stream weight, int64 error offset, the active
//	slots' counts (int64, slot order), then their items:
//	BOOLEAN packed bits; TINYINT/SMALLINT/INT/DATE/FLOAT a type byte (2, 3, 9, 9, 6) and the
//	value (ArrayOfNumbersSerDe); BIGINT/TIMESTAMP(_NTZ) and DOUBLE 8 bytes; STRING int32 length
//	and UTF-8.

const (
	freqSerVer      = 1
	freqFamily      = 10
	freqEmptyFlags  = 5
	freqPreLongs    = 4
	freqHeaderBytes = 8 * freqPreLongs
)

// ArrayOfNumbersSerDe's type bytes.
const (
	numByte  = 2
	numShort = 3
	numInt   = 9
	numFloat = 6
)

// toBytes serializes f, whose items are values of type t.
func (f *freqItems) toBytes(t sqltypes.DataType) []byte {
	lgCur := byte(bitsLen(len(f.m.keys)) - 1)
	if f.m.numActive == 0 {
		return []byte{1, freqSerVer, freqFamily, byte(f.lgMaxMapSize), lgCur, freqEmptyFlags, 0, 0}
	}
	out := []byte{freqPreLongs, freqSerVer, freqFamily, byte(f.lgMaxMapSize), lgCur, 0, 0, 0}
	out = binary.LittleEndian.AppendUint64(out, uint64(f.m.numActive))
	out = binary.LittleEndian.AppendUint64(out, uint64(f.stream))
	out = binary.LittleEndian.AppendUint64(out, uint64(f.offset))
	var items []any
	for i, s := range f.m.states {
		if s > 0 {
			out = binary.LittleEndian.AppendUint64(out, uint64(f.m.values[i]))
			items = append(items, f.m.items[i])
		}
	}
	if t.Kind == sqltypes.Boolean {
		bits := make([]byte, (len(items)+7)/8)
		for i, v := range items {
			if v.(bool) {
				bits[i/8] |= 1 << (i % 8)
			}
		}
		return append(out, bits...)
	}
	for _, v := range items {
		switch x := v.(type) {
		case int8:
			out = append(out, numByte, byte(x))
		case int16:
			out = binary.LittleEndian.AppendUint16(append(out, numShort), uint16(x))
		case int32:
			out = binary.LittleEndian.AppendUint32(append(out, numInt), uint32(x))
		case float32:
			out = binary.LittleEndian.AppendUint32(append(out, numFloat), math.Float32bits(x))
		case int64:
			out = binary.LittleEndian.AppendUint64(out, uint64(x))
		case float64:
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
		case string:
			out = append(binary.LittleEndian.AppendUint32(out, uint32(len(x))), x...)
		}
	}
	return out
}

// freqItemsFromBytes reads a sketch toBytes wrote for items of type t (getInstance: the sketch
// starts at the stored map size and takes each item with its count).
func freqItemsFromBytes(b []byte, t sqltypes.DataType) (*freqItems, error) {
	if len(b) < 8 || b[1] != freqSerVer || b[2] != freqFamily || b[3] < freqLgMinMapSize || b[3] > 30 || b[4] > b[3] {
		return nil, badFreqSketch()
	}
	f := &freqItems{lgMaxMapSize: int(b[3])}
	f.m.init(1 << b[4])
	if b[0] == 1 {
		return f, nil
	}
	if b[0] != freqPreLongs || len(b) < freqHeaderBytes {
		return nil, badFreqSketch()
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if n > f.m.capacity() || len(b) < freqHeaderBytes+8*n {
		return nil, badFreqSketch()
	}
	stream := int64(binary.LittleEndian.Uint64(b[16:]))
	offset := int64(binary.LittleEndian.Uint64(b[24:]))
	counts := make([]int64, n)
	for i := range counts {
		counts[i] = int64(binary.LittleEndian.Uint64(b[freqHeaderBytes+8*i:]))
	}
	items, ok := readFreqItems(b[freqHeaderBytes+8*n:], n, t)
	if !ok {
		return nil, badFreqSketch()
	}
	for i, v := range items {
		f.update(v, counts[i])
	}
	f.stream, f.offset = stream, offset
	return f, nil
}

// readFreqItems reads n items of type t.
func readFreqItems(b []byte, n int, t sqltypes.DataType) ([]any, bool) {
	items := make([]any, n)
	if t.Kind == sqltypes.Boolean {
		if len(b) < (n+7)/8 {
			return nil, false
		}
		for i := range items {
			items[i] = b[i/8]&(1<<(i%8)) != 0
		}
		return items, true
	}
	for i := range items {
		var size int
		switch t.Kind {
		case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Date, sqltypes.Float:
			if len(b) == 0 {
				return nil, false
			}
			size = map[byte]int{numByte: 1, numShort: 2, numInt: 4, numFloat: 4}[b[0]]
			if size == 0 || len(b) < 1+size {
				return nil, false
			}
			v := b[1 : 1+size]
			switch b[0] {
			case numByte:
				items[i] = int8(v[0])
			case numShort:
				items[i] = int16(binary.LittleEndian.Uint16(v))
			case numInt:
				items[i] = int32(binary.LittleEndian.Uint32(v))
			case numFloat:
				items[i] = math.Float32frombits(binary.LittleEndian.Uint32(v))
			}
			size++
		case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Double:
			if size = 8; len(b) < size {
				return nil, false
			}
			u := binary.LittleEndian.Uint64(b)
			if t.Kind == sqltypes.Double {
				items[i] = math.Float64frombits(u)
			} else {
				items[i] = int64(u)
			}
		case sqltypes.String:
			if len(b) < 4 {
				return nil, false
			}
			l := int(binary.LittleEndian.Uint32(b))
			if l < 0 || len(b)-4 < l {
				return nil, false
			}
			items[i], size = string(b[4:4+l]), 4+l
		default:
			return nil, false
		}
		b = b[size:]
	}
	return items, true
}

// badFreqSketch is the failure of bytes that are not a sketch Weir or Spark wrote (Spark fails
// inside DataSketches, with its own exceptions and no error class).
func badFreqSketch() *sparkerr.Error {
	return sparkerr.New(sparkerr.SparkIllegalArgumentException, "", "", "the approx_top_k sketch bytes are not a valid frequent-items sketch")
}
