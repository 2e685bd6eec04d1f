package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// castExpr is CAST(child AS to) with Spark's semantics for its mode.
type castExpr struct {
	child Expr
	to    sqltypes.DataType
	// ansi: invalid input and overflow fail; otherwise they give NULL.
	ansi bool
	try  bool
	// implicit casts come from type coercion and render as their child.
	implicit bool
}

func castModeFor(opts Options) plan.CastMode {
	if opts.ANSI {
		return plan.CastANSI
	}
	return plan.CastLegacy
}

func newCast(child Expr, to sqltypes.DataType, mode plan.CastMode, opts Options) (*castExpr, error) {
	if mode == plan.CastDefault {
		mode = castModeFor(opts)
	}
	from := child.Type()
	name := "CAST("
	if mode == plan.CastTry {
		name = "TRY_CAST("
	}
	if err := castRefusal(from, to, mode, name+child.String()+" AS "+to.SQL()+")"); err != nil {
		return nil, err
	}
	return &castExpr{child: child, to: to, ansi: mode == plan.CastANSI, try: mode == plan.CastTry}, nil
}

func (c *castExpr) Type() sqltypes.DataType { return c.to }
func (c *castExpr) Children() []Expr        { return []Expr{c.child} }

func (c *castExpr) Nullable() bool {
	if c.child.Nullable() || c.try {
		return true
	}
	from := c.child.Type()
	if c.to.Kind == sqltypes.Time && from.Kind == sqltypes.String || from.Kind == sqltypes.Time && c.to.Kind == sqltypes.Decimal {
		// Spark's Cast.nullable says so whatever the mode.
		return true
	}
	if c.ansi {
		// ANSI casts fail instead of producing NULL.
		return false
	}
	switch {
	case c.to.Kind == sqltypes.String, c.to.Kind == sqltypes.Binary && from.Kind == sqltypes.String:
		return false
	case from.IsNumeric() && c.to.IsNumeric() && c.to.Kind != sqltypes.Decimal && !(from.IsFractional() && c.to.IsIntegral()):
		return false
	case from.Kind == sqltypes.Date && (c.to.Kind == sqltypes.Timestamp || c.to.Kind == sqltypes.TimestampNTZ):
		return false
	}
	return true
}

func (c *castExpr) String() string { return renderSQL(c) }
func (c *castExpr) writeSQL(b *strings.Builder) {
	if c.implicit {
		writeSQL(b, c.child)
		return
	}
	if c.try {
		b.WriteString("TRY_CAST(")
	} else {
		b.WriteString("CAST(")
	}
	writeSQL(b, c.child)
	b.WriteString(" AS " + c.to.SQL() + ")")
}

func (c *castExpr) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	in, err := c.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	return c.castArray(ctx, in)
}

// castArray casts a whole array (vectorized for widening numeric casts).
func (c *castExpr) castArray(ctx *Context, in arrow.Array) (arrow.Array, error) {
	from := c.child.Type()
	if from.Equal(c.to) && sameArrowTZ(in, c.to, ctx) {
		in.Retain()
		return in, nil
	}
	if out := fastCast(ctx, in, from, c.to); out != nil {
		return out, nil
	}
	if out, ok, err := c.castKernel(ctx, in, from); ok {
		return out, err
	}
	return c.castRows(ctx, in, from)
}

// castRows is the row-wise cast (and the kernels' oracle).
func (c *castExpr) castRows(ctx *Context, in arrow.Array, from sqltypes.DataType) (arrow.Array, error) {
	n := in.Len()
	out := make([]any, n)
	loc := ctx.loc()
	for i := 0; i < n; i++ {
		v := ValueAt(in, i, from)
		if v == nil {
			continue
		}
		r, err := castValue(v, from, c.to, c.ansi, loc)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return BuildArray(ctx.mem(), c.to, ctx.tz(), out), nil
}

func sameArrowTZ(in arrow.Array, t sqltypes.DataType, ctx *Context) bool {
	if t.Kind != sqltypes.Timestamp {
		return true
	}
	ts, ok := in.DataType().(*arrow.TimestampType)
	return ok && ts.TimeZone == ctx.tz()
}

// fastCast handles int32/int64/float64 and decimal widening over raw slices; nil when not
// applicable.
func fastCast(ctx *Context, in arrow.Array, from, to sqltypes.DataType) arrow.Array {
	mem := ctx.mem()
	if to.Kind == sqltypes.Decimal && from.IsIntegral() {
		return fastIntegralToDecimal(ctx, in, to)
	}
	if to.Kind == sqltypes.Decimal && from.Kind == sqltypes.Decimal {
		return fastDecimalWiden(ctx, in, from, to)
	}
	switch a := in.(type) {
	case *array.Int32:
		switch to.Kind {
		case sqltypes.Long:
			return widen[int32, int64](mem, in, a.Int32Values())
		case sqltypes.Double:
			return widen[int32, float64](mem, in, a.Int32Values())
		}
	case *array.Int64:
		if to.Kind == sqltypes.Double {
			return widen[int64, float64](mem, in, a.Int64Values())
		}
	}
	return nil
}

// widen converts every value of a numeric array to a wider type (nulls stay null), writing
// straight into the result's Arrow buffer and copying the validity bitmap.
func widen[S int32 | int64, T int64 | float64](mem memory.Allocator, in arrow.Array, vals []S) arrow.Array {
	n := len(vals)
	buf, out := kernValues[T](mem, n)
	for i, v := range vals {
		out[i] = T(v)
	}
	dt := arrow.DataType(arrow.PrimitiveTypes.Float64)
	if _, ok := any(out).([]int64); ok {
		dt = arrow.PrimitiveTypes.Int64
	}
	return makeArray(dt, n, andValidity(mem, n, in), buf)
}

// canCast is Spark's Cast.canCast over the sqltypes kinds.
func canCast(from, to sqltypes.DataType) bool {
	if from.EqualIgnoreNullable(to) || from.Kind == sqltypes.Null {
		return true
	}
	if isSpatial(from) || isSpatial(to) {
		return from.Kind == to.Kind && to.SRID == sqltypes.MixedSRID
	}
	if from.Kind == sqltypes.Variant {
		return canCastFromVariant(to)
	}
	if to.Kind == sqltypes.Variant {
		return canCastToVariant(from, false)
	}
	switch to.Kind {
	case sqltypes.String:
		return true
	case sqltypes.Boolean:
		return from.IsNumeric() || from.Kind == sqltypes.String || isDatetime(from) && from.Kind != sqltypes.Date
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Float, sqltypes.Double, sqltypes.Decimal:
		return from.IsNumeric() || from.Kind == sqltypes.String || from.Kind == sqltypes.Boolean ||
			from.Kind == sqltypes.Timestamp ||
			(to.IsIntegral() && (from.Kind == sqltypes.DayTimeInterval || from.Kind == sqltypes.YearMonthInterval)) ||
			(from.Kind == sqltypes.Time && (to.IsIntegral() || to.Kind == sqltypes.Decimal))
	case sqltypes.Binary:
		return from.Kind == sqltypes.String || from.IsIntegral()
	case sqltypes.Date:
		return from.Kind == sqltypes.String || from.Kind == sqltypes.Timestamp || from.Kind == sqltypes.TimestampNTZ
	case sqltypes.Timestamp:
		return from.Kind == sqltypes.String || from.Kind == sqltypes.Date || from.Kind == sqltypes.TimestampNTZ ||
			from.IsNumeric() || from.Kind == sqltypes.Boolean
	case sqltypes.TimestampNTZ:
		return from.Kind == sqltypes.String || from.Kind == sqltypes.Date || from.Kind == sqltypes.Timestamp
	case sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		return from.Kind == sqltypes.String || from.Kind == to.Kind || from.IsIntegral()
	case sqltypes.Time:
		return from.Kind == sqltypes.String || from.Kind == sqltypes.Time
	case sqltypes.CalendarInterval:
		return from.Kind == sqltypes.String
	case sqltypes.Array:
		return from.Kind == sqltypes.Array && canCast(*from.Elem, *to.Elem)
	case sqltypes.Map:
		return from.Kind == sqltypes.Map && canCast(*from.Key, *to.Key) && canCast(*from.Value, *to.Value)
	case sqltypes.Struct:
		if from.Kind != sqltypes.Struct || len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			if !canCast(from.Fields[i].Type, to.Fields[i].Type) {
				return false
			}
		}
		return true
	}
	return false
}

// typeof(e) is the SQL name of e's type: it lives beside cast, the other function about types.
func init() {
	registerScalar(1, 1, bindTypeof, "typeof")
}

func bindTypeof(name string, args []Expr, opts Options) (Expr, error) {
	return &renamed{Expr: NewLiteral(args[0].Type().String(), strType), name: callString(name, args)}, nil
}
