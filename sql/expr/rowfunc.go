package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// rowFunc is the generic row-wise scalar function: it converts each argument array to Go values,
// computes one result per row, and builds the output array. Every function without a vectorized
// kernel evaluates this way.
type rowFunc struct {
	name string
	args []Expr
	t    sqltypes.DataType
	null bool
	// str is the rendered SQL; when empty, text is the rendering kept lazily (see sqlText), and
	// when that is nil too, the rendering is name(arg, …). Renderings that contain arguments
	// are kept as text, so that binding never renders a subtree.
	str  string
	text sqlText
	// strict functions return NULL when any argument is NULL, without calling fn.
	strict bool
	fn     func(ctx *Context, args []any) (any, error)
	// size, when set, returns the bytes fn's result for args will take (see limits.go); Eval
	// checks it against the context's bounds before fn runs. It may fail with Spark's own limit.
	size func(args []any) (int64, error)
	// vec, when set, is a typed kernel over the evaluated arguments (kernel_*.go) computing what
	// fn would, row for row; ok=false (arguments not of its layout) falls back to fn.
	vec func(ctx *Context, cols []arrow.Array) (out arrow.Array, ok bool)
}

func (f *rowFunc) Type() sqltypes.DataType { return f.t }
func (f *rowFunc) Nullable() bool          { return f.null }
func (f *rowFunc) Children() []Expr        { return f.args }

func (f *rowFunc) String() string {
	if f.str != "" {
		return f.str
	}
	return renderSQL(f)
}

func (f *rowFunc) writeSQL(b *strings.Builder) {
	switch {
	case f.str != "":
		b.WriteString(f.str)
	case f.text != nil:
		f.text.write(b)
	default:
		writeCall(b, f.name, f.args)
	}
}

// callString renders name(a, b, …).
func callString(name string, args []Expr) string {
	var b strings.Builder
	writeCall(&b, name, args)
	return b.String()
}

func (f *rowFunc) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	if n > 1 && batchConstant(f) && IsDeterministic(f) {
		// One value for the whole batch (date '1994-01-01' + interval '1' year): computed once.
		o, err := evalOperand(ctx, f, batch)
		if err != nil {
			return nil, err
		}
		return repeatValue(ctx, o.k, f.t, n), nil
	}
	cols, err := evalAll(ctx, f.args, batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	if f.vec != nil {
		if out, ok := f.vec(ctx, cols); ok {
			return out, nil
		}
	}
	row := make([]any, len(cols))
	// load reads row i's arguments; false when a strict function's result is NULL.
	load := func(i int) bool {
		for j, c := range cols {
			row[j] = ValueAt(c, i, f.args[j].Type())
			if f.strict && row[j] == nil {
				return false
			}
		}
		return true
	}
	if f.size != nil {
		// Every row's result size is checked, per value and summed over the batch, before any
		// result is built.
		var used int64
		for i := 0; i < n; i++ {
			if !load(i) {
				continue
			}
			need, err := f.size(row)
			if err != nil {
				return nil, err
			}
			if err := ctx.checkResultBytes(f.name, need, used); err != nil {
				return nil, err
			}
			used += need
		}
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		if !load(i) {
			continue
		}
		v, err := f.fn(ctx, row)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return BuildArray(ctx.mem(), f.t, ctx.tz(), out), nil
}

// evalAll evaluates exprs over batch; on error it releases what it made.
func evalAll(ctx *Context, exprs []Expr, batch arrow.RecordBatch) ([]arrow.Array, error) {
	cols := make([]arrow.Array, 0, len(exprs))
	for _, e := range exprs {
		c, err := e.Eval(ctx, batch)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, nil
}

func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// anyNullable reports whether any expression is nullable.
func anyNullable(args []Expr) bool {
	for _, a := range args {
		if a.Nullable() {
			return true
		}
	}
	return false
}
