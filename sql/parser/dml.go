package parser

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// deleteFrom parses DELETE FROM name [[AS] alias] [WHERE condition].
func (p *parser) deleteFrom() plan.Command {
	p.pos++
	p.expect("FROM")
	d := plan.DeleteFrom{Table: p.multipartName()}
	d.Alias = p.dmlAlias()
	if p.accept("WHERE") {
		d.Condition = p.expression()
	}
	return d
}

// update parses UPDATE name [[AS] alias] SET col = value [, ...] [WHERE condition].
func (p *parser) update() plan.Command {
	p.pos++
	u := plan.UpdateTable{Table: p.multipartName()}
	u.Alias = p.dmlAlias()
	p.expect("SET")
	for {
		col := p.multipartName()
		p.expectOp("=")
		u.Assignments = append(u.Assignments, plan.Assignment{Column: col, Value: p.expression()})
		if !p.acceptOp(",") {
			break
		}
	}
	if p.accept("WHERE") {
		u.Condition = p.expression()
	}
	return u
}

// dmlAlias parses a DML statement's optional [AS] alias (not WHERE or SET).
func (p *parser) dmlAlias() string {
	if p.accept("AS") {
		return p.anyIdentifier()
	}
	if t := p.peek(); isIdent(t) && !t.is("SET") {
		return p.identifier()
	}
	return ""
}

// merge parses MERGE INTO target [[AS] alias] USING (table | (query)) [[AS] alias] ON condition
// followed by at least one of
//
//	WHEN MATCHED [AND c] THEN UPDATE SET * | UPDATE SET col = value, ... | DELETE
//	WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT * | INSERT (cols) VALUES (values)
//	WHEN NOT MATCHED BY SOURCE [AND c] THEN UPDATE SET col = value, ... | DELETE
//
// where only the last clause of each kind may omit its condition (Spark's
// NON_LAST_*_CLAUSE_OMIT_CONDITION).
func (p *parser) merge() plan.Command {
	p.pos++
	if p.peek().is("WITH") {
		p.fail(unsupported("MERGE WITH SCHEMA EVOLUTION is not supported"))
	}
	p.expect("INTO")
	m := plan.MergeInto{Table: p.multipartName()}
	if p.accept("AS") {
		m.Alias = p.anyIdentifier()
	} else if t := p.peek(); isIdent(t) && !t.is("USING") {
		m.Alias = p.identifier()
	}
	p.expect("USING")
	m.Source = p.relationPrimary()
	p.expect("ON")
	m.Condition = p.expression()
	for p.accept("WHEN") {
		notMatched := p.accept("NOT")
		p.expect("MATCHED")
		bySource := notMatched && p.acceptSeq("BY", "SOURCE")
		if notMatched && !bySource {
			p.acceptSeq("BY", "TARGET")
		}
		var a plan.MergeAction
		if p.accept("AND") {
			a.Condition = p.expression()
		}
		p.expect("THEN")
		switch {
		case notMatched && !bySource:
			p.expect("INSERT")
			if p.acceptOp("*") {
				a.Kind = plan.MergeInsertStar
				break
			}
			a.Kind = plan.MergeInsert
			p.expectOp("(")
			var cols [][]string
			for {
				cols = append(cols, p.multipartName())
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
			p.expect("VALUES")
			p.expectOp("(")
			var values []plan.Expr
			for {
				values = append(values, p.expression())
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
			if len(values) != len(cols) {
				p.fail(sparkerr.Newf(sparkerr.ParseException, "MERGE_INSERT_VALUE_COUNT_MISMATCH", "21S01",
					"The number of provided values (%d) must match the number of expected columns (%d) in the INSERT clause of MERGE.",
					len(values), len(cols)).WithParams("actualCount", strconv.Itoa(len(values)), "expectedCount", strconv.Itoa(len(cols))))
			}
			for i, c := range cols {
				a.Assignments = append(a.Assignments, plan.Assignment{Column: c, Value: values[i]})
			}
		case p.accept("DELETE"):
			a.Kind = plan.MergeDelete
		default:
			p.expect("UPDATE")
			p.expect("SET")
			if !bySource && p.acceptOp("*") {
				a.Kind = plan.MergeUpdateStar
				break
			}
			a.Kind = plan.MergeUpdate
			for {
				col := p.multipartName()
				p.expectOp("=")
				a.Assignments = append(a.Assignments, plan.Assignment{Column: col, Value: p.expression()})
				if !p.acceptOp(",") {
					break
				}
			}
		}
		switch {
		case bySource:
			m.NotMatchedBySource = append(m.NotMatchedBySource, a)
		case notMatched:
			m.NotMatched = append(m.NotMatched, a)
		default:
			m.Matched = append(m.Matched, a)
		}
	}
	if len(m.Matched)+len(m.NotMatched)+len(m.NotMatchedBySource) == 0 {
		p.fail(sparkerr.Newf(sparkerr.ParseException, "MERGE_WITHOUT_WHEN", "42601",
			"There must be at least one WHEN clause in a MERGE statement."))
	}
	checkLastOmitsCondition(p, m.Matched, "MATCHED")
	checkLastOmitsCondition(p, m.NotMatched, "NOT_MATCHED_BY_TARGET")
	checkLastOmitsCondition(p, m.NotMatchedBySource, "NOT_MATCHED_BY_SOURCE")
	return m
}

// checkLastOmitsCondition refuses a clause other than the last of its kind without a
// condition (the later ones could never act).
func checkLastOmitsCondition(p *parser, clauses []plan.MergeAction, kind string) {
	for _, c := range clauses[:max(len(clauses)-1, 0)] {
		if c.Condition == nil {
			words := strings.ReplaceAll(kind, "_", " ")
			if kind == "NOT_MATCHED_BY_TARGET" {
				words = "NOT MATCHED [BY TARGET]"
			}
			p.fail(sparkerr.Newf(sparkerr.ParseException, "NON_LAST_"+kind+"_CLAUSE_OMIT_CONDITION", "42613",
				"When there are more than one %s clauses in a MERGE statement, only the last %s clause can omit the condition.",
				words, words))
		}
	}
}
