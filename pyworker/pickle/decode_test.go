package pickle

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// laughs is a pickle whose decoded value doubles at every level through memo references: a list
// of two references to a list of two references to … a string, levels deep.
func laughs(levels int) []byte {
	b := []byte{opProto, 2, opShortBinUnicode, 3, 'l', 'o', 'l', opBinPut, 0, opPop}
	for i := 1; i <= levels; i++ {
		b = append(b, opEmptyList, opMark, opBinGet, byte(i-1), opBinGet, byte(i-1), opAppends, opBinPut, byte(i), opPop)
	}
	return append(b, opBinGet, byte(levels), opStop)
}

// cyclic is a list that contains itself.
var cyclic = []byte{opProto, 2, opEmptyList, opBinPut, 0, opBinGet, 0, opAppend, opStop}

func TestDecodeHostile(t *testing.T) {
	nested := func(depth int) sqltypes.DataType {
		dt := sqltypes.StringType
		for range depth {
			dt = sqltypes.ArrayType(dt, true)
		}
		return dt
	}
	for _, c := range []struct {
		name   string
		data   []byte
		typ    sqltypes.DataType
		errHas string
	}{
		{"empty", nil, sqltypes.StringType, "no STOP"},
		{"truncated unicode", []byte{opBinUnicode, 0xff, 0xff, 0xff, 0x7f, 'a'}, sqltypes.StringType, "truncated"},
		{"huge bytes8", append([]byte{opBinBytes8}, binary.LittleEndian.AppendUint64(nil, 1<<62)...), sqltypes.BinaryType, "truncated"},
		{"huge frame", append([]byte{opFrame}, binary.LittleEndian.AppendUint64(nil, 1<<40)...), sqltypes.BinaryType, "frame"},
		{"huge long4", []byte{opLong4, 0, 0, 0, 0x40, 0, opStop}, sqltypes.LongType, "too large"},
		{"negative long4", []byte{opLong4, 0, 0, 0, 0x80, opStop}, sqltypes.LongType, "negative"},
		{"stack underflow", []byte{opAppend, opStop}, sqltypes.LongType, "underflow"},
		{"tuple past mark", []byte{opNone, opMark, opNone, opTuple2, opStop}, sqltypes.LongType, "underflow"},
		{"missing memo", []byte{opBinGet, 3, opStop}, sqltypes.LongType, "memo key 3"},
		{"append to int", []byte{opBinInt1, 1, opNone, opAppend, opStop}, sqltypes.LongType, "APPEND(S) to int"},
		{"trailing bytes", []byte{opNone, opStop, opNone}, sqltypes.LongType, "after STOP"},
		{"two objects", []byte{opNone, opNone, opStop}, sqltypes.LongType, "2 objects"},
		{"os.system", []byte("cos\nsystem\nX\x02\x00\x00\x00ls\x85R."), sqltypes.LongType, "unsupported Python class os.system"},
		{"persistent id", []byte("Pfoo\n."), sqltypes.LongType, "unsupported opcode"},
		{"unknown opcode", []byte{0xff}, sqltypes.LongType, "unknown opcode"},
		{"protocol 6", []byte{opProto, 6, opNone, opStop}, sqltypes.LongType, "protocol 6"},
		{"decimal nan", []byte("cdecimal\nDecimal\nX\x03\x00\x00\x00NaN\x85R."), sqltypes.DecimalType(5, 2), "finite"},
		{"long text int", append(append([]byte("I"), bytes.Repeat([]byte("9"), 5000)...), "\n."...), sqltypes.LongType, "too large"},
		{"laughs", laughs(40), nested(40), "too large"},
		{"laughs as string", laughs(40), sqltypes.StringType, "too large"},
		{"cycle as string", cyclic, sqltypes.StringType, ""},
		{"cycle as nested arrays", cyclic, nested(30), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := array.NewBuilder(memory.DefaultAllocator, sqltypes.ToArrow(c.typ, "UTC"))
			defer b.Release()
			v, err := Decode(c.data)
			if err == nil {
				budget := BudgetFor(len(c.data))
				err = AppendFromJava(b, c.typ, v, &budget)
			}
			if c.errHas == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("got error %v, want one containing %q", err, c.errHas)
			}
			if se, ok := sparkerr.As(err); !ok || se.JavaClass != PickleExceptionClass {
				t.Fatalf("error %v is not a %s", err, PickleExceptionClass)
			}
		})
	}
}

// TestCycleToString renders a self-containing list as Java does.
func TestCycleToString(t *testing.T) {
	v, err := Decode(cyclic)
	if err != nil {
		t.Fatal(err)
	}
	budget := BudgetFor(len(cyclic))
	s, err := javaToString(v, &budget)
	if err != nil || s != "[(this Collection)]" {
		t.Fatalf("got %q, %v", s, err)
	}
}

func TestJavaDoubleString(t *testing.T) {
	for v, want := range map[float64]string{
		1: "1.0", 100: "100.0", 0.001: "0.001", 0.0001: "1.0E-4", 1e7: "1.0E7", 9999999: "9999999.0",
		1.5e300: "1.5E300", -2.5: "-2.5", 123456.789: "123456.789", 5e-324: "4.9E-324", 0.1: "0.1",
	} {
		if got := javaDoubleString(v); got != want {
			t.Errorf("%v: got %s, want %s", v, got, want)
		}
	}
}

// fuzzTypes are the column types FuzzDecode appends decoded values to.
var fuzzTypes = []sqltypes.DataType{
	sqltypes.StringType, sqltypes.LongType, sqltypes.DecimalType(10, 2), sqltypes.BinaryType, sqltypes.DateType,
	sqltypes.ArrayType(sqltypes.ArrayType(sqltypes.StringType, true), true),
	sqltypes.MapType(sqltypes.StringType, sqltypes.DoubleType, true),
	sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
		sqltypes.Field{Name: "b", Type: sqltypes.ArrayType(sqltypes.StringType, true), Nullable: true}),
}

// FuzzDecode feeds arbitrary bytes to Decode and appends what decodes to columns of several
// types: nothing may panic, and a bounded budget must hold whatever the memo shares.
func FuzzDecode(f *testing.F) {
	f.Add(laughs(5))
	f.Add(cyclic)
	f.Add([]byte("\x80\x05\x95\x1d\x00\x00\x00\x00\x00\x00\x00]\x94(K\x01\x8c\x01a\x94G?\xf8\x00\x00\x00\x00\x00\x00N\x88e."))
	f.Add([]byte("\x80\x02cdecimal\nDecimal\nX\x04\x00\x00\x001.50\x85R]q\x00(K\x01J\xff\xff\xff\xff\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01e\x86."))
	f.Add([]byte("\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x01k\x94C\x02\x00\xff\x8c\x01t\x94K\x01K\x02\x86\x94u."))
	f.Add([]byte("\x80\x02c__builtin__\nbytearray\nX\x02\x00\x00\x00\xc3\xbfX\x07\x00\x00\x00latin-1\x86R."))
	f.Add([]byte("(I1\nL2L\nF1.5\nVab\\u00e9\nNtp0\ng0\n0."))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			if _, ok := sparkerr.As(err); !ok {
				t.Fatalf("error %v is not a sparkerr.Error", err)
			}
			return
		}
		for _, dt := range fuzzTypes {
			b := array.NewBuilder(memory.DefaultAllocator, sqltypes.ToArrow(dt, "UTC"))
			budget := Budget{Values: 1 << 14, Bytes: 1 << 16}
			_ = AppendFromJava(b, dt, v, &budget)
			a := b.NewArray()
			a.Release()
			b.Release()
		}
	})
}
