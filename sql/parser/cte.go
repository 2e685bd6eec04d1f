package parser

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// cteScope holds the common table expressions of one WITH clause, by lower-case name.
type cteScope map[string]cteDef

type cteDef struct {
	name string
	rel  plan.Relation
	cols []string
}

// withQuery parses the rest of WITH name [(cols)] [AS] (query), … query. CTEs are inlined while
// parsing: a one-part table name that matches a visible CTE becomes SubqueryAlias{Alias: name,
// Input: the CTE's relation} (the same relation value is shared by every reference). A CTE is
// visible after its definition, in later CTEs of the same WITH and in the body; an inner WITH
// shadows outer ones, as in Spark's default (CORRECTED) CTE precedence.
func (p *parser) withQuery() plan.Relation {
	if p.peek().is("RECURSIVE") {
		p.fail(unsupported("WITH RECURSIVE is not supported"))
	}
	scope := cteScope{}
	p.ctes = append(p.ctes, scope)
	defer func() { p.ctes = p.ctes[:len(p.ctes)-1] }()
	for {
		name := p.identifier()
		var cols []string
		if p.peek().isOp("(") {
			cols = p.identifierList()
		}
		p.accept("AS")
		p.expectOp("(")
		rel := p.query()
		p.expectOp(")")
		key := strings.ToLower(name)
		if _, dup := scope[key]; dup {
			p.fail(sparkerr.Newf(sparkerr.ParseException, "DUPLICATED_CTE_NAMES", "42602",
				"CTE definition can't have duplicate names: %s.", sparkerr.Quote(name)).
				WithParams("duplicateNames", sparkerr.Quote(name)))
		}
		scope[key] = cteDef{name: name, rel: rel, cols: cols}
		if !p.acceptOp(",") {
			break
		}
	}
	return p.queryNoWith()
}

// lookupCTE returns the relation a table name stands for if it names a visible CTE.
func (p *parser) lookupCTE(name []string) (plan.Relation, bool) {
	if len(name) != 1 {
		return nil, false
	}
	key := strings.ToLower(name[0])
	for i := len(p.ctes) - 1; i >= 0; i-- {
		if d, ok := p.ctes[i][key]; ok {
			return &plan.SubqueryAlias{Input: d.rel, Alias: d.name, ColumnNames: d.cols}, true
		}
	}
	return nil, false
}

// tableRef is a table name in FROM or TABLE: a CTE reference or a plan.NamedTable.
func (p *parser) tableRef(name []string) plan.Relation {
	if r, ok := p.lookupCTE(name); ok {
		return r
	}
	return &plan.NamedTable{Name: name}
}
