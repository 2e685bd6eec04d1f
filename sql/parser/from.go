package parser

import (
	"math"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// fromRelations parses relation, relation, … (comma joins are inner joins without condition;
// ", LATERAL f(args)" is a lateral table function call over the relations before it) followed
// by any LATERAL VIEWs.
func (p *parser) fromRelations() plan.Relation {
	rel := p.relation()
	for p.acceptOp(",") {
		if p.peek().is("LATERAL") && !p.peekAt(1).is("VIEW") {
			rel = p.joins(p.lateralCall(rel, plan.InnerJoin))
			continue
		}
		rel = &plan.Join{Left: rel, Right: p.relation(), Type: plan.InnerJoin}
	}
	for p.peek().is("LATERAL") && p.peekAt(1).is("VIEW") {
		rel = p.lateralView(rel)
	}
	return rel
}

// lateralView parses LATERAL VIEW [OUTER] generator(args) table_alias [[AS] col, …] over rel.
func (p *parser) lateralView(rel plan.Relation) plan.Relation {
	p.expectSeq("LATERAL", "VIEW")
	g := &plan.Generate{Input: rel, Outer: p.accept("OUTER")}
	name := p.multipartName()
	p.expectOp("(")
	var args []plan.Expr
	if !p.peek().isOp(")") {
		args = p.expressionList()
	}
	p.expectOp(")")
	g.Generator = plan.Call{Name: strings.Join(name, "."), Args: args}
	g.Alias = p.anyIdentifier()
	if p.accept("AS") || isIdent(p.peek()) {
		g.ColumnNames = []string{p.anyIdentifier()}
		for p.acceptOp(",") {
			g.ColumnNames = append(g.ColumnNames, p.anyIdentifier())
		}
	}
	return g
}

// lateralCall parses LATERAL name(args) [[AS] alias [(col, …)]] [ON condition] joined to rel
// as typ: Spark's lateral join of a table function call, whose arguments read rel's columns. It
// is a plan.Generate over rel (each row of rel followed by the rows the function returns for
// it), the condition a Filter over it. Spark 4.2 answers LEFT JOIN LATERAL f(…) without ON as
// the inner join (a row for which f returns nothing is dropped, explode and Python UDTFs
// alike), so that is what it is here; with ON it null-pads the rows the condition rejects,
// which Weir does not do (refused). LATERAL (subquery) is refused.
func (p *parser) lateralCall(rel plan.Relation, typ plan.JoinType) plan.Relation {
	p.expect("LATERAL")
	if p.peek().isOp("(") {
		p.fail(unsupported("LATERAL subqueries are not supported"))
	}
	switch typ {
	case plan.InnerJoin, plan.CrossJoin, plan.LeftOuterJoin:
	default:
		p.fail(unsupported("%s JOIN LATERAL is not supported (only INNER, CROSS and LEFT OUTER)", joinNames[typ]))
	}
	name := p.multipartName()
	p.expectOp("(")
	var args []plan.Expr
	var names []string
	if !p.peek().isOp(")") {
		args, names = p.tableFunctionArguments()
	}
	p.expectOp(")")
	g := &plan.Generate{Input: rel, Generator: plan.Call{Name: strings.Join(name, "."), Args: args, ArgNames: names},
		TableFunction: true}
	if alias, cols, ok := p.tableAlias(); ok {
		g.Alias, g.ColumnNames = alias, cols
	}
	if p.accept("ON") {
		if typ == plan.LeftOuterJoin {
			p.fail(unsupported("LEFT JOIN LATERAL with an ON condition is not supported; use an inner JOIN LATERAL … ON or filter the lateral join's rows"))
		}
		return &plan.Filter{Input: g, Condition: p.expression()}
	}
	return g
}

// relation parses a primary relation followed by joins.
func (p *parser) relation() plan.Relation {
	return p.joins(p.relationPrimary())
}

// joins parses the joins (and JOIN LATERAL calls) that follow rel.
func (p *parser) joins(rel plan.Relation) plan.Relation {
	for {
		if p.peek().is("NATURAL") {
			p.fail(unsupported("NATURAL JOIN is not supported; use JOIN … USING (columns)"))
		}
		if p.peek().is("LATERAL") {
			if p.peekAt(1).is("VIEW") {
				return rel
			}
			p.syntaxError()
		}
		typ, ok := p.joinType()
		if !ok {
			return rel
		}
		if p.peek().is("LATERAL") {
			rel = p.lateralCall(rel, typ)
			continue
		}
		j := &plan.Join{Left: rel, Right: p.relationPrimary(), Type: typ}
		switch {
		case p.accept("ON"):
			j.Condition = p.expression()
		case p.accept("USING"):
			j.UsingColumns = p.identifierList()
		}
		rel = j
	}
}

// joinType parses [INNER | CROSS | LEFT [OUTER|SEMI|ANTI] | RIGHT [OUTER] | FULL [OUTER] |
// [LEFT] SEMI | [LEFT] ANTI] JOIN.
func (p *parser) joinType() (plan.JoinType, bool) {
	save := p.pos
	typ := plan.InnerJoin
	switch {
	case p.accept("INNER"):
	case p.accept("CROSS"):
		typ = plan.CrossJoin
	case p.accept("LEFT"):
		switch {
		case p.accept("SEMI"):
			typ = plan.LeftSemiJoin
		case p.accept("ANTI"):
			typ = plan.LeftAntiJoin
		default:
			p.accept("OUTER")
			typ = plan.LeftOuterJoin
		}
	case p.accept("RIGHT"):
		p.accept("OUTER")
		typ = plan.RightOuterJoin
	case p.accept("FULL"):
		p.accept("OUTER")
		typ = plan.FullOuterJoin
	case p.accept("SEMI"):
		typ = plan.LeftSemiJoin
	case p.accept("ANTI"):
		typ = plan.LeftAntiJoin
	}
	if !p.accept("JOIN") {
		if p.pos != save {
			p.syntaxError()
		}
		return 0, false
	}
	return typ, true
}

// relationPrimary parses a table name, table-valued function, VALUES, (query) or (relation),
// with an optional alias.
func (p *parser) relationPrimary() plan.Relation {
	p.enter()
	defer p.leave()
	t := p.peek()
	var rel plan.Relation
	switch {
	case t.isOp("("):
		p.pos++
		if q, ok := p.parenQuery(); ok {
			rel = q
		} else {
			rel = p.fromRelations()
			p.expectOp(")")
		}
	case t.is("VALUES"):
		p.pos++
		return p.valuesWithAlias()
	case t.is("LATERAL"):
		p.fail(unsupported("LATERAL subqueries are not supported"))
	default:
		name := p.multipartName()
		if p.peek().isOp("(") {
			rel = p.tableFunction(name)
		} else {
			rel = p.tableRef(name)
			if tt := p.temporalClause(); tt != nil {
				nt, ok := rel.(*plan.NamedTable)
				if !ok { // a CTE: Spark resolves it before time travel, which it refuses
					q := sparkerr.Quote(name...)
					p.fail(sparkerr.Analysis("UNSUPPORTED_FEATURE.TIME_TRAVEL", "0A000",
						"The feature is not supported: Time travel on the relation: %s.", q).WithParams("relationId", q))
				}
				nt.TimeTravel = tt
			}
		}
	}
	if p.peek().is("TABLESAMPLE") {
		p.fail(unsupported("TABLESAMPLE is not supported"))
	}
	if p.peek().is("PIVOT") || p.peek().is("UNPIVOT") {
		p.fail(unsupported("%s is not supported", strings.ToUpper(p.peek().text)))
	}
	if name, cols, ok := p.tableAlias(); ok {
		rel = &plan.SubqueryAlias{Input: rel, Alias: name, ColumnNames: cols}
	}
	return rel
}

// tableAlias parses [AS] name [(col, …)].
func (p *parser) tableAlias() (string, []string, bool) {
	var name string
	switch {
	case p.accept("AS"):
		name = p.anyIdentifier()
	case isIdent(p.peek()):
		name = p.advance().text
	default:
		return "", nil, false
	}
	var cols []string
	if p.peek().isOp("(") {
		cols = p.identifierList()
	}
	return name, cols, true
}

// tableFunction parses name(args) in FROM: range(end), range(start, end), range(start, end,
// step), range(start, end, step, numPartitions) with integer literal arguments, or a generator
// (explode, inline, stack, json_tuple…), which the analyzer checks.
func (p *parser) tableFunction(name []string) plan.Relation {
	fn := strings.ToLower(strings.Join(name, "."))
	if fn != "range" {
		p.expectOp("(")
		var args []plan.Expr
		var names []string
		if !p.peek().isOp(")") {
			args, names = p.tableFunctionArguments()
		}
		p.expectOp(")")
		return &plan.Generate{Input: oneRow(), Generator: plan.Call{Name: strings.Join(name, "."), Args: args, ArgNames: names}, TableFunction: true}
	}
	p.expectOp("(")
	var args []int64
	if !p.peek().isOp(")") {
		for _, e := range p.expressionList() {
			lit, _ := e.(plan.Literal)
			switch v := lit.Value.(type) {
			case int32:
				args = append(args, int64(v))
			case int64:
				args = append(args, v)
			case int16:
				args = append(args, int64(v))
			case int8:
				args = append(args, int64(v))
			default:
				p.fail(unsupported("range() arguments must be integer literals"))
			}
		}
	}
	p.expectOp(")")
	r := &plan.Range{Step: 1}
	switch len(args) {
	case 1:
		r.End = args[0]
	case 2, 3, 4:
		r.Start, r.End = args[0], args[1]
		if len(args) > 2 {
			r.Step = args[2]
		}
		if len(args) > 3 {
			r.NumPartitions, r.HasNumPartitions = int32(max(math.MinInt32, min(math.MaxInt32, args[3]))), true
		}
	default:
		p.fail(wrongNumArgs("range", len(args)))
	}
	return r
}

func wrongNumArgs(fn string, n int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.AnalysisException, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
		"The %s requires [1, 2, 3, 4] parameters but the actual number is %d. Please, refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
		sparkerr.Quote(fn), n).WithParams("functionName", sparkerr.Quote(fn), "expectedNum", "[1, 2, 3, 4]", "actualNum", itoa(n))
}

// valuesWithAlias parses the rows of VALUES and an optional alias t(a, b), which becomes
// SubqueryAlias{t, Values{Names: [a b]}}.
func (p *parser) valuesWithAlias() plan.Relation {
	v := p.values(nil)
	name, cols, ok := p.tableAlias()
	if !ok {
		return v
	}
	v.Names = cols
	return &plan.SubqueryAlias{Input: v, Alias: name}
}

// tableFunctionArguments parses a table function call's arguments: expressions, k => v named
// ones, and TABLE arguments (tableArgument).
func (p *parser) tableFunctionArguments() (args []plan.Expr, names []string) {
	named := false
	for {
		name := ""
		if t := p.peek(); (t.kind == tokWord || t.kind == tokQuotedIdent) && p.peekAt(1).isOp("=>") {
			name = p.anyIdentifier()
			p.expectOp("=>")
			named = true
		}
		if p.peek().is("TABLE") && (p.peekAt(1).isOp("(") || isIdent(p.peekAt(1))) {
			args = append(args, p.tableArgument())
		} else {
			args = append(args, p.expression())
		}
		names = append(names, name)
		if !p.acceptOp(",") {
			break
		}
	}
	if !named {
		names = nil
	}
	return args, names
}

// tableArgument parses TABLE (name) | TABLE (query) (TABLE name without parentheses is Spark's
// INVALID_TABLE_FUNCTION_IDENTIFIER_ARGUMENT_MISSING_PARENTHESES), then [WITH SINGLE PARTITION |
// {PARTITION | DISTRIBUTE} BY exprs] [{ORDER | SORT} BY sort items] (exprs and sort items
// optionally parenthesised), Spark's functionTableSubqueryArgument.
func (p *parser) tableArgument() plan.Expr {
	p.expect("TABLE")
	t := &plan.TableArgument{}
	if p.acceptOp("(") {
		if q, ok := p.parenQuery(); ok {
			t.Input = q
		} else {
			t.Input = p.tableRef(p.multipartName())
			p.expectOp(")")
		}
	} else {
		name := p.multipartName()
		q := sparkerr.Quote(name...)
		msg := "Syntax error: call to table-valued function is invalid because parentheses are missing around the provided TABLE argument " + q + "; please surround this with parentheses and try again."
		p.fail(sparkerr.New(sparkerr.ParseException, "INVALID_SQL_SYNTAX.INVALID_TABLE_FUNCTION_IDENTIFIER_ARGUMENT_MISSING_PARENTHESES", "42000",
			"Invalid SQL syntax: "+msg).WithParams("inputString", msg))
	}
	switch {
	case p.peek().is("WITH") && p.peekAt(1).is("SINGLE"):
		p.expectSeq("WITH", "SINGLE", "PARTITION")
		t.SinglePartition = true
	case (p.peek().is("PARTITION") || p.peek().is("DISTRIBUTE")) && p.peekAt(1).is("BY"):
		p.pos += 2
		if !p.parenList(func() { t.PartitionBy = p.expressionList() }) {
			for {
				t.PartitionBy = append(t.PartitionBy, p.expression())
				if !p.tableArgListGoesOn() {
					break
				}
			}
		}
	}
	if (p.peek().is("ORDER") || p.peek().is("SORT")) && p.peekAt(1).is("BY") {
		if !t.SinglePartition && t.PartitionBy == nil {
			p.syntaxError()
		}
		p.pos += 2
		if !p.parenList(func() { t.OrderBy = p.sortItems() }) {
			for {
				t.OrderBy = append(t.OrderBy, p.sortItem())
				if !p.tableArgListGoesOn() {
					break
				}
			}
		}
	}
	return t
}

// tableArgListGoesOn consumes the comma of an unparenthesised PARTITION BY / ORDER BY list of a
// TABLE argument and is true when another item follows; a comma before a named argument (k =>)
// or another TABLE argument ends the list (it is left for the call's argument list).
func (p *parser) tableArgListGoesOn() bool {
	if !p.peek().isOp(",") {
		return false
	}
	next := p.peekAt(1)
	if (next.kind == tokWord || next.kind == tokQuotedIdent) && p.peekAt(2).isOp("=>") ||
		next.is("TABLE") && (p.peekAt(2).isOp("(") || isIdent(p.peekAt(2))) {
		return false
	}
	p.pos++
	return true
}

// parenList parses ( list ) with list when that is followed by the end of the TABLE argument
// (ORDER, SORT, ')' or ','); else it consumes nothing and is false (the list is not
// parenthesised: "(a + 1) * 2").
func (p *parser) parenList(list func()) bool {
	if !p.peek().isOp("(") {
		return false
	}
	return p.speculate(func() {
		p.expectOp("(")
		list()
		p.expectOp(")")
		if n := p.peek(); !n.is("ORDER") && !n.is("SORT") && !n.isOp(")") && !n.isOp(",") {
			p.syntaxError()
		}
	})
}

// temporalClause parses a table name's [FOR] (SYSTEM_VERSION | VERSION) AS OF version or
// [FOR] (SYSTEM_TIME | TIMESTAMP) AS OF expr, as Spark's temporalClause (nil: none). The
// version is an integer or a string; the timestamp expression may not name columns.
func (p *parser) temporalClause() *plan.TimeTravel {
	at := 0
	if p.peek().is("FOR") {
		at = 1
	}
	kw := p.peekAt(at)
	isVersion := kw.is("VERSION") || kw.is("SYSTEM_VERSION")
	if !(isVersion || kw.is("TIMESTAMP") || kw.is("SYSTEM_TIME")) || !p.peekAt(at+1).is("AS") || !p.peekAt(at+2).is("OF") {
		return nil
	}
	p.pos += at + 3
	if isVersion {
		switch t := p.peek(); t.kind {
		case tokInteger:
			p.pos++
			return &plan.TimeTravel{Version: strings.TrimRight(strings.ToUpper(t.text), "L")}
		case tokString:
			return &plan.TimeTravel{Version: p.stringLit()}
		}
		p.syntaxError()
	}
	ts := p.valueExpression()
	refersToColumns := false
	rewriteExpr(ts, func(e plan.Expr) (plan.Expr, bool) {
		if _, ok := e.(plan.ColumnRef); ok {
			refersToColumns = true
		}
		return nil, false
	})
	if refersToColumns {
		p.fail(sparkerr.Newf(sparkerr.ParseException, "_LEGACY_ERROR_TEMP_0056", "",
			"Invalid time travel spec: timestamp expression cannot refer to any columns.").
			WithParams("reason", "timestamp expression cannot refer to any columns"))
	}
	return &plan.TimeTravel{Timestamp: ts}
}
