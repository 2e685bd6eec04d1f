package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// DataFrame column operations: alias, toDF, withColumns, withColumnsRenamed, drop, to(schema),
// na.fill and na.drop. Each is a Project (or Filter) over its input.

func (a *Analyzer) resolveSubqueryAlias(ctx context.Context, n *plan.SubqueryAlias) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if len(n.ColumnNames) > 0 {
		if len(n.ColumnNames) != len(in.cols) {
			return nil, sparkerr.Analysis("ASSIGNMENT_ARITY_MISMATCH", "42802",
				"The number of columns or variables assigned or aliased: %d does not match the number of source tables or expressions: %d.",
				len(n.ColumnNames), len(in.cols)).WithParams("numTarget", formatInt(int64(len(n.ColumnNames))),
				"numExpr", formatInt(int64(len(in.cols))))
		}
		in = in.project(renamed(in, n.ColumnNames))
	}
	return in.withQualifier([]string{n.Alias}), nil
}

// renamed references every column of in under a new name.
func renamed(in *resolved, names []string) []expr.Expr {
	out := make([]expr.Expr, len(in.cols))
	for i := range in.cols {
		if in.cols[i].name == names[i] {
			out[i] = in.ref(i)
			continue
		}
		out[i] = &expr.Alias{Child: in.ref(i), Name: names[i]}
	}
	return out
}

func (a *Analyzer) resolveToDF(ctx context.Context, n *plan.ToDF) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if len(n.Names) != len(in.cols) {
		old := make([]string, len(in.cols))
		for i, c := range in.cols {
			old[i] = c.name
		}
		return nil, sparkerr.IllegalArgument(
			"requirement failed: The number of columns doesn't match.\nOld column names (%d): %s\nNew column names (%d): %s",
			len(old), strings.Join(old, ", "), len(n.Names), strings.Join(n.Names, ", "))
	}
	return in.project(renamed(in, n.Names)), nil
}

// resolveWithColumns replaces same-name columns in place and appends new ones; every new
// expression is bound over the input.
func (a *Analyzer) resolveWithColumns(ctx context.Context, n *plan.WithColumns) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	aliases := make([]plan.Alias, len(n.Aliases))
	items := make([]plan.Expr, len(n.Aliases))
	for i, al := range n.Aliases {
		al.Child = a.pythonCalls([]plan.Expr{al.Child})[0]
		aliases[i], items[i] = al, al
	}
	orig := in
	if hasPythonUDF(items...) {
		if in, err = a.withPythonUDFs(in, items); err != nil {
			return nil, err
		}
	}
	gen, err := a.planGenerator(in, items)
	if err != nil {
		return nil, err
	}
	b := a.binderOver(in)
	if gen != nil {
		b = a.binderOver(gen.in)
	} else {
		b.windows = a.newWindowSet()
	}
	exprs := in.allRefs()[:len(orig.cols)]
	seen := map[string]bool{}
	for i, al := range aliases {
		if len(al.Names) != 1 {
			return nil, sparkerr.Unsupported("withColumns with a multi-name alias is not supported")
		}
		name := al.Names[0]
		key := name
		if !a.CaseSensitive {
			key = strings.ToLower(name)
		}
		if seen[key] {
			return nil, sparkerr.Analysis("COLUMN_ALREADY_EXISTS", "42711",
				"The column %s already exists. Choose another name or rename the existing column.",
				sparkerr.Quote(strings.ToLower(name))).WithParams("columnName", sparkerr.Quote(strings.ToLower(name)))
		}
		seen[key] = true
		var x expr.Expr
		if gen != nil && i == gen.pos {
			x = gen.outs[0]
		} else if x, err = b.bind(al.Child); err != nil {
			return nil, err
		}
		named := &expr.Alias{Child: trimAlias(x), Name: name}
		replaced := false
		for i, c := range orig.cols {
			if a.nameEq(c.name, name) {
				exprs[i] = named
				replaced = true
			}
		}
		if !replaced {
			exprs = append(exprs, named)
		}
	}
	if gen != nil {
		return gen.visible().project(exprs), nil
	}
	return b.windows.over(in).project(exprs), nil
}

// resolveWithColumnsRenamed renames columns old→new in order; names that match no column are
// ignored, as in Spark.
func (a *Analyzer) resolveWithColumnsRenamed(ctx context.Context, n *plan.WithColumnsRenamed) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(in.cols))
	for i, c := range in.cols {
		names[i] = c.name
	}
	for _, r := range n.Renames {
		for i := range names {
			if a.nameEq(names[i], r[0]) {
				names[i] = r[1]
			}
		}
	}
	return in.project(renamed(in, names)), nil
}

// resolveDrop removes columns named (unknown names are ignored) or referenced by expression.
func (a *Analyzer) resolveDrop(ctx context.Context, n *plan.Drop) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	drop := make([]bool, len(in.cols))
	for _, name := range n.Names {
		for i, c := range in.cols {
			if a.nameEq(c.name, name) {
				drop[i] = true
			}
		}
	}
	for _, e := range n.Columns {
		ref, ok := asColumnRef(e)
		if !ok {
			// Spark drops only attribute references; other expressions match nothing.
			continue
		}
		idx, rest, found := a.lookup(in, ref)
		if !found || len(rest) > 0 {
			continue
		}
		if len(idx) > 1 && ref.PlanID == 0 {
			return nil, ambiguousReference(ref.Name, in, idx)
		}
		for _, i := range idx {
			drop[i] = true
		}
	}
	var exprs []expr.Expr
	for i := range in.cols {
		if !drop[i] {
			exprs = append(exprs, in.ref(i))
		}
	}
	return in.project(exprs), nil
}

// resolveToSchema casts and reorders the input to a schema by column name (DataFrame.to).
func (a *Analyzer) resolveToSchema(ctx context.Context, n *plan.ToSchema) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	exprs := make([]expr.Expr, len(n.Schema))
	for k, f := range n.Schema {
		i, err := a.findByName(in, f.Name)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, unresolvedColumn([]string{f.Name}, candidateNames(in.cols))
		}
		if in.cols[i].nullable && !f.Nullable {
			return nil, sparkerr.Analysis("NULLABLE_COLUMN_OR_FIELD", "42000",
				"Column or field %s is nullable while it's required to be non-nullable.", sparkerr.Quote(f.Name)).
				WithParams("name", sparkerr.Quote(f.Name))
		}
		var x expr.Expr = in.ref(i)
		if !in.cols[i].typ.EqualIgnoreNullable(f.Type) {
			if x, err = expr.NewCast(x, f.Type, plan.CastDefault, a.Options); err != nil {
				return nil, err
			}
		}
		if x.String() != f.Name {
			x = &expr.Alias{Child: x, Name: f.Name}
		}
		exprs[k] = x
	}
	return in.project(exprs), nil
}

// resolveNAFill replaces nulls with fill values: coalesce(col, value) over the named columns
// (all columns when none are named) whose type the value fits.
func (a *Analyzer) resolveNAFill(ctx context.Context, n *plan.NAFill) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if len(n.Values) == 0 {
		return nil, sparkerr.IllegalArgument("na.fill needs a value")
	}
	if len(n.Cols) > 0 && len(n.Values) != 1 && len(n.Values) != len(n.Cols) {
		return nil, sparkerr.IllegalArgument("na.fill: %d values for %d columns", len(n.Values), len(n.Cols))
	}
	fill := make([]*plan.Literal, len(in.cols))
	if len(n.Cols) == 0 {
		for i := range in.cols {
			v := n.Values[0]
			fill[i] = &v
		}
	} else {
		for k, name := range n.Cols {
			i, err := a.findByName(in, name)
			if err != nil {
				return nil, err
			}
			if i < 0 {
				return nil, columnNotAmong(name, in)
			}
			v := n.Values[0]
			if len(n.Values) == len(n.Cols) {
				v = n.Values[k]
			}
			fill[i] = &v
		}
	}
	exprs := in.allRefs()
	changed := false
	for i, v := range fill {
		if v == nil || v.Value == nil || !fillApplies(v.Type, in.cols[i].typ) {
			continue
		}
		cast, err := expr.NewCast(expr.NewLiteral(v.Value, v.Type), in.cols[i].typ, plan.CastLegacy, a.Options)
		if err != nil {
			return nil, err
		}
		folded, err := a.evalConst(cast)
		if err != nil {
			return nil, err
		}
		val := expr.NewLiteral(folded, in.cols[i].typ)
		x, err := expr.Bind("coalesce", []expr.Expr{in.ref(i), val}, a.Options)
		if err != nil {
			return nil, err
		}
		exprs[i] = &expr.Alias{Child: x, Name: in.cols[i].name}
		changed = true
	}
	if !changed {
		return in, nil
	}
	return in.project(exprs), nil
}

// fillApplies reports whether a fill value of type v applies to a column of type col (Spark:
// numeric values fill numeric columns, strings strings, booleans booleans).
func fillApplies(v, col sqltypes.DataType) bool {
	switch {
	case v.IsNumeric():
		return col.IsNumeric()
	case v.Kind == sqltypes.String:
		return col.Kind == sqltypes.String
	case v.Kind == sqltypes.Boolean:
		return col.Kind == sqltypes.Boolean
	}
	return false
}

// resolveNADrop keeps rows with at least MinNonNulls non-null values among Cols (all columns
// when none are named; MinNonNulls defaults to all of them, how="any").
func (a *Analyzer) resolveNADrop(ctx context.Context, n *plan.NADrop) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	var idx []int
	if len(n.Cols) == 0 {
		for i := range in.cols {
			idx = append(idx, i)
		}
	} else {
		for _, name := range n.Cols {
			i, err := a.findByName(in, name)
			if err != nil {
				return nil, err
			}
			if i < 0 {
				return nil, columnNotAmong(name, in)
			}
			idx = append(idx, i)
		}
	}
	need := int32(len(idx))
	if n.MinNonNulls != nil {
		need = *n.MinNonNulls
	}
	if need <= 0 || len(idx) == 0 {
		return in, nil
	}
	var count expr.Expr
	for _, i := range idx {
		var present expr.Expr
		present, err = expr.Bind("isnotnull", []expr.Expr{in.ref(i)}, a.Options)
		if err != nil {
			return nil, err
		}
		if in.cols[i].typ.IsFractional() {
			nan, err := expr.Bind("isnan", []expr.Expr{in.ref(i)}, a.Options)
			if err != nil {
				return nil, err
			}
			notNaN, err := expr.Bind("not", []expr.Expr{nan}, a.Options)
			if err != nil {
				return nil, err
			}
			if present, err = expr.Bind("and", []expr.Expr{present, notNaN}, a.Options); err != nil {
				return nil, err
			}
		}
		one, err := expr.Bind("when", []expr.Expr{present, expr.NewLiteral(int32(1), sqltypes.IntegerType),
			expr.NewLiteral(int32(0), sqltypes.IntegerType)}, a.Options)
		if err != nil {
			return nil, err
		}
		if count == nil {
			count = one
			continue
		}
		if count, err = expr.Bind("+", []expr.Expr{count, one}, a.Options); err != nil {
			return nil, err
		}
	}
	cond, err := expr.Bind(">=", []expr.Expr{count, expr.NewLiteral(need, sqltypes.IntegerType)}, a.Options)
	if err != nil {
		return nil, err
	}
	return a.keepScope(in, &logical.Filter{Input: in.node, Cond: cond}), nil
}
