package expr

import (
	"bytes"
	"cmp"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sql/collation"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Compare orders two non-null values of type t with Spark's ordering: NaN is greater than every
// other double and equal to itself; -0.0 equals 0.0; arrays compare element-wise then by
// length; structs field by field; NULL (nil) sorts before any value.
func Compare(a, b any, t sqltypes.DataType) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch t.Kind {
	case sqltypes.Boolean:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Date,
		sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.YearMonthInterval, sqltypes.Time:
		return cmp.Compare(toInt64(a), toInt64(b))
	case sqltypes.Float, sqltypes.Double:
		return CompareFloat(toFloat64(a), toFloat64(b))
	case sqltypes.Decimal:
		return a.(decimal128.Num).Cmp(b.(decimal128.Num))
	case sqltypes.String:
		if t.StringCollation != "" {
			return collation.Of(t.StringCollation).Compare(a.(string), b.(string))
		}
		return strings.Compare(a.(string), b.(string))
	case sqltypes.Binary:
		return bytes.Compare(a.([]byte), b.([]byte))
	case sqltypes.Array:
		x, y := a.([]any), b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := Compare(x[i], y[i], *t.Elem); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case sqltypes.Struct:
		x, y := a.([]any), b.([]any)
		for i := range t.Fields {
			if c := Compare(x[i], y[i], t.Fields[i].Type); c != 0 {
				return c
			}
		}
		return 0
	case sqltypes.Map:
		x, y := a.(*sqltypes.MapValue), b.(*sqltypes.MapValue)
		kt, vt := sqltypes.ArrayType(*t.Key, false), sqltypes.ArrayType(*t.Value, true)
		if c := Compare(x.Keys, y.Keys, kt); c != 0 {
			return c
		}
		return Compare(x.Values, y.Values, vt)
	}
	return 0
}

// CompareFloat orders doubles the way Spark sorts them: NaN above everything, NaN equal to NaN.
func CompareFloat(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// comparison is = <=> < <= > >= over operands of one type.
type comparison struct {
	op          string
	left, right Expr
	in          sqltypes.DataType
}

func (c *comparison) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (c *comparison) Children() []Expr        { return []Expr{c.left, c.right} }
func (c *comparison) Nullable() bool {
	return c.op != "<=>" && (c.left.Nullable() || c.right.Nullable())
}
func (c *comparison) String() string { return renderSQL(c) }
func (c *comparison) writeSQL(b *strings.Builder) {
	b.WriteByte('(')
	writeSQL(b, c.left)
	b.WriteString(" " + c.op + " ")
	writeSQL(b, c.right)
	b.WriteByte(')')
}

func cmpResult(op string, c int) bool {
	switch op {
	case "=", "<=>":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func (c *comparison) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if out, ok, err := c.evalConstant(ctx, batch); ok {
		return out, err
	}
	if c.kernelKind() {
		return c.evalKernel(ctx, batch)
	}
	cols, err := evalAll(ctx, []Expr{c.left, c.right}, batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	return c.evalArrays(ctx, cols[0], cols[1]), nil
}

// evalArrays compares evaluated operands.
func (c *comparison) evalArrays(ctx *Context, l, r arrow.Array) arrow.Array {
	if c.op != "<=>" {
		switch c.in.Kind {
		case sqltypes.Integer:
			if out := compareFast[int32](ctx, c.op, l, r); out != nil {
				return out
			}
		case sqltypes.Long, sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
			if out := compareFast[int64](ctx, c.op, l, r); out != nil {
				return out
			}
		case sqltypes.Double:
			if out := compareFast[float64](ctx, c.op, l, r); out != nil {
				return out
			}
		case sqltypes.String:
			if !binaryCollation(c.in) {
				break
			}
			if out := compareStrings(ctx, c.op, l, r); out != nil {
				return out
			}
		}
	}
	return c.evalRows(ctx, l, r)
}

func (c *comparison) evalRows(ctx *Context, l, r arrow.Array) arrow.Array {
	n := l.Len()
	vals := make([]bool, n)
	var valid []bool
	if c.op != "<=>" {
		valid = validity(l, r)
	}
	for i := 0; i < n; i++ {
		x, y := ValueAt(l, i, c.in), ValueAt(r, i, c.in)
		if c.op == "<=>" {
			vals[i] = (x == nil && y == nil) || (x != nil && y != nil && Compare(x, y, c.in) == 0)
			continue
		}
		if x == nil || y == nil {
			continue
		}
		vals[i] = cmpResult(c.op, Compare(x, y, c.in))
	}
	return buildBools(ctx.mem(), vals, valid)
}

// compareFast compares raw slices; nil when the arrays are not of the expected layout.
func compareFast[T fastNum](ctx *Context, op string, l, r arrow.Array) arrow.Array {
	var xs, ys []T
	switch any(T(0)).(type) {
	case int64:
		xs, ys = int64Like[T](l), int64Like[T](r)
	default:
		xs, ys = rawValues[T](l), rawValues[T](r)
	}
	if xs == nil || ys == nil {
		return nil
	}
	out := make([]bool, len(xs))
	_, isFloat := any(T(0)).(float64)
	if isFloat {
		for i := range xs {
			out[i] = cmpResult(op, CompareFloat(float64(xs[i]), float64(ys[i])))
		}
	} else {
		switch op {
		case "=":
			for i := range xs {
				out[i] = xs[i] == ys[i]
			}
		case "<":
			for i := range xs {
				out[i] = xs[i] < ys[i]
			}
		case "<=":
			for i := range xs {
				out[i] = xs[i] <= ys[i]
			}
		case ">":
			for i := range xs {
				out[i] = xs[i] > ys[i]
			}
		default:
			for i := range xs {
				out[i] = xs[i] >= ys[i]
			}
		}
	}
	return buildBools(ctx.mem(), out, validity(l, r))
}

// int64Like returns the int64 values of int64, timestamp arrays (date32 is read as int32 elsewhere).
func int64Like[T fastNum](a arrow.Array) []T {
	switch x := a.(type) {
	case *array.Int64:
		v, _ := any(x.Int64Values()).([]T)
		return v
	case *array.Timestamp:
		if x.DataType().(*arrow.TimestampType).Unit != arrow.Microsecond {
			return nil
		}
		raw := x.TimestampValues()
		out := make([]T, len(raw))
		for i, t := range raw {
			out[i] = T(t)
		}
		return out
	case *array.Date32:
		raw := x.Date32Values()
		out := make([]T, len(raw))
		for i, t := range raw {
			out[i] = T(t)
		}
		return out
	}
	return nil
}

func compareStrings(ctx *Context, op string, l, r arrow.Array) arrow.Array {
	ls, ok1 := l.(*array.String)
	rs, ok2 := r.(*array.String)
	if !ok1 || !ok2 {
		return nil
	}
	n := ls.Len()
	out := make([]bool, n)
	for i := 0; i < n; i++ {
		out[i] = cmpResult(op, strings.Compare(ls.Value(i), rs.Value(i)))
	}
	return buildBools(ctx.mem(), out, validity(l, r))
}
