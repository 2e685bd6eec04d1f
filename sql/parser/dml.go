package parser

import "github.com/weirhq/weir/sql/plan"

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
