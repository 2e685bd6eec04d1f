package analyzer

import (
	"context"
	"fmt"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveNAReplace resolves df.na.replace as Spark's DataFrameNaFunctions.replaceValue: the
// type of the first old value picks the columns replaced (a number: numeric columns, a
// string: string columns, a boolean: boolean columns), among Cols (every top-level column
// when none are named); numeric old and new values compare and convert as doubles; each
// replaced column becomes CASE col WHEN old1 THEN new1 … ELSE col END cast back to its type.
// A later replacement of the same old value wins.
func (a *Analyzer) resolveNAReplace(ctx context.Context, n *plan.NAReplace) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if len(n.Old) == 0 {
		return in, nil
	}
	target := n.Old[0].Type
	selected := make([]bool, len(in.cols))
	if len(n.Cols) == 0 {
		for i := range selected {
			selected[i] = true
		}
	}
	for _, name := range n.Cols {
		i, err := a.findByName(in, name)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, columnNotAmong(name, in)
		}
		selected[i] = true
	}
	asDouble := func(l plan.Literal) (expr.Expr, error) {
		if l.Value == nil || !l.Type.IsNumeric() {
			return expr.NewLiteral(l.Value, l.Type), nil
		}
		c, err := expr.NewCast(expr.NewLiteral(l.Value, l.Type), sqltypes.DoubleType, plan.CastLegacy, a.Options)
		if err != nil {
			return nil, err
		}
		v, err := a.evalConst(c)
		return expr.NewLiteral(v, sqltypes.DoubleType), err
	}
	// Distinct old values in first-seen order, each with its last new value.
	pos := map[string]int{}
	var olds, news []plan.Literal
	for k, o := range n.Old {
		key := fmt.Sprintf("%s\x00%v", o.Type, o.Value)
		if j, seen := pos[key]; seen {
			news[j] = n.New[k]
			continue
		}
		pos[key] = len(olds)
		olds, news = append(olds, o), append(news, n.New[k])
	}
	exprs := in.allRefs()
	changed := false
	for i, c := range in.cols {
		if !selected[i] || !fillApplies(target, c.typ) {
			continue
		}
		var args []expr.Expr
		for k, o := range olds {
			ov, err := asDouble(o)
			if err != nil {
				return nil, err
			}
			cond, err := expr.Bind("=", []expr.Expr{in.ref(i), ov}, a.Options)
			if err != nil {
				return nil, err
			}
			nv, err := asDouble(news[k])
			if err != nil {
				return nil, err
			}
			var val expr.Expr = expr.NewLiteral(nil, c.typ)
			if news[k].Value != nil {
				if val, err = expr.NewCast(nv, c.typ, plan.CastLegacy, a.Options); err != nil {
					return nil, err
				}
			}
			args = append(args, cond, val)
		}
		x, err := expr.Bind("when", append(args, in.ref(i)), a.Options)
		if err != nil {
			return nil, err
		}
		exprs[i] = &expr.Alias{Child: x, Name: c.name}
		changed = true
	}
	if !changed {
		return in, nil
	}
	return in.project(exprs), nil
}
