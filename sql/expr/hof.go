package expr

import (
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Higher-order functions (transform, filter, exists, forall, aggregate, zip_with, map_filter,
// transform_keys, transform_values, map_zip_with, array_sort with a comparator) over lambdas.
//
// Binding: the analyzer asks LambdaParams for the typed parameters of each lambda, binds the
// lambda body with those parameters in scope (a LambdaVariable is an Expr), and calls
// BindHigherOrder with the bodies.
//
// Evaluation is vectorized per level: the collection elements of all rows are flattened, the
// input batch's rows are repeated once per element, the lambda parameters are appended as extra
// columns, and the body is evaluated once over that expanded batch. A LambdaVariable reads its
// column by a position the enclosing function sets while it evaluates (nested lambdas work
// because each level appends its parameters after the columns it received).

// LambdaVariable is a lambda parameter (x in x -> x + 1).
type LambdaVariable struct {
	Name string
	T    sqltypes.DataType
	Null bool
	// col is the batch column holding the parameter during evaluation.
	col int
}

// Type implements Expr.
func (v *LambdaVariable) Type() sqltypes.DataType { return v.T }

// Nullable implements Expr.
func (v *LambdaVariable) Nullable() bool { return v.Null }

// String implements Expr: Spark renders every lambda variable as namedlambdavariable() in
// column names.
func (v *LambdaVariable) String() string { return "namedlambdavariable()" }

// Children implements Expr.
func (v *LambdaVariable) Children() []Expr { return nil }

// Eval implements Expr.
func (v *LambdaVariable) Eval(_ *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	if v.col < 0 || v.col >= int(batch.NumCols()) {
		return nil, sparkerr.Internal("lambda variable %s evaluated outside its function", v.Name)
	}
	a := batch.Column(v.col)
	a.Retain()
	return a, nil
}

// Lambda is a bound lambda: typed parameters and a body over them.
type Lambda struct {
	Params []*LambdaVariable
	Body   Expr
}

func (l Lambda) String() string {
	var b strings.Builder
	l.writeSQL(&b)
	return b.String()
}

func (l Lambda) writeSQL(b *strings.Builder) {
	b.WriteString("lambdafunction(")
	writeSQL(b, l.Body)
	for _, p := range l.Params {
		b.WriteString(", " + p.String())
	}
	b.WriteByte(')')
}

// IsHigherOrder reports whether name (any case) takes lambda arguments.
func IsHigherOrder(name string) bool {
	_, ok := hofArity[strings.ToLower(name)]
	return ok
}

// hofArity is the number of non-lambda arguments before the lambdas.
var hofArity = map[string]int{
	"transform": 1, "filter": 1, "exists": 1, "forall": 1, "aggregate": 2, "reduce": 2,
	"zip_with": 2, "map_filter": 1, "transform_keys": 1, "transform_values": 1, "array_sort": 1,
	"map_zip_with": 2,
}

// LambdaParams returns the typed parameters of lambda number lambdaIdx (0-based) of function
// name, given its bound non-lambda arguments and the parameter names the lambda declares.
func LambdaParams(name string, args []Expr, lambdaIdx int, names []string) ([]*LambdaVariable, error) {
	name = strings.ToLower(name)
	n, ok := hofArity[name]
	if !ok {
		return nil, sparkerr.UnresolvedRoutine(name)
	}
	if len(args) != n {
		return nil, wrongNumArgs(name, arityString(n+1, n+2), len(args)+1)
	}
	var types []sqltypes.DataType
	var nulls []bool
	switch name {
	case "transform", "filter", "exists", "forall":
		e, null, err := arrayElem(name, args[0])
		if err != nil {
			return nil, err
		}
		types, nulls = []sqltypes.DataType{e, sqltypes.IntegerType}, []bool{null, false}
	case "aggregate", "reduce":
		e, null, err := arrayElem(name, args[0])
		if err != nil {
			return nil, err
		}
		acc := args[1].Type()
		types, nulls = []sqltypes.DataType{acc, e}, []bool{true, null}
		if lambdaIdx == 1 {
			types, nulls = []sqltypes.DataType{acc}, []bool{true}
		}
	case "map_zip_with":
		kt, err := mapZipKeyType(args)
		if err != nil {
			return nil, err
		}
		types, nulls = []sqltypes.DataType{kt, *args[0].Type().Value, *args[1].Type().Value}, []bool{false, true, true}
	case "array_sort":
		e, null, err := arrayElem(name, args[0])
		if err != nil {
			return nil, err
		}
		types, nulls = []sqltypes.DataType{e, e}, []bool{null, null}
	case "zip_with":
		e1, _, err := arrayElem(name, args[0])
		if err != nil {
			return nil, err
		}
		e2, _, err := arrayElem(name, args[1])
		if err != nil {
			return nil, err
		}
		types, nulls = []sqltypes.DataType{e1, e2}, []bool{true, true}
	default:
		t := args[0].Type()
		if t.Kind != sqltypes.Map {
			return nil, unexpectedInputType(quoteSQL(name), 0, `"MAP"`, args[0])
		}
		types, nulls = []sqltypes.DataType{*t.Key, *t.Value}, []bool{false, t.ValueNullable}
	}
	if len(names) == 0 || len(names) > len(types) {
		return nil, sparkerr.Analysis("INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH", "42K0D",
			"Invalid lambda function call. Higher order function expects %d arguments, but got %d.", len(types), len(names))
	}
	out := make([]*LambdaVariable, len(names))
	for i, nm := range names {
		out[i] = &LambdaVariable{Name: nm, T: types[i], Null: nulls[i], col: -1}
	}
	return out, nil
}

func arrayElem(name string, a Expr) (sqltypes.DataType, bool, error) {
	t := a.Type()
	if t.Kind != sqltypes.Array {
		return sqltypes.DataType{}, false, unexpectedInputType(quoteSQL(name), 0, `"ARRAY"`, a)
	}
	return *t.Elem, t.ElemNullable, nil
}

// hof is a bound higher-order function call.
type hof struct {
	name    string
	args    []Expr
	lambdas []Lambda
	t       sqltypes.DataType
	mu      sync.Mutex
}

// BindHigherOrder binds name(args…, lambdas…) with bodies bound over LambdaParams' variables.
func BindHigherOrder(name string, args []Expr, lambdas []Lambda, opts Options) (Expr, error) {
	name = strings.ToLower(name)
	if _, ok := hofArity[name]; !ok {
		return nil, sparkerr.UnresolvedRoutine(name)
	}
	h := &hof{name: name, args: args, lambdas: lambdas}
	body := lambdas[0].Body
	switch name {
	case "transform":
		h.t = sqltypes.ArrayType(body.Type(), body.Nullable())
	case "filter":
		if body.Type().Kind != sqltypes.Boolean {
			return nil, unexpectedInputType(quoteSQL(h.String()), 1, `"BOOLEAN"`, body)
		}
		h.t = args[0].Type()
	case "exists", "forall":
		if body.Type().Kind != sqltypes.Boolean {
			return nil, unexpectedInputType(quoteSQL(h.String()), 1, `"BOOLEAN"`, body)
		}
		h.t = sqltypes.BooleanType
	case "aggregate", "reduce":
		acc := args[1].Type()
		merged, err := implicitCast(body, acc, opts)
		if err != nil {
			return nil, err
		}
		h.lambdas[0].Body = merged
		h.t = acc
		if len(lambdas) == 2 {
			h.t = lambdas[1].Body.Type()
		}
	case "zip_with":
		h.t = sqltypes.ArrayType(body.Type(), body.Nullable())
	case "map_zip_with":
		h.t = sqltypes.MapType(*args[0].Type().Key, body.Type(), true)
	case "array_sort":
		if body.Type().Kind != sqltypes.Integer {
			return nil, unexpectedInputType(quoteSQL(h.String()), 1, `"INT"`, body)
		}
		h.t = args[0].Type()
	case "map_filter":
		h.t = args[0].Type()
	case "transform_values":
		mt := args[0].Type()
		h.t = sqltypes.MapType(*mt.Key, body.Type(), body.Nullable())
	case "transform_keys":
		mt := args[0].Type()
		h.t = sqltypes.MapType(body.Type(), *mt.Value, mt.ValueNullable)
	}
	return h, nil
}

func (h *hof) Type() sqltypes.DataType { return h.t }
func (h *hof) Nullable() bool          { return true }
func (h *hof) Children() []Expr {
	out := append([]Expr{}, h.args...)
	for _, l := range h.lambdas {
		out = append(out, l.Body)
	}
	return out
}

func (h *hof) String() string { return renderSQL(h) }

func (h *hof) writeSQL(b *strings.Builder) {
	b.WriteString(h.name + "(")
	for i, a := range h.args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeSQL(b, a)
	}
	for i, l := range h.lambdas {
		if i > 0 || len(h.args) > 0 {
			b.WriteString(", ")
		}
		l.writeSQL(b)
	}
	if (h.name == "aggregate" || h.name == "reduce") && len(h.lambdas) == 1 {
		// Spark fills in the identity finish function, and names the column with it.
		b.WriteString(", lambdafunction(namedlambdavariable(), namedlambdavariable())")
	}
	b.WriteByte(')')
}

// expandedBatch repeats row rows[k] of batch once per k and appends extra columns.
func expandedBatch(ctx *Context, batch arrow.RecordBatch, rows []int, extra []arrow.Array) arrow.RecordBatch {
	ncols := int(batch.NumCols())
	fields := append([]arrow.Field{}, batch.Schema().Fields()...)
	cols := make([]arrow.Array, 0, ncols+len(extra))
	for c := 0; c < ncols; c++ {
		cols = append(cols, takeRows(ctx, batch.Column(c), rows))
	}
	for i, e := range extra {
		fields = append(fields, arrow.Field{Name: "_lambda" + string(rune('0'+i)), Type: e.DataType(), Nullable: true})
		e.Retain()
		cols = append(cols, e)
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	releaseAll(cols)
	return out
}

// takeRows copies src's rows in the given order.
func takeRows(ctx *Context, src arrow.Array, rows []int) arrow.Array {
	t, err := sqltypes.FromArrow(src.DataType())
	if err != nil {
		t = sqltypes.NullType
	}
	b := array.NewBuilder(ctx.mem(), src.DataType())
	defer b.Release()
	b.Reserve(len(rows))
	for _, r := range rows {
		if isNullAt(src, r) {
			b.AppendNull()
			continue
		}
		appendValue(b, t, ValueAt(src, r, t))
	}
	return b.NewArray()
}

// evalLambda evaluates l's body over batch rows repeated per rows, with params bound to vals.
func (h *hof) evalLambda(ctx *Context, l Lambda, batch arrow.RecordBatch, rows []int, vals [][]any) ([]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	extra := make([]arrow.Array, len(l.Params))
	for i, p := range l.Params {
		extra[i] = BuildArray(ctx.mem(), p.T, ctx.tz(), vals[i])
	}
	eb := expandedBatch(ctx, batch, rows, extra)
	releaseAll(extra)
	defer eb.Release()
	base := int(batch.NumCols())
	for i, p := range l.Params {
		p.col = base + i
	}
	out, err := l.Body.Eval(ctx, eb)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return valuesOf(out, l.Body.Type()), nil
}

func (h *hof) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cols, err := evalAll(ctx, h.args, batch)
	if err != nil {
		return nil, err
	}
	defer releaseAll(cols)
	n := int(batch.NumRows())
	inputs := make([][]any, len(cols))
	for c, a := range cols {
		inputs[c] = valuesOf(a, h.args[c].Type())
	}
	out := make([]any, n)
	switch h.name {
	case "aggregate", "reduce":
		err = h.evalAggregate(ctx, batch, inputs, out)
	case "zip_with":
		err = h.evalZip(ctx, batch, inputs, out)
	case "array_sort":
		err = h.evalSort(ctx, batch, inputs[0], out)
	case "map_zip_with":
		err = h.evalMapZip(ctx, batch, inputs, out)
	case "map_filter", "transform_keys", "transform_values":
		err = h.evalMap(ctx, batch, inputs[0], out)
	default:
		err = h.evalArray(ctx, batch, inputs[0], out)
	}
	if err != nil {
		return nil, err
	}
	return BuildArray(ctx.mem(), h.t, ctx.tz(), out), nil
}

func (h *hof) evalArray(ctx *Context, batch arrow.RecordBatch, arrs []any, out []any) error {
	var rows []int
	elems, idx := []any{}, []any{}
	for r, a := range arrs {
		if a == nil {
			continue
		}
		for i, e := range a.([]any) {
			rows = append(rows, r)
			elems = append(elems, e)
			idx = append(idx, int32(i))
		}
	}
	res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{elems, idx}[:len(h.lambdas[0].Params)])
	if err != nil {
		return err
	}
	k := 0
	for r, a := range arrs {
		if a == nil {
			continue
		}
		in := a.([]any)
		switch h.name {
		case "transform":
			out[r] = append([]any{}, res[k:k+len(in)]...)
		case "filter":
			kept := []any{}
			for i, e := range in {
				if b, ok := res[k+i].(bool); ok && b {
					kept = append(kept, e)
				}
			}
			out[r] = kept
		case "exists", "forall":
			want := h.name == "exists"
			sawNull := false
			var v any = !want
			for i := range in {
				b, ok := res[k+i].(bool)
				if !ok {
					sawNull = true
				} else if b == want {
					v = want
					break
				}
			}
			if v != want && sawNull {
				v = nil
			}
			out[r] = v
		}
		k += len(in)
	}
	return nil
}

func (h *hof) evalAggregate(ctx *Context, batch arrow.RecordBatch, inputs [][]any, out []any) error {
	arrs, acc := inputs[0], append([]any{}, inputs[1]...)
	maxLen := 0
	for _, a := range arrs {
		if a != nil {
			maxLen = max(maxLen, len(a.([]any)))
		}
	}
	for step := 0; step < maxLen; step++ {
		var rows []int
		var accs, elems []any
		for r, a := range arrs {
			if a != nil && step < len(a.([]any)) {
				rows = append(rows, r)
				accs = append(accs, acc[r])
				elems = append(elems, a.([]any)[step])
			}
		}
		res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{accs, elems})
		if err != nil {
			return err
		}
		for k, r := range rows {
			acc[r] = res[k]
		}
	}
	var rows []int
	var accs []any
	for r, a := range arrs {
		if a != nil {
			rows = append(rows, r)
			accs = append(accs, acc[r])
		}
	}
	if len(h.lambdas) == 2 {
		res, err := h.evalLambda(ctx, h.lambdas[1], batch, rows, [][]any{accs})
		if err != nil {
			return err
		}
		for k, r := range rows {
			out[r] = res[k]
		}
		return nil
	}
	for k, r := range rows {
		out[r] = accs[k]
	}
	return nil
}

func (h *hof) evalZip(ctx *Context, batch arrow.RecordBatch, inputs [][]any, out []any) error {
	var rows []int
	var xs, ys []any
	lens := make([]int, len(inputs[0]))
	for r := range inputs[0] {
		a, b := inputs[0][r], inputs[1][r]
		if a == nil || b == nil {
			lens[r] = -1
			continue
		}
		la, lb := a.([]any), b.([]any)
		lens[r] = max(len(la), len(lb))
		for i := 0; i < lens[r]; i++ {
			rows = append(rows, r)
			var x, y any
			if i < len(la) {
				x = la[i]
			}
			if i < len(lb) {
				y = lb[i]
			}
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{xs, ys})
	if err != nil {
		return err
	}
	k := 0
	for r, l := range lens {
		if l < 0 {
			continue
		}
		out[r] = append([]any{}, res[k:k+l]...)
		k += l
	}
	return nil
}

func (h *hof) evalMap(ctx *Context, batch arrow.RecordBatch, maps []any, out []any) error {
	var rows []int
	var ks, vs []any
	for r, m := range maps {
		if m == nil {
			continue
		}
		mv := m.(*sqltypes.MapValue)
		for i := range mv.Keys {
			rows = append(rows, r)
			ks, vs = append(ks, mv.Keys[i]), append(vs, mv.Values[i])
		}
	}
	res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{ks, vs}[:len(h.lambdas[0].Params)])
	if err != nil {
		return err
	}
	k := 0
	for r, m := range maps {
		if m == nil {
			continue
		}
		mv := m.(*sqltypes.MapValue)
		nm := &sqltypes.MapValue{}
		for i := range mv.Keys {
			switch h.name {
			case "map_filter":
				if b, ok := res[k+i].(bool); ok && b {
					nm.Keys, nm.Values = append(nm.Keys, mv.Keys[i]), append(nm.Values, mv.Values[i])
				}
			case "transform_values":
				nm.Keys, nm.Values = append(nm.Keys, mv.Keys[i]), append(nm.Values, res[k+i])
			default:
				if res[k+i] == nil {
					return sparkerr.New(sparkerr.SparkRuntimeException, "NULL_MAP_KEY", "2200E", "Cannot use null as map key.")
				}
				if err := mapPut(nm, res[k+i], mv.Values[i], *h.t.Key); err != nil {
					return err
				}
			}
		}
		out[r] = nm
		k += len(mv.Keys)
	}
	return nil
}
