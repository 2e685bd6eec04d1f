package parser

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// windowRef stands for `OVER name` until the query block's WINDOW clause is parsed; it never
// leaves the parser (resolveWindowRefs replaces it or fails).
type windowRef struct {
	plan.Literal
	name string
}

// windowSpec parses the specification after OVER for call: a window name, (name) or
// ([PARTITION|DISTRIBUTE|CLUSTER BY …] [ORDER|SORT BY …] [frame]).
func (p *parser) windowSpec(call plan.Call) plan.Expr {
	named := p.peek().isOp("(") && (p.peekAt(1).kind == tokWord || p.peekAt(1).kind == tokQuotedIdent) &&
		p.peekAt(2).isOp(")") && !p.peekAt(1).is("ORDER")
	if !p.peek().isOp("(") || named {
		paren := p.acceptOp("(")
		name := p.anyIdentifier()
		if paren {
			p.expectOp(")")
		}
		p.windowRefs++
		p.lastWindowRef = name
		return plan.Window{Func: call, PartitionBy: []plan.Expr{windowRef{name: name}}}
	}
	w := p.windowBody()
	w.Func = call
	return w
}

// windowBody parses ( [PARTITION BY …] [ORDER BY …] [frame] ).
func (p *parser) windowBody() plan.Window {
	p.expectOp("(")
	var w plan.Window
	if p.acceptSeq("PARTITION", "BY") || p.acceptSeq("DISTRIBUTE", "BY") || p.acceptSeq("CLUSTER", "BY") {
		w.PartitionBy = p.expressionList()
	}
	if p.acceptSeq("ORDER", "BY") || p.acceptSeq("SORT", "BY") {
		w.OrderBy = p.sortItems()
	}
	if t := p.peek(); t.is("ROWS") || t.is("RANGE") {
		p.pos++
		f := &plan.WindowFrame{IsRange: t.is("RANGE")}
		if p.accept("BETWEEN") {
			f.Lower = p.frameBound()
			p.expect("AND")
			f.Upper = p.frameBound()
		} else {
			f.Lower = p.frameBound()
			f.Upper = &plan.FrameBound{CurrentRow: true}
		}
		w.Frame = f
	}
	p.expectOp(")")
	return w
}

// frameBound parses UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW or expr PRECEDING|FOLLOWING.
// A PRECEDING offset is negated as negative(e), so offsets are signed row/range distances as
// Spark Connect sends them.
func (p *parser) frameBound() *plan.FrameBound {
	if p.accept("UNBOUNDED") {
		if !p.accept("PRECEDING") {
			p.expect("FOLLOWING")
		}
		return &plan.FrameBound{Unbounded: true}
	}
	if p.acceptSeq("CURRENT", "ROW") {
		return &plan.FrameBound{CurrentRow: true}
	}
	e := p.valueExpression()
	if p.accept("FOLLOWING") {
		return &plan.FrameBound{Offset: e}
	}
	p.expect("PRECEDING")
	// Kept as negative(e), not folded: Spark names the bound "e PRECEDING".
	return &plan.FrameBound{Offset: plan.Fn("negative", e)}
}

// negate returns -e, folding numeric literals.
func negate(e plan.Expr) plan.Expr {
	if l, ok := e.(plan.Literal); ok {
		if n, ok := negateLiteral(l); ok {
			return n
		}
	}
	return plan.Fn("negative", e)
}

// sortItems parses expr [ASC|DESC] [NULLS FIRST|LAST], ….
func (p *parser) sortItems() []plan.SortOrder {
	var out []plan.SortOrder
	for {
		out = append(out, p.sortItem())
		if !p.acceptOp(",") {
			return out
		}
	}
}

// sortItem parses expr [ASC|DESC] [NULLS FIRST|LAST].
func (p *parser) sortItem() plan.SortOrder {
	s := plan.SortOrder{Child: p.expression(), NullsFirst: true}
	if p.accept("DESC") {
		s.Descending, s.NullsFirst = true, false
	} else {
		p.accept("ASC")
	}
	if p.accept("NULLS") {
		if p.accept("FIRST") {
			s.NullsFirst = true
		} else {
			p.expect("LAST")
			s.NullsFirst = false
		}
	}
	return s
}

// windowClause parses WINDOW name AS (spec), … .
func (p *parser) windowClause() map[string]plan.Window {
	defs := map[string]plan.Window{}
	for {
		name := p.anyIdentifier()
		p.expect("AS")
		var w plan.Window
		if p.peek().isOp("(") {
			w = p.windowBody()
		} else {
			ref := strings.ToLower(p.anyIdentifier())
			d, ok := defs[ref]
			if !ok {
				p.fail(windowNotDefined(ref))
			}
			w = d
		}
		defs[strings.ToLower(name)] = w
		if !p.acceptOp(",") {
			return defs
		}
	}
}

// resolveWindowRefs replaces OVER name references in exprs by the WINDOW clause definitions.
func (p *parser) resolveWindowRefs(exprs []plan.Expr, defs map[string]plan.Window) []plan.Expr {
	if p.windowRefs == 0 {
		return exprs
	}
	out := make([]plan.Expr, len(exprs))
	for i, e := range exprs {
		out[i] = p.resolveWindowRefsIn(e, defs)
	}
	return out
}

func (p *parser) resolveWindowRefsIn(e plan.Expr, defs map[string]plan.Window) plan.Expr {
	if e == nil || p.windowRefs == 0 {
		return e
	}
	return rewriteExpr(e, func(e plan.Expr) (plan.Expr, bool) {
		w, ok := e.(plan.Window)
		if !ok || len(w.PartitionBy) != 1 {
			return nil, false
		}
		ref, ok := w.PartitionBy[0].(windowRef)
		if !ok {
			return nil, false
		}
		d, ok := defs[strings.ToLower(ref.name)]
		if !ok {
			p.fail(windowNotDefined(ref.name))
		}
		p.windowRefs--
		d.Func = w.Func
		return d, true
	})
}

func windowNotDefined(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "", "",
		"Window specification %s is not defined in the WINDOW clause.", name)
}

// checkWindowRefs fails if an OVER name reference was left outside any WINDOW clause's reach
// (e.g. in ORDER BY of a set operation).
func (p *parser) checkWindowRefs() {
	if p.windowRefs > 0 {
		p.fail(windowNotDefined(p.lastWindowRef))
	}
}

// qualifyWindows moves the window functions of a QUALIFY condition into the select list: each
// becomes a hidden item __qualify_<i> the returned condition reads by name (dropped after the
// filter), so the select's window extraction computes it (Spark's QUALIFY filters the
// select's rows on window function results).
func qualifyWindows(cond plan.Expr) (plan.Expr, []plan.Expr, []string) {
	var items []plan.Expr
	var names []string
	cond = rewriteExpr(cond, func(e plan.Expr) (plan.Expr, bool) {
		if _, ok := e.(plan.Window); !ok {
			return nil, false
		}
		name := "__qualify_" + strconv.Itoa(len(items))
		items = append(items, plan.Alias{Child: e, Names: []string{name}})
		names = append(names, name)
		return plan.Col(name), true
	})
	return cond, items, names
}
