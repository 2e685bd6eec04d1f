package pickle

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// writer appends one pickle the way Spark's Pyrolite Pickler (protocol 2) writes the Java objects
// EvaluatePython.toJava produces. Memoized objects (the Row converter and schemas) are written
// once per pickle and referenced with BINGET / LONG_BINGET afterwards.
type writer struct {
	buf     []byte
	memo    map[string]uint32
	schemas map[*sqltypes.Field]string
}

func (w *writer) reset() {
	w.buf = append(w.buf[:0], opProto, 2)
	clear(w.memo)
}

func (w *writer) finish() []byte { return append(w.buf, opStop) }

func (w *writer) op(b byte) { w.buf = append(w.buf, b) }

func (w *writer) none() { w.op(opNone) }

func (w *writer) bool(v bool) {
	if v {
		w.op(opNewTrue)
	} else {
		w.op(opNewFalse)
	}
}

// long writes an integer as Pyrolite's put_long does: BININT1 / BININT2 for small unsigned
// values, BININT for 32-bit ones, the text INT opcode otherwise.
func (w *writer) long(v int64) {
	switch {
	case v >= 0 && v <= 0xff:
		w.buf = append(w.buf, opBinInt1, byte(v))
	case v >= 0 && v <= 0xffff:
		w.buf = append(w.buf, opBinInt2, byte(v), byte(v>>8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		w.buf = append(w.buf, opBinInt)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(int32(v)))
	default:
		w.buf = append(w.buf, opInt)
		w.buf = strconv.AppendInt(w.buf, v, 10)
		w.buf = append(w.buf, '\n')
	}
}

// float writes a double (a Java float is widened first, as Pyrolite does).
func (w *writer) float(v float64) {
	w.buf = append(w.buf, opBinFloat)
	w.buf = binary.BigEndian.AppendUint64(w.buf, math.Float64bits(v))
}

// str writes a BINUNICODE. Invalid UTF-8 is replaced the way a JVM String decode does (U+FFFD),
// since a Python unpickler rejects it.
func (w *writer) str(s string) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	w.buf = append(w.buf, opBinUnicode)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(len(s)))
	w.buf = append(w.buf, s...)
}

// byteArray writes a Java byte[] as Pyrolite does: bytearray(<latin-1 string>, "latin-1").
func (w *writer) byteArray(b []byte) {
	w.buf = append(w.buf, opGlobal)
	w.buf = append(w.buf, "__builtin__\nbytearray\n"...)
	// Each byte is one code point U+0000..U+00FF, UTF-8 encoded.
	n := len(b)
	for _, c := range b {
		if c >= 0x80 {
			n++
		}
	}
	w.buf = append(w.buf, opBinUnicode)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(n))
	for _, c := range b {
		w.buf = utf8.AppendRune(w.buf, rune(c))
	}
	w.str("latin-1")
	w.buf = append(w.buf, opTuple2, opReduce)
}

// decimal writes a java.math.BigDecimal: decimal.Decimal(<BigDecimal.toString()>).
func (w *writer) decimal(s string) {
	w.buf = append(w.buf, opGlobal)
	w.buf = append(w.buf, "decimal\nDecimal\n"...)
	w.str(s)
	w.buf = append(w.buf, opTuple1, opReduce)
}

// memoized writes the object named key: the first time by calling write and storing it in the
// memo (BINPUT / LONG_BINPUT), afterwards by reference (BINGET / LONG_BINGET).
func (w *writer) memoized(key string, write func()) {
	if idx, ok := w.memo[key]; ok {
		if idx <= 0xff {
			w.buf = append(w.buf, opBinGet, byte(idx))
		} else {
			w.buf = append(w.buf, opLongBinGet)
			w.buf = binary.LittleEndian.AppendUint32(w.buf, idx)
		}
		return
	}
	write()
	if w.memo == nil {
		w.memo = make(map[string]uint32)
	}
	idx := uint32(len(w.memo))
	w.memo[key] = idx
	if idx <= 0xff {
		w.buf = append(w.buf, opBinPut, byte(idx))
	} else {
		w.buf = append(w.buf, opLongBinPut)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, idx)
	}
}

// global writes a module attribute reference (GLOBAL "module\nname\n").
func (w *writer) global(module, name string) {
	w.buf = append(w.buf, opGlobal)
	w.buf = append(w.buf, module...)
	w.buf = append(w.buf, '\n')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '\n')
}

// tupleEnd closes a tuple of n items whose start was marked by tupleStart(n), as Pyrolite's
// put_arrayOfObjects does (EMPTY_TUPLE, TUPLE1..3, MARK…TUPLE).
func (w *writer) tupleStart(n int) {
	if n > 3 {
		w.op(opMark)
	}
}

func (w *writer) tupleEnd(n int) {
	switch n {
	case 0:
		w.op(opEmptyTuple)
	case 1:
		w.op(opTuple1)
	case 2:
		w.op(opTuple2)
	case 3:
		w.op(opTuple3)
	default:
		w.op(opTuple)
	}
}
