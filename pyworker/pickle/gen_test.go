package pickle

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Test values follow the sqltypes Go conventions (int32 days, int64 micros, *big.Int unscaled
// decimals, []any arrays and structs, mapVal maps).
type mapVal struct{ keys, vals []any }

func ptr(t sqltypes.DataType) *sqltypes.DataType { return &t }

// plainTypes need no conversion in Python; convTypes do.
var (
	plainTypes = []sqltypes.DataType{
		sqltypes.NullType, sqltypes.BooleanType, sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType,
		sqltypes.LongType, sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DecimalType(10, 2),
		sqltypes.DecimalType(38, 10), sqltypes.DecimalType(5, 0), sqltypes.StringType, sqltypes.BinaryType,
		sqltypes.ArrayType(sqltypes.IntegerType, true), sqltypes.MapType(sqltypes.StringType, sqltypes.LongType, true),
		sqltypes.ArrayType(sqltypes.ArrayType(sqltypes.StringType, true), true),
	}
	convTypes = []sqltypes.DataType{
		sqltypes.DateType, sqltypes.TimestampType, sqltypes.TimestampNTZType, sqltypes.DayTimeIntervalType(0, 3),
		sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
			sqltypes.Field{Name: "b", Type: sqltypes.DateType, Nullable: true}),
		sqltypes.ArrayType(sqltypes.DateType, true),
		sqltypes.MapType(sqltypes.StringType, sqltypes.TimestampType, true),
		sqltypes.StructType(sqltypes.Field{Name: "s", Type: sqltypes.StringType, Nullable: true},
			sqltypes.Field{Name: "in", Type: sqltypes.StructType(sqltypes.Field{Name: "x", Type: sqltypes.DoubleType, Nullable: true}), Nullable: true},
			sqltypes.Field{Name: "l", Type: sqltypes.ArrayType(sqltypes.LongType, true), Nullable: true}),
	}
)

const (
	minDay = -25567 // 1900-01-01
	maxDay = 47482  // 2100-01-01
)

func randValue(r *rand.Rand, t sqltypes.DataType, depth int) any {
	if t.Kind == sqltypes.Null || r.IntN(8) == 0 {
		return nil
	}
	switch t.Kind {
	case sqltypes.Boolean:
		return r.IntN(2) == 0
	case sqltypes.Byte:
		return int8(r.Uint32())
	case sqltypes.Short:
		return int16(r.Uint32())
	case sqltypes.Integer:
		return pick(r, int32(r.Uint32()), int32(r.IntN(300)), int32(-r.IntN(70000)))
	case sqltypes.Long:
		return pick(r, int64(r.Uint64()), int64(r.IntN(70000)), math.MinInt64, math.MaxInt64, int64(math.MaxInt32)+1)
	case sqltypes.Float:
		return pick(r, float32(r.NormFloat64()*1e3), float32(math.Inf(-1)), float32(math.NaN()), float32(0.1), float32(math.Copysign(0, -1)))
	case sqltypes.Double:
		return pick(r, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), math.Inf(1), math.NaN(), math.Copysign(0, -1), 1e300)
	case sqltypes.Decimal:
		digits := make([]byte, 1+r.IntN(int(t.Precision)))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		v, _ := new(big.Int).SetString(string(digits), 10)
		if r.IntN(2) == 0 {
			v.Neg(v)
		}
		return v
	case sqltypes.String:
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteRune(pick(r, 'a', 'Z', '\'', '"', '\\', '\n', 0, 'é', '€', '𝄞', rune(0x80+r.IntN(0x700))))
		}
		return b.String()
	case sqltypes.Binary:
		b := make([]byte, r.IntN(10))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	case sqltypes.Date:
		return int32(minDay + r.IntN(maxDay-minDay))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return int64(minDay)*86400e6 + r.Int64N(int64(maxDay-minDay)*86400e6)
	case sqltypes.DayTimeInterval:
		return r.Int64N(2e12) - 1e12
	case sqltypes.Array:
		n := r.IntN(4)
		if depth > 2 {
			n = 0
		}
		out := make([]any, n)
		for i := range out {
			out[i] = randValue(r, *t.Elem, depth+1)
		}
		return out
	case sqltypes.Map:
		m := mapVal{}
		for i := range r.IntN(4) {
			m.keys = append(m.keys, fmt.Sprintf("k%d", i))
			m.vals = append(m.vals, randValue(r, *t.Value, depth+1))
		}
		return m
	case sqltypes.Struct:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = randValue(r, f.Type, depth+1)
		}
		return out
	}
	panic(t.String())
}

func pick[T any](r *rand.Rand, vs ...T) T { return vs[r.IntN(len(vs))] }

// appendGo appends a test value to a builder of sqltypes.ToArrow(t).
func appendGo(b array.Builder, t sqltypes.DataType, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(v.(int8))
	case *array.Int16Builder:
		bb.Append(v.(int16))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Float32Builder:
		bb.Append(v.(float32))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Decimal128Builder:
		bb.Append(decimal128.FromBigInt(v.(*big.Int)))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int32)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.DurationBuilder:
		bb.Append(arrow.Duration(v.(int64)))
	case *array.MapBuilder:
		m := v.(mapVal)
		bb.Append(true)
		for i := range m.keys {
			appendGo(bb.KeyBuilder(), *t.Key, m.keys[i])
			appendGo(bb.ItemBuilder(), *t.Value, m.vals[i])
		}
	case *array.ListBuilder:
		bb.Append(true)
		for _, e := range v.([]any) {
			appendGo(bb.ValueBuilder(), *t.Elem, e)
		}
	case *array.StructBuilder:
		bb.Append(true)
		for i, f := range t.Fields {
			appendGo(bb.FieldBuilder(i), f.Type, v.([]any)[i])
		}
	default:
		panic(fmt.Sprintf("appendGo: %T", b))
	}
}

func buildColumn(t sqltypes.DataType, vals []any) arrow.Array {
	if t.Kind == sqltypes.Null {
		return array.MakeArrayOfNull(memory.DefaultAllocator, arrow.Null, len(vals))
	}
	b := array.NewBuilder(memory.DefaultAllocator, sqltypes.ToArrow(t, "UTC"))
	defer b.Release()
	for _, v := range vals {
		appendGo(b, t, v)
	}
	return b.NewArray()
}

// pyInternal renders a test value as a Python literal of its internal (toInternal) form: what
// the JVM's toJava hands the pickler, with byte[] as bytearray and decimals as Decimal.
func pyInternal(t sqltypes.DataType, v any) string {
	if v == nil {
		return "None"
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int8, int16, int32, int64:
		return fmt.Sprint(x)
	case float32:
		return pyFloat(float64(x))
	case float64:
		return pyFloat(x)
	case *big.Int:
		digits := new(big.Int).Abs(x).String()
		sign := 0
		if x.Sign() < 0 {
			sign = 1
		}
		return fmt.Sprintf("Decimal((%d, (%s,), %d))", sign, strings.Join(strings.Split(digits, ""), ","), -t.Scale)
	case string:
		return strconv.QuoteToASCII(x)
	case []byte:
		return fmt.Sprintf("bytearray.fromhex('%x')", x)
	case mapVal:
		parts := make([]string, len(x.keys))
		for i := range x.keys {
			parts[i] = pyInternal(*t.Key, x.keys[i]) + ": " + pyInternal(*t.Value, x.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if t.Kind == sqltypes.Struct {
				parts[i] = pyInternal(t.Fields[i].Type, e)
			} else {
				parts[i] = pyInternal(*t.Elem, e)
			}
		}
		if t.Kind == sqltypes.Struct {
			return "(" + strings.Join(parts, ", ") + ",)"
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	panic(fmt.Sprintf("pyInternal %T", v))
}

func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "float('nan')"
	case math.IsInf(f, 1):
		return "float('inf')"
	case math.IsInf(f, -1):
		return "float('-inf')"
	}
	return "float.fromhex('" + strconv.FormatFloat(f, 'x', -1, 64) + "')"
}
