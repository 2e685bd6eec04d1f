package parser

import (
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// startsQuery reports whether a query starts at the current token (possibly after opening
// parentheses).
func (p *parser) startsQuery() bool {
	for i := 0; i <= maxDepth; i++ {
		t := p.peekAt(i)
		if t.isOp("(") {
			continue
		}
		return t.is("SELECT") || t.is("WITH") || t.is("VALUES") || t.is("TABLE") || t.is("FROM")
	}
	return false
}

// speculate runs f; if it fails with a parse error, the parser state is restored and ok is
// false.
func (p *parser) speculate(f func()) (ok bool) {
	pos, ctes, next, depth, refs := p.pos, len(p.ctes), p.nextPos, p.depth, p.windowRefs
	defer func() {
		if r := recover(); r != nil {
			if pf, isParse := r.(parseFailure); !isParse || pf.fatal {
				panic(r)
			}
			p.pos, p.ctes, p.nextPos, p.depth, p.windowRefs = pos, p.ctes[:ctes], next, depth, refs
			ok = false
		}
	}()
	f()
	return true
}

// query parses [WITH …] queryNoWith.
func (p *parser) query() plan.Relation {
	// The expressions of a subquery are checked (see expr) as those of a query of their own.
	saved := p.exprNest
	p.exprNest = 0
	defer func() { p.exprNest = saved }()
	p.enter()
	defer p.leave()
	if p.accept("WITH") {
		return p.withQuery()
	}
	return p.queryNoWith()
}

// queryNoWith parses a set expression followed by ORDER BY, LIMIT and OFFSET, which apply to
// the whole set expression: Sort, then Offset, then Limit.
func (p *parser) queryNoWith() plan.Relation {
	rel := p.setExpr(false)
	if p.acceptSeq("ORDER", "BY") {
		rel = &plan.Sort{Input: rel, Order: p.sortItems(), IsGlobal: true}
	}
	for _, kw := range []string{"CLUSTER", "DISTRIBUTE", "SORT"} {
		if p.peek().is(kw) && p.peekAt(1).is("BY") {
			p.fail(unsupported("%s BY is not supported", kw))
		}
	}
	var limit, offset *int64
	if p.accept("LIMIT") {
		if !p.accept("ALL") {
			n := p.limitValue("limit")
			limit = &n
		}
	}
	if p.accept("OFFSET") {
		n := p.limitValue("offset")
		offset = &n
	}
	if offset != nil {
		rel = &plan.Offset{Input: rel, N: *offset}
	}
	if limit != nil {
		rel = &plan.Limit{Input: rel, N: *limit}
	}
	return rel
}

// limitValue parses the integer literal of LIMIT or OFFSET.
func (p *parser) limitValue(what string) int64 {
	at := p.peek()
	e := p.expression()
	lit, ok := e.(plan.Literal)
	var n int64
	switch v := lit.Value.(type) {
	case int32:
		n = int64(v)
	case int64:
		n = v
	case int16:
		n = int64(v)
	case int8:
		n = int64(v)
	default:
		ok = false
	}
	if !ok {
		p.fail(sparkerr.Newf(sparkerr.AnalysisException, "INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE", "42K0E",
			"The %s like expression %s is invalid. The %s expression must evaluate to a constant value; Weir accepts integer literals only.",
			what, at.display(), what))
	}
	if n < 0 {
		p.fail(sparkerr.Newf(sparkerr.AnalysisException, "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE", "42K0E",
			"The %s like expression \"%d\" is invalid. The %s expression must be equal to or greater than 0, but got %d.",
			what, n, what, n))
	}
	return n
}

// setExpr parses query terms joined by UNION/EXCEPT/MINUS (left-associative), whose operands
// are INTERSECT chains: INTERSECT binds tighter, as in Spark.
func (p *parser) setExpr(intersectOnly bool) plan.Relation {
	left := p.primaryQuery()
	for {
		t := p.peek()
		var typ plan.SetOpType
		switch {
		case t.is("INTERSECT"):
			typ = plan.Intersect
		case intersectOnly:
			return left
		case t.is("UNION"):
			typ = plan.Union
		case t.is("EXCEPT") || t.is("MINUS"):
			typ = plan.Except
		default:
			return left
		}
		p.pos++
		all := p.accept("ALL")
		if !all {
			p.accept("DISTINCT")
		}
		var right plan.Relation
		if typ == plan.Intersect {
			right = p.primaryQuery()
		} else {
			right = p.setExpr(true)
		}
		left = &plan.SetOp{Left: left, Right: right, Type: typ, IsAll: all}
	}
}

// primaryQuery parses SELECT …, FROM … SELECT …, VALUES …, TABLE name or (query).
func (p *parser) primaryQuery() plan.Relation {
	t := p.peek()
	switch {
	case t.is("SELECT"):
		p.pos++
		return p.selectBlock(nil)
	case t.is("FROM"):
		p.pos++
		from := p.fromRelations()
		if !p.accept("SELECT") {
			p.syntaxError()
		}
		return p.selectBlock(from)
	case t.is("VALUES"):
		p.pos++
		return p.valuesWithAlias()
	case t.is("TABLE"):
		p.pos++
		return p.tableRef(p.multipartName())
	case t.isOp("("):
		p.pos++
		q := p.query()
		p.expectOp(")")
		return q
	}
	p.syntaxError()
	return nil
}

// oneRow is the input of a FROM-less SELECT that needs one (a filter or an aggregate): a
// single row with no columns.
func oneRow() plan.Relation { return &plan.Values{Rows: [][]plan.Expr{{}}} }

// selectBlock parses the rest of a SELECT (after the keyword) and builds, in Spark's order:
// From → Filter(WHERE) → Aggregate → Filter(HAVING) | Project → Filter(QUALIFY) →
// Deduplicate(DISTINCT).
func (p *parser) selectBlock(from plan.Relation) plan.Relation {
	hints := p.hints()
	distinct := false
	if p.accept("DISTINCT") {
		distinct = true
	} else {
		p.accept("ALL")
	}
	exprs := []plan.Expr{p.namedExpression()}
	for p.acceptOp(",") {
		exprs = append(exprs, p.namedExpression())
	}
	if from == nil && p.accept("FROM") {
		from = p.fromRelations()
	}
	var where, having plan.Expr
	if p.accept("WHERE") {
		where = p.expression()
	}
	agg := p.groupBy()
	if p.accept("HAVING") {
		having = p.expression()
	}
	defs := map[string]plan.Window{}
	if p.accept("WINDOW") {
		defs = p.windowClause()
	}
	var qualify plan.Expr
	if p.accept("QUALIFY") {
		qualify = p.expression()
	}
	exprs = p.resolveWindowRefs(exprs, defs)
	qualify = p.resolveWindowRefsIn(qualify, defs)
	var hidden []string
	if qualify != nil {
		var extra []plan.Expr
		qualify, extra, hidden = qualifyWindows(qualify)
		exprs = append(exprs, extra...)
	}
	having = p.resolveWindowRefsIn(having, defs)
	where = p.resolveWindowRefsIn(where, defs)
	if agg != nil {
		agg.Grouping = p.resolveWindowRefs(agg.Grouping, defs)
	}

	rel := from
	if where != nil {
		if rel == nil {
			rel = oneRow()
		}
		rel = &plan.Filter{Input: rel, Condition: where}
	}
	isAgg := agg != nil || having != nil
	for _, e := range exprs {
		isAgg = isAgg || containsCall(e, aggregateNames)
	}
	if isAgg {
		if agg == nil {
			agg = &plan.Aggregate{Type: plan.GroupBy}
		}
		if rel == nil {
			rel = oneRow()
		}
		agg.Input, agg.Aggs = rel, exprs
		rel = agg
		if having != nil {
			rel = &plan.Filter{Input: rel, Condition: having}
		}
	} else {
		rel = &plan.Project{Input: rel, Exprs: exprs}
	}
	if qualify != nil {
		rel = &plan.Filter{Input: rel, Condition: qualify}
		if len(hidden) > 0 {
			rel = &plan.Drop{Input: rel, Names: hidden}
		}
	}
	if distinct {
		rel = &plan.Deduplicate{Input: rel, AllColumns: true}
	}
	// The first hint ends outermost (Spark's AstBuilder.withHints).
	for i := len(hints) - 1; i >= 0; i-- {
		hints[i].Input = rel
		rel = hints[i]
	}
	return rel
}

// hints parses the /*+ … */ hint after SELECT, if there is one: statements `name` or
// `name(param, …)` (parameters are primary expressions), separated by commas or spaces.
func (p *parser) hints() []*plan.Hint {
	if p.peek().kind != tokHintStart {
		return nil
	}
	p.pos++
	var hs []*plan.Hint
	for p.peek().kind != tokHintEnd {
		if len(hs) > 0 {
			p.acceptOp(",")
		}
		h := &plan.Hint{Name: p.identifier()}
		if p.acceptOp("(") {
			h.Params = append(h.Params, p.primary())
			for p.acceptOp(",") {
				h.Params = append(h.Params, p.primary())
			}
			p.expectOp(")")
		}
		hs = append(hs, h)
	}
	p.pos++
	return hs
}

// groupBy parses an optional GROUP BY clause into an Aggregate without input and outputs.
func (p *parser) groupBy() *plan.Aggregate {
	if !p.acceptSeq("GROUP", "BY") {
		return nil
	}
	t := p.peek()
	if p.peekAt(1).isOp("(") && (t.is("ROLLUP") || t.is("CUBE")) {
		p.pos++
		p.expectOp("(")
		exprs := p.expressionList()
		p.expectOp(")")
		p.noMixedGrouping()
		if t.is("ROLLUP") {
			return &plan.Aggregate{Type: plan.GroupRollup, Grouping: exprs}
		}
		return &plan.Aggregate{Type: plan.GroupCube, Grouping: exprs}
	}
	if t.is("GROUPING") && p.peekAt(1).is("SETS") {
		p.pos += 2
		a := p.groupingSets(nil)
		p.noMixedGrouping()
		return a
	}
	exprs := p.expressionList()
	switch {
	case p.acceptSeq("WITH", "ROLLUP"):
		return &plan.Aggregate{Type: plan.GroupRollup, Grouping: exprs}
	case p.acceptSeq("WITH", "CUBE"):
		return &plan.Aggregate{Type: plan.GroupCube, Grouping: exprs}
	case p.acceptSeq("GROUPING", "SETS"):
		return p.groupingSets(exprs)
	}
	for _, e := range exprs {
		if c, ok := e.(plan.Call); ok && (isName(c.Name, "rollup") || isName(c.Name, "cube")) {
			p.fail(unsupported("mixing %s with other grouping expressions is not supported", c.Name))
		}
	}
	return &plan.Aggregate{Type: plan.GroupBy, Grouping: exprs}
}

func (p *parser) noMixedGrouping() {
	if p.peek().isOp(",") {
		p.fail(unsupported("mixing ROLLUP, CUBE or GROUPING SETS with other grouping expressions is not supported"))
	}
}

// groupingSets parses ( set, … ) where a set is (e, …), () or e. Grouping is given (legacy
// GROUP BY a, b GROUPING SETS …) or the distinct expressions of all sets in order.
func (p *parser) groupingSets(grouping []plan.Expr) *plan.Aggregate {
	p.expectOp("(")
	var sets [][]plan.Expr
	for {
		var set []plan.Expr
		if p.peek().isOp("(") && !p.startsQueryAfterParen() {
			p.pos++
			if !p.acceptOp(")") {
				set = p.expressionList()
				p.expectOp(")")
			}
		} else {
			set = []plan.Expr{p.expression()}
		}
		sets = append(sets, set)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if grouping == nil {
		seen := map[string]bool{}
		for _, s := range sets {
			for _, e := range s {
				k := FormatExpr(e)
				if !seen[k] {
					seen[k] = true
					grouping = append(grouping, e)
				}
			}
		}
	}
	return &plan.Aggregate{Type: plan.GroupingSets, Grouping: grouping, Sets: sets}
}

func (p *parser) startsQueryAfterParen() bool {
	t := p.peekAt(1)
	return t.is("SELECT") || t.is("WITH")
}

// values parses the rows of VALUES: each row is an expression, and a row constructor (a, b)
// supplies several columns.
func (p *parser) values(names []string) *plan.Values {
	v := &plan.Values{Names: names}
	for {
		start := p.pos
		e := p.expression()
		row := []plan.Expr{e}
		if c, ok := e.(plan.Call); ok && c.Name == "struct" && p.rowCtorAt[start] {
			row = c.Args
		}
		v.Rows = append(v.Rows, row)
		if !p.acceptOp(",") {
			return v
		}
	}
}
