package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// BindFilteredAggregate binds name(args) FILTER (WHERE cond). Most aggregates skip NULL
// arguments, so rows failing cond feed NULLs: name(CASE WHEN cond THEN arg END, …), where the
// first argument and every argument reading a column are guarded and the constant ones stay
// constants (Spark checks them as foldable literals). An aggregate that counts NULLs
// (approx_top_k) reads cond as a last argument instead and skips the rows it does not hold for.
func BindFilteredAggregate(name string, args []Expr, distinct bool, cond Expr, opts Options) (AggFunc, error) {
	if len(args) == 0 {
		args = []Expr{NewLiteral(int32(1), sqltypes.IntegerType)}
	}
	plain, err := BindAggregate(name, args, distinct, opts)
	if err == nil {
		if a, ok := plain.(*aggFunc); ok && a.countsNulls {
			f := *a
			f.args = append(append([]Expr(nil), a.args...), cond)
			inner, types := a.newAcc, make([]sqltypes.DataType, len(a.args))
			for i, x := range a.args {
				types[i] = x.Type()
			}
			f.newAcc = func(ctx *Context) GroupedAccumulator { return &filterAcc{inner: inner(ctx), types: types} }
			f.split = nil
			return &f, nil
		}
	}
	guarded := make([]Expr, len(args))
	for i, x := range args {
		if _, constant := constantOperand(x); i > 0 && constant {
			guarded[i] = x
			continue
		}
		g, err := Bind("when", []Expr{cond, x}, opts)
		if err != nil {
			return nil, err
		}
		guarded[i] = g
	}
	return BindAggregate(name, guarded, distinct, opts)
}

// filterAcc feeds its inner accumulator the rows whose last argument (the filter) is TRUE.
type filterAcc struct {
	inner GroupedAccumulator
	types []sqltypes.DataType // of the inner arguments
}

func (f *filterAcc) Grow(n int)       { f.inner.Grow(n) }
func (f *filterAcc) SizeBytes() int64 { return f.inner.SizeBytes() }

func (f *filterAcc) Update(groups []uint32, args []arrow.Array) error {
	return f.apply(groups, args, f.inner.Update)
}

func (f *filterAcc) Retract(groups []uint32, args []arrow.Array) error {
	return f.apply(groups, args, f.inner.Retract)
}

func (f *filterAcc) apply(groups []uint32, args []arrow.Array, to func([]uint32, []arrow.Array) error) error {
	n := len(args) - 1
	cond, _ := args[n].(*array.Boolean)
	var rows []int
	for i := range groups {
		if cond != nil && cond.IsValid(i) && cond.Value(i) {
			rows = append(rows, i)
		}
	}
	if len(rows) == len(groups) {
		return to(groups, args[:n])
	}
	sel := make([]uint32, len(rows))
	kept := make([]arrow.Array, n)
	defer func() { releaseAll(kept) }()
	for j := range kept {
		vals := make([]any, len(rows))
		t := f.types[j]
		for k, i := range rows {
			vals[k] = ValueAt(args[j], i, t)
		}
		kept[j] = BuildArray(nil, t, arrowTZ(args[j]), vals)
	}
	for k, i := range rows {
		sel[k] = groups[i]
	}
	return to(sel, kept)
}

func (f *filterAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	return f.inner.Result(ctx, groups)
}
