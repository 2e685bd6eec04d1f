package expr

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Generators (Spark's table-generating functions): explode, explode_outer, posexplode,
// posexplode_outer, inline, inline_outer, stack and json_tuple. A generator turns one input row
// into zero or more output rows of its own columns; the Generate operator repeats the input
// row's columns next to them. An outer generator emits one row of NULLs for an input row that
// generates nothing.

// Generator is a bound generator call.
type Generator interface {
	// String renders the call as Spark does ("explode(arr)").
	String() string
	// Children are the bound arguments.
	Children() []Expr
	// Output is the generated columns with Spark's default names (col, pos, key, value, c0…).
	Output() sqltypes.Schema
	// Outer reports whether input rows without output rows get one row of NULLs.
	Outer() bool
	// WithOuter returns the generator with Outer set (LATERAL VIEW OUTER).
	WithOuter() Generator
	// Generate evaluates the generator over batch (user columns): rows[k] is the input row of
	// output row k, in input order; cols are the generated columns (the caller releases them).
	Generate(ctx *Context, batch arrow.RecordBatch) (rows []int, cols []arrow.Array, err error)
}

// generatorBinder binds one generator's arguments to its output columns and row function.
type generatorBinder struct {
	minArgs, maxArgs int
	bind             func(name string, args []Expr, opts Options) (*generator, error)
}

// generatorRegistry holds the generators by name; the _outer variants share their base's binder.
var generatorRegistry = map[string]generatorBinder{
	"explode":    {1, 1, bindExplode},
	"posexplode": {1, 1, bindExplode},
	"inline":     {1, 1, bindInline},
	"stack":      {2, -1, bindStack},
	"json_tuple": {2, -1, bindJSONTuple},
}

// hasOuterForm reports whether the generator base also exists as base_outer.
func hasOuterForm(base string) bool {
	return base == "explode" || base == "posexplode" || base == "inline" || base == "variant_explode"
}

// cutOuter is name lower-cased without its _outer suffix, and whether it had one.
func cutOuter(name string) (string, bool) {
	return strings.CutSuffix(strings.ToLower(name), "_outer")
}

// IsGenerator reports whether name (any case) is a generator function (table-only ones
// included: see IsTableOnlyGenerator).
func IsGenerator(name string) bool {
	base, _ := cutOuter(name)
	_, ok := generatorRegistry[base]
	return ok
}

// BindGenerator binds the generator call name(args…); wrong argument types give
// DATATYPE_MISMATCH.*, wrong arity WRONG_NUM_ARGS.
func BindGenerator(name string, args []Expr, opts Options) (Generator, error) {
	lname := strings.ToLower(name)
	base, outer := cutOuter(lname)
	b, ok := generatorRegistry[base]
	if !ok || (outer && !hasOuterForm(base)) {
		return nil, sparkerr.UnresolvedRoutine(name)
	}
	if len(args) < b.minArgs || (b.maxArgs >= 0 && len(args) > b.maxArgs) {
		want := arityString(b.minArgs, b.maxArgs)
		if b.maxArgs < 0 {
			want = "> " + strconv.Itoa(b.minArgs-1)
		}
		return nil, wrongNumArgs(lname, want, len(args))
	}
	g, err := b.bind(base, args, opts)
	if err != nil {
		return nil, err
	}
	g.name = lname
	if outer {
		return g.WithOuter(), nil
	}
	return g, nil
}

// generator is the row-wise generator: row produces the output rows of one input row from its
// argument values.
type generator struct {
	name  string
	args  []Expr
	out   sqltypes.Schema
	outer bool
	row   func(vals []any, emit func(vals ...any))
	// explodeArray marks explode / posexplode of an array, which runs vectorized
	// (explodeList); pos adds the position column.
	explodeArray, pos bool
	// fixedRows, when positive, is the number of rows row emits for every input row (stack's n):
	// Generate checks their size against the context's bounds before generating any.
	fixedRows int64
}

func (g *generator) String() string              { return callString(g.name, g.args) }
func (g *generator) writeSQL(b *strings.Builder) { writeCall(b, g.name, g.args) }
func (g *generator) Children() []Expr            { return g.args }
func (g *generator) Output() sqltypes.Schema     { return g.out }
func (g *generator) Outer() bool                 { return g.outer }

// WithOuter implements Generator: every output column becomes nullable.
func (g *generator) WithOuter() Generator {
	c := *g
	c.outer = true
	c.out = make(sqltypes.Schema, len(g.out))
	for i, f := range g.out {
		f.Nullable = true
		c.out[i] = f
	}
	return &c
}

func (g *generator) Generate(ctx *Context, batch arrow.RecordBatch) ([]int, []arrow.Array, error) {
	argCols, err := evalAll(ctx, g.args, batch)
	if err != nil {
		return nil, nil, err
	}
	defer releaseAll(argCols)
	if len(argCols) > 0 { // a generator may take none (sql_keywords())
		if list, ok := argCols[0].(*array.List); ok && g.explodeArray {
			return explodeList(ctx, list, g.pos, g.outer)
		}
	}
	n := int(batch.NumRows())
	if g.fixedRows > 0 {
		// Each output row: its input row index and, per column, a Go value and its Arrow slot.
		perRow := 8 + int64(len(g.out))*(goAnyBytes+8)
		if err := ctx.checkGeneratedBytes(g.name, mulBytes(mulBytes(int64(n), g.fixedRows), perRow)); err != nil {
			return nil, nil, err
		}
	}
	vals := make([][]any, len(argCols))
	for i, c := range argCols {
		vals[i] = valuesOf(c, g.args[i].Type())
	}
	var rows []int
	outVals := make([][]any, len(g.out))
	row := make([]any, len(argCols))
	for r := 0; r < n; r++ {
		for i := range vals {
			row[i] = vals[i][r]
		}
		before := len(rows)
		g.row(row, func(v ...any) {
			rows = append(rows, r)
			for c := range outVals {
				outVals[c] = append(outVals[c], v[c])
			}
		})
		if g.outer && len(rows) == before {
			rows = append(rows, r)
			for c := range outVals {
				outVals[c] = append(outVals[c], nil)
			}
		}
	}
	cols := make([]arrow.Array, len(g.out))
	for c, f := range g.out {
		cols[c] = BuildArray(ctx.mem(), f.Type, ctx.tz(), outVals[c])
	}
	return rows, cols, nil
}

// bindExplode binds explode and posexplode over an array (col) or a map (key, value).
func bindExplode(name string, args []Expr, _ Options) (*generator, error) {
	t := args[0].Type()
	pos := name == "posexplode"
	var out sqltypes.Schema
	if pos {
		out = append(out, sqltypes.Field{Name: "pos", Type: sqltypes.IntegerType})
	}
	switch t.Kind {
	case sqltypes.Array:
		out = append(out, sqltypes.Field{Name: "col", Type: *t.Elem, Nullable: t.ElemNullable})
		return &generator{args: args, out: out, explodeArray: true, pos: pos, row: func(v []any, emit func(...any)) {
			if v[0] == nil {
				return
			}
			for i, e := range v[0].([]any) {
				if pos {
					emit(int32(i), e)
				} else {
					emit(e)
				}
			}
		}}, nil
	case sqltypes.Map:
		out = append(out, sqltypes.Field{Name: "key", Type: *t.Key},
			sqltypes.Field{Name: "value", Type: *t.Value, Nullable: t.ValueNullable})
		return &generator{args: args, out: out, row: func(v []any, emit func(...any)) {
			if v[0] == nil {
				return
			}
			m := v[0].(*sqltypes.MapValue)
			for i := range m.Keys {
				if pos {
					emit(int32(i), m.Keys[i], m.Values[i])
				} else {
					emit(m.Keys[i], m.Values[i])
				}
			}
		}}, nil
	}
	return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `("ARRAY" or "MAP")`, args[0])
}

// bindInline binds inline over an array of structs: one row per element, one column per field
// (a NULL element gives a row of NULLs).
func bindInline(name string, args []Expr, _ Options) (*generator, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Array || t.Elem.Kind != sqltypes.Struct {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"ARRAY<STRUCT>"`, args[0])
	}
	out := make(sqltypes.Schema, len(t.Elem.Fields))
	for i, f := range t.Elem.Fields {
		out[i] = sqltypes.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable || t.ElemNullable}
	}
	nulls := make([]any, len(out))
	return &generator{args: args, out: out, row: func(v []any, emit func(...any)) {
		if v[0] == nil {
			return
		}
		for _, e := range v[0].([]any) {
			if e == nil {
				emit(nulls...)
				continue
			}
			emit(e.([]any)...)
		}
	}}, nil
}

// bindStack binds stack(n, v1, …, vk): n rows of ceil(k/n) columns col0, col1…, filled row by
// row, missing values NULL. Values in one column must share a type (NULLs take it).
func bindStack(name string, args []Expr, opts Options) (*generator, error) {
	call := quoteSQL(callString(name, args))
	if args[0].Type().Kind != sqltypes.Integer {
		return nil, unexpectedInputType(call, 0, `"INT"`, args[0])
	}
	nv, ok := literalValue(args[0])
	if !ok || nv == nil {
		return nil, typeMismatch("NON_FOLDABLE_INPUT", call,
			"the input %s should be a foldable %s expression; however, got %s.",
			"`n`", `"INT"`, quoteSQL(args[0].String())).WithParams("inputName", "`n`", "inputType", `"INT"`, "inputExpr", quoteSQL(args[0].String()))
	}
	rowsN := int(nv.(int32))
	if rowsN < 1 {
		return nil, typeMismatch("VALUE_OUT_OF_RANGE", call,
			"The `n` must be between [1, %d], but got %d.", len(args)-1, rowsN).
			WithParams("exprName", "`n`", "valueRange", "[1, "+strconv.Itoa(len(args)-1)+"]", "currentValue", strconv.Itoa(rowsN))
	}
	vals := args[1:]
	ncols := (len(vals) + rowsN - 1) / rowsN
	out := make(sqltypes.Schema, ncols)
	for c := range out {
		out[c] = sqltypes.Field{Name: "col" + strconv.Itoa(c), Type: sqltypes.NullType, Nullable: true}
		first := -1
		for r := 0; r < rowsN && r*ncols < len(vals); r++ {
			i := r*ncols + c
			if i >= len(vals) || vals[i].Type().Kind == sqltypes.Null {
				continue
			}
			if first < 0 {
				first, out[c].Type = i, vals[i].Type()
				continue
			}
			if !vals[i].Type().EqualIgnoreNullable(out[c].Type) {
				return nil, typeMismatch("STACK_COLUMN_DIFF_TYPES", call,
					"The data type of the column (%d) do not have the same type: %s (%d) <> %s (%d).",
					c, quoteSQL(out[c].Type.SQL()), first+2, quoteSQL(vals[i].Type().SQL()), i+2).
					WithParams("columnIndex", strconv.Itoa(c), "leftType", quoteSQL(out[c].Type.SQL()), "leftParamIndex", strconv.Itoa(first+2),
						"rightType", quoteSQL(vals[i].Type().SQL()), "rightParamIndex", strconv.Itoa(i+2))
			}
		}
	}
	bound := append([]Expr{args[0]}, vals...)
	for i := range vals {
		t := out[i%ncols].Type
		if vals[i].Type().Kind == sqltypes.Null && t.Kind != sqltypes.Null {
			c, err := implicitCast(vals[i], t, opts)
			if err != nil {
				return nil, err
			}
			bound[i+1] = c
		}
	}
	return &generator{args: bound, out: out, fixedRows: int64(rowsN), row: func(v []any, emit func(...any)) {
		row := make([]any, ncols)
		for r := 0; r < rowsN; r++ {
			for c := range row {
				row[c] = nil
				if i := 1 + r*ncols + c; i < len(v) {
					row[c] = v[i]
				}
			}
			emit(row...)
		}
	}}, nil
}

// bindJSONTuple binds json_tuple(json, k1, k2, …): one row with columns c0, c1… holding the
// top-level values of keys k1, k2… (strings unquoted, other values as JSON text, missing keys
// NULL); a NULL or malformed document gives one row of NULLs.
func bindJSONTuple(name string, args []Expr, opts Options) (*generator, error) {
	for _, a := range args {
		if k := a.Type().Kind; k != sqltypes.String && k != sqltypes.Null {
			return nil, typeMismatch("NON_STRING_TYPE", quoteSQL(callString(name, args)),
				"all arguments of the function %s must be strings.", "`"+name+"`").WithParams("funcName", "`"+name+"`")
		}
	}
	in, err := coerceArgs(name, args, opts, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	out := make(sqltypes.Schema, len(args)-1)
	for i := range out {
		out[i] = sqltypes.Field{Name: "c" + strconv.Itoa(i), Type: sqltypes.StringType, Nullable: true}
	}
	return &generator{args: in, out: out, row: func(v []any, emit func(...any)) {
		row := make([]any, len(out))
		if v[0] != nil {
			if doc, ok, _ := parseJSONText(v[0].(string)); ok {
				if obj, ok := doc.(*jsonObject); ok {
					for i := range row {
						row[i] = jsonTupleField(obj, v[i+1])
					}
				}
			}
		}
		emit(row...)
	}}, nil
}

// jsonTupleField is the value of key in obj as json_tuple renders it (the last of duplicate
// keys wins, as Spark's streaming parser overwrites).
func jsonTupleField(obj *jsonObject, key any) any {
	k, ok := key.(string)
	if !ok {
		return nil
	}
	var found any
	for i, name := range obj.keys {
		if name != k {
			continue
		}
		switch x := obj.vals[i].(type) {
		case nil:
			found = nil
		case string:
			found = x
		default:
			found = compactJSON(x)
		}
	}
	return found
}
