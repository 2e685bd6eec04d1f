package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Literal is a constant.
type Literal struct {
	Value any
	T     sqltypes.DataType
}

// Type implements Expr.
func (l *Literal) Type() sqltypes.DataType { return l.T }

// Nullable implements Expr.
func (l *Literal) Nullable() bool { return l.Value == nil }

// String implements Expr.
func (l *Literal) String() string { return literalSQL(l.Value, l.T) }

// Children implements Expr.
func (l *Literal) Children() []Expr { return nil }

// Eval implements Expr: the value repeated batch.NumRows() times.
func (l *Literal) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	return repeatValue(ctx, l.Value, l.T, int(batch.NumRows())), nil
}

// repeatValue builds an array holding v n times.
func repeatValue(ctx *Context, v any, t sqltypes.DataType, n int) arrow.Array {
	mem := ctx.mem()
	at := sqltypes.ToArrow(t, ctx.tz())
	if v == nil {
		return array.MakeArrayOfNull(mem, at, n)
	}
	switch t.Kind {
	case sqltypes.Long:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.Resize(n)
		x := toInt64(v)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
		return b.NewArray()
	case sqltypes.Integer:
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Resize(n)
		x := int32(toInt64(v))
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
		return b.NewArray()
	case sqltypes.Double:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Resize(n)
		x := toFloat64(v)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
		return b.NewArray()
	case sqltypes.Decimal:
		buf, vals := newDecimalValues(mem, n)
		x := v.(decimal128.Num)
		for i := range vals {
			vals[i] = x
		}
		return decimalArray(mem, t, buf, nil, n)
	case sqltypes.Boolean:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Resize(n)
		x := v.(bool)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
		return b.NewArray()
	}
	b := array.NewBuilder(mem, at)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		appendValue(b, t, v)
	}
	return b.NewArray()
}
