package analyzer

import (
	"context"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var setOpNames = map[plan.SetOpType]string{plan.Union: "UNION", plan.Intersect: "INTERSECT", plan.Except: "EXCEPT"}

// resolveSetOp resolves UNION / INTERSECT / EXCEPT: columns are matched by position (or by
// name), widened to their common types with casts, and named after the left input.
func (a *Analyzer) resolveSetOp(ctx context.Context, n *plan.SetOp) (*resolved, error) {
	left, err := a.resolve(ctx, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := a.resolve(ctx, n.Right)
	if err != nil {
		return nil, err
	}
	op := setOpNames[n.Type]
	if n.ByName {
		if left, right, err = a.alignByName(left, right, n.AllowMissing); err != nil {
			return nil, err
		}
	}
	if len(left.cols) != len(right.cols) {
		return nil, sparkerr.Analysis("NUM_COLUMNS_MISMATCH", "42826",
			"%s can only be performed on inputs with the same number of columns, but the first input has %d columns and the second input has %d columns.",
			op, len(left.cols), len(right.cols)).WithParams("operator", op,
			"firstNumColumns", formatInt(int64(len(left.cols))), "invalidOrdinalNum", "second",
			"invalidNumColumns", formatInt(int64(len(right.cols))))
	}
	types := make([]sqltypes.DataType, len(left.cols))
	for i := range left.cols {
		lt, rt := left.cols[i].typ, right.cols[i].typ
		t, ok := expr.CommonType(lt, rt)
		if !ok {
			return nil, sparkerr.Analysis("INCOMPATIBLE_COLUMN_TYPE", "42825",
				"%s can only be performed on inputs with compatible column types. The %s column of the second table is %s type which is not compatible with %s at the same column of the first table.",
				op, ordinalWord(i+1), `"`+rt.SQL()+`"`, `"`+lt.SQL()+`"`).WithParams("operator", op,
				"columnOrdinalNumber", ordinalWord(i+1), "tableOrdinalNumber", "second",
				"dataType1", `"`+rt.SQL()+`"`, "dataType2", `"`+lt.SQL()+`"`, "hint", "")
		}
		types[i] = t
	}
	if left, err = a.castTo(left, types); err != nil {
		return nil, err
	}
	if right, err = a.castTo(right, types); err != nil {
		return nil, err
	}
	if n.Type != plan.Union {
		return a.keepScope(left, &logical.SetOp{Left: left.node, Right: right.node, Type: n.Type, All: n.IsAll}), nil
	}
	out := append(sqltypes.Schema{}, left.node.Schema()...)
	rs := right.node.Schema()
	for i := range out {
		out[i].Nullable = out[i].Nullable || rs[i].Nullable
	}
	cols := make([]column, len(left.cols))
	for i, c := range left.cols {
		c.nullable = out[i].Nullable
		cols[i] = c
	}
	u := &resolved{node: &logical.Union{Inputs: []logical.Node{left.node, right.node}, Out: out}, cols: cols}
	if !n.IsAll {
		return a.keepScope(u, &logical.Distinct{Input: u.node}), nil
	}
	return u, nil
}

// castTo casts r's columns to types where they differ, keeping their names.
func (a *Analyzer) castTo(r *resolved, types []sqltypes.DataType) (*resolved, error) {
	changed := false
	exprs := make([]expr.Expr, len(r.cols))
	for i, c := range r.cols {
		exprs[i] = r.ref(i)
		if c.typ.Equal(types[i]) {
			continue
		}
		x, err := expr.NewCast(r.ref(i), types[i], plan.CastDefault, a.Options)
		if err != nil {
			return nil, err
		}
		exprs[i] = &expr.Alias{Child: x, Name: c.name}
		changed = true
	}
	if !changed {
		return r, nil
	}
	return r.project(exprs), nil
}

// alignByName reorders right's columns to left's names (unionByName); with allowMissing,
// columns missing on either side are added as NULLs (right's extra columns go last).
func (a *Analyzer) alignByName(left, right *resolved, allowMissing bool) (*resolved, *resolved, error) {
	rexprs := make([]expr.Expr, 0, len(left.cols))
	used := make([]bool, len(right.cols))
	for _, lc := range left.cols {
		j, err := a.findByName(right, lc.name)
		if err != nil {
			return nil, nil, err
		}
		if j < 0 {
			if !allowMissing {
				return nil, nil, columnNotAmong(lc.name, right)
			}
			rexprs = append(rexprs, &expr.Alias{Child: expr.NewLiteral(nil, lc.typ), Name: lc.name})
			continue
		}
		used[j] = true
		rexprs = append(rexprs, right.ref(j))
	}
	lexprs := left.allRefs()
	for j, rc := range right.cols {
		if used[j] {
			continue
		}
		if !allowMissing {
			return nil, nil, sparkerr.Analysis("NUM_COLUMNS_MISMATCH", "42826",
				"UNION can only be performed on inputs with the same number of columns, but the first input has %d columns and the second input has %d columns.",
				len(left.cols), len(right.cols))
		}
		lexprs = append(lexprs, &expr.Alias{Child: expr.NewLiteral(nil, rc.typ), Name: rc.name})
		rexprs = append(rexprs, right.ref(j))
	}
	return left.project(lexprs), right.project(rexprs), nil
}

// ordinalWord is Spark's ordinal rendering in messages ("first", "second", …, "11th").
func ordinalWord(n int) string {
	words := []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if n < len(words) {
		return words[n]
	}
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return formatInt(int64(n)) + suffix
}
