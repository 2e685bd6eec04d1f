package pickle

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Mode says which JVM-side sender a RowEncoder follows.
type Mode int

const (
	// BatchedUDF is BatchEvalPythonExec.getInputIterator (SQL_BATCHED_UDF): rows of the UDFs'
	// argument columns, at most UDFBatchRows per pickle; each row is a plain tuple of values
	// unless some column needs conversion in Python (dates, timestamps, day-time intervals,
	// structs, and arrays/maps of them), in which case it is a pyspark Row built by
	// pyspark.sql.types._create_row_inbound_converter(schema).
	BatchedUDF Mode = iota
	// Foreach is PythonForeachWriter (NON_UDF): every row is a pyspark Row of the query's output
	// schema; batches are sized by AutoBatchSize.
	Foreach
)

// UDFBatchRows is how many argument rows BatchEvalPythonExec pickles together (grouped(100)).
const UDFBatchRows = 100

// UDFInputSchema is the schema BatchEvalPythonExec gives the argument columns it sends: fields
// "_0", "_1", … of the argument types, nullable.
func UDFInputSchema(types []sqltypes.DataType) sqltypes.Schema {
	s := make(sqltypes.Schema, len(types))
	for i, t := range types {
		s[i] = sqltypes.Field{Name: "_" + strconv.Itoa(i), Type: t, Nullable: true}
	}
	return s
}

// NeedConversionInPython is EvaluatePython.needConversionInPython: whether values of t are sent
// through a Row converter so Python turns them into date, datetime, timedelta, time, VariantVal or
// Row objects.
func NeedConversionInPython(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.Time, sqltypes.Struct,
		sqltypes.Variant:
		return true
	case sqltypes.Array:
		return t.Elem != nil && NeedConversionInPython(*t.Elem)
	case sqltypes.Map:
		return (t.Key != nil && NeedConversionInPython(*t.Key)) || (t.Value != nil && NeedConversionInPython(*t.Value))
	}
	return false
}

// RowEncoder pickles rows of Arrow columns as Spark's JVM sends them to worker.py
// (EvaluatePython.toJava, then Pyrolite's Pickler with Spark's Row and StructType picklers).
// It is not safe for concurrent use.
type RowEncoder struct {
	schema sqltypes.Schema
	asRows bool
	w      writer
}

// NewRowEncoder returns an encoder for rows of schema (one Arrow column per field).
func NewRowEncoder(mode Mode, schema sqltypes.Schema) *RowEncoder {
	asRows := mode == Foreach
	if !asRows {
		for _, f := range schema {
			if NeedConversionInPython(f.Type) {
				asRows = true
				break
			}
		}
	}
	return &RowEncoder{schema: schema, asRows: asRows}
}

// Encode pickles rows [from, to) of cols as one batch: a tuple of the rows. The result is valid
// until the next call.
func (e *RowEncoder) Encode(cols []arrow.Array, from, to int) ([]byte, error) {
	if len(cols) != len(e.schema) {
		return nil, sparkerr.Internal("pickle: %d columns for a schema of %d fields", len(cols), len(e.schema))
	}
	e.w.reset()
	n := to - from
	e.w.tupleStart(n)
	for i := from; i < to; i++ {
		if e.asRows {
			e.w.rowStart(e.schema.AsStruct())
		}
		if !e.asRows {
			e.w.tupleStart(len(cols))
		}
		for c, col := range cols {
			if err := e.w.value(col, i, e.schema[c].Type); err != nil {
				return nil, err
			}
		}
		if e.asRows {
			e.w.rowEnd()
		} else {
			e.w.tupleEnd(len(cols))
		}
	}
	e.w.tupleEnd(n)
	return e.w.finish(), nil
}

// rowStart begins a GenericRowWithSchema as Spark's RowPickler writes it:
// _create_row_inbound_converter(schema)(*values), the converter and the schema memoized.
func (w *writer) rowStart(t sqltypes.DataType) {
	w.memoized("\x00converter", func() { w.global("pyspark.sql.types", "_create_row_inbound_converter") })
	js := w.schemaJSON(t)
	w.memoized(js, func() {
		w.global("pyspark.sql.types", "_parse_datatype_json_string")
		w.str(js)
		w.buf = append(w.buf, opTuple1, opReduce)
	})
	w.buf = append(w.buf, opTuple1, opReduce, opMark)
}

// schemaJSON is sqltypes.JSONType(t), cached per struct type (keyed by its fields' backing
// array, which is the encoder's schema for its whole life).
func (w *writer) schemaJSON(t sqltypes.DataType) string {
	if len(t.Fields) == 0 {
		return sqltypes.JSONType(t)
	}
	if js, ok := w.schemas[&t.Fields[0]]; ok {
		return js
	}
	if w.schemas == nil {
		w.schemas = make(map[*sqltypes.Field]string)
	}
	js := sqltypes.JSONType(t)
	w.schemas[&t.Fields[0]] = js
	return js
}

func (w *writer) rowEnd() { w.buf = append(w.buf, opTuple, opReduce) }

// stringer is the Arrow string arrays (utf8, large utf8, string view).
type stringer interface{ Value(int) string }

// byter is the Arrow binary arrays.
type byter interface{ Value(int) []byte }

// value writes row i of arr, of Spark type t, as toJava + Pyrolite would.
func (w *writer) value(arr arrow.Array, i int, t sqltypes.DataType) error {
	if arr.IsNull(i) {
		w.none()
		return nil
	}
	if sv, ok := arr.(*array.Struct); ok && t.Kind == sqltypes.Variant {
		return w.variantValue(sv, i)
	}
	switch a := arr.(type) {
	case *array.Null:
		w.none()
	case *array.Boolean:
		w.bool(a.Value(i))
	case *array.Int8:
		w.long(int64(a.Value(i)))
	case *array.Int16:
		w.long(int64(a.Value(i)))
	case *array.Int32:
		w.long(int64(a.Value(i)))
	case *array.Int64:
		w.long(a.Value(i))
	case *array.Float32:
		w.float(float64(a.Value(i)))
	case *array.Float64:
		w.float(a.Value(i))
	case *array.Decimal128:
		w.decimal(javaBigDecimalString(a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Date32:
		w.long(int64(a.Value(i)))
	case *array.Timestamp:
		w.long(micros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit))
	case *array.Duration:
		w.long(micros(int64(a.Value(i)), a.DataType().(*arrow.DurationType).Unit))
	case *array.MonthInterval:
		w.long(int64(a.Value(i)))
	case *array.Time64:
		// TIME is nanoseconds since midnight (TimeType.fromInternal's input).
		w.long(int64(a.Value(i)))
	case *array.Map:
		return w.mapValue(a, i, t)
	case array.ListLike:
		return w.listValue(a, i, t)
	case *array.Struct:
		return w.structValue(a, i, t)
	case stringer:
		w.str(a.Value(i))
	case byter:
		w.byteArray(a.Value(i))
	default:
		return sparkerr.Internal("pickle: cannot send Arrow %s (Spark %s) to Python", arr.DataType(), t)
	}
	return nil
}

// listValue writes a java.util.ArrayList: EMPTY_LIST, then MARK items APPENDS when not empty.
func (w *writer) listValue(a array.ListLike, i int, t sqltypes.DataType) error {
	et := sqltypes.NullType
	if t.Kind == sqltypes.Array && t.Elem != nil {
		et = *t.Elem
	}
	start, end := a.ValueOffsets(i)
	w.op(opEmptyList)
	if start == end {
		return nil
	}
	w.op(opMark)
	vals := a.ListValues()
	for j := int(start); j < int(end); j++ {
		if err := w.value(vals, j, et); err != nil {
			return err
		}
	}
	w.op(opAppends)
	return nil
}

// mapValue writes a java.util.HashMap: EMPTY_DICT, then MARK key value … SETITEMS.
func (w *writer) mapValue(a *array.Map, i int, t sqltypes.DataType) error {
	kt, vt := sqltypes.NullType, sqltypes.NullType
	if t.Kind == sqltypes.Map && t.Key != nil && t.Value != nil {
		kt, vt = *t.Key, *t.Value
	}
	start, end := a.ValueOffsets(i)
	w.op(opEmptyDict)
	if start == end {
		return nil
	}
	w.op(opMark)
	keys, items := a.Keys(), a.Items()
	for j := int(start); j < int(end); j++ {
		if err := w.value(keys, j, kt); err != nil {
			return err
		}
		if err := w.value(items, j, vt); err != nil {
			return err
		}
	}
	w.op(opSetItems)
	return nil
}

// variantValue writes a VARIANT (Arrow struct of value and metadata binaries) as Spark's
// EvaluatePython.toJava does, a java.util.HashMap {"value": byte[], "metadata": byte[]}, which
// VariantType.fromInternal turns into a VariantVal.
func (w *writer) variantValue(a *array.Struct, i int) error {
	if a.NumField() != 2 {
		return sparkerr.Internal("pickle: Arrow %s is not a variant", a.DataType())
	}
	w.op(opEmptyDict)
	w.op(opMark)
	for f, name := range []string{"value", "metadata"} {
		bin, ok := a.Field(f).(*array.Binary)
		if !ok {
			return sparkerr.Internal("pickle: Arrow %s is not a variant", a.DataType())
		}
		w.str(name)
		w.byteArray(bin.Value(i))
	}
	w.op(opSetItems)
	return nil
}

// structValue writes a GenericRowWithSchema of the struct's fields.
func (w *writer) structValue(a *array.Struct, i int, t sqltypes.DataType) error {
	if t.Kind != sqltypes.Struct || len(t.Fields) != a.NumField() {
		return sparkerr.Internal("pickle: Arrow %s does not match Spark %s", a.DataType(), t)
	}
	w.rowStart(t)
	for f := range a.NumField() {
		if err := w.value(a.Field(f), i, t.Fields[f].Type); err != nil {
			return err
		}
	}
	w.rowEnd()
	return nil
}

func micros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		return v / 1e3
	}
	return v
}

// javaBigDecimalString renders unscaled×10^-scale as java.math.BigDecimal.toString does: plain
// notation when scale ≥ 0 and the adjusted exponent is ≥ -6, scientific ("1.5E-7", "1E+3")
// otherwise.
func javaBigDecimalString(v decimal128.Num, scale int32) string {
	return bigDecimalString(v.BigInt(), int(scale))
}

func bigDecimalString(unscaled *big.Int, scale int) string {
	neg := unscaled.Sign() < 0
	coeff := new(big.Int).Abs(unscaled).String()
	adjusted := -scale + len(coeff) - 1
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case scale == 0:
		b.WriteString(coeff)
	case scale > 0 && adjusted >= -6:
		if len(coeff) > scale {
			b.WriteString(coeff[:len(coeff)-scale])
			b.WriteByte('.')
			b.WriteString(coeff[len(coeff)-scale:])
		} else {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", scale-len(coeff)))
			b.WriteString(coeff)
		}
	default:
		b.WriteString(coeff[:1])
		if len(coeff) > 1 {
			b.WriteByte('.')
			b.WriteString(coeff[1:])
		}
		b.WriteByte('E')
		if adjusted >= 0 {
			b.WriteByte('+')
		}
		fmt.Fprint(&b, adjusted)
	}
	return b.String()
}

// AutoBatchSize is SerDeUtil.AutoBatchedPickler's batch sizing (foreach writers): the first batch
// is one row; the next doubles while a pickled batch stays under 1 MiB and halves (not below one
// row) when one exceeds 10 MiB. The zero value is ready to use.
type AutoBatchSize struct{ rows int }

// Rows is how many rows the next batch holds.
func (a *AutoBatchSize) Rows() int { return max(a.rows, 1) }

// Observe records the pickled size of the batch just sent.
func (a *AutoBatchSize) Observe(size int) {
	n := a.Rows()
	switch {
	case size < 1<<20:
		if n < 1<<30 {
			n *= 2
		}
	case size > 10<<20 && n > 1:
		n /= 2
	}
	a.rows = n
}

// EncodeValue pickles row i of arr, of Spark type t, as one value the way the JVM pickles a
// constant argument of a UDTF call for its analyze method (pickler.dumps(EvaluatePython.toJava(
// value, type))): analyze_udtf.py unpickles it and applies the type's fromInternal.
func EncodeValue(arr arrow.Array, i int, t sqltypes.DataType) ([]byte, error) {
	var w writer
	w.reset()
	if err := w.value(arr, i, t); err != nil {
		return nil, err
	}
	return w.finish(), nil
}
