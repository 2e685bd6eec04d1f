package parser

import (
	"strings"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Statements of the persistent catalog: databases, tables, persistent views, INSERT.

// createDatabase parses the rest of CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] name
// [COMMENT c] [LOCATION l] [WITH DBPROPERTIES|PROPERTIES (...)].
func (p *parser) createDatabase() plan.Command {
	c := plan.CreateDatabase{IfNotExists: p.acceptSeq("IF", "NOT", "EXISTS")}
	c.Name = p.multipartName()
	for {
		switch {
		case p.accept("COMMENT"):
			c.Comment = p.stringLit()
		case p.accept("LOCATION"):
			c.Location = p.stringLit()
		case p.acceptSeq("WITH", "DBPROPERTIES") || p.acceptSeq("WITH", "PROPERTIES"):
			c.Properties = p.propertyList()
		default:
			return c
		}
	}
}

// createTable parses the rest of CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(columns)]
// [USING fmt] [OPTIONS (...)] [PARTITIONED BY (...)] [LOCATION l] [COMMENT c]
// [TBLPROPERTIES (...)] [[AS] query].
func (p *parser) createTable(replace bool) plan.Command {
	c := plan.CreateTable{Replace: replace, IfNotExists: p.acceptSeq("IF", "NOT", "EXISTS")}
	c.Name = p.multipartName()
	if p.peek().isOp("(") && !p.startsQuery() {
		p.pos++
		c.Columns = p.columns()
		p.expectOp(")")
	}
	for {
		switch {
		case p.accept("USING"):
			c.Format = strings.ToLower(strings.Join(p.multipartName(), "."))
		case p.accept("OPTIONS"):
			c.Options = p.propertyList()
		case p.acceptSeq("PARTITIONED", "BY"):
			p.expectOp("(")
			for {
				name := p.anyIdentifier()
				if !p.peek().isOp(",") && !p.peek().isOp(")") {
					// PARTITIONED BY (p INT): a column declared with its type.
					c.Columns = append(c.Columns, sqltypes.Field{Name: name, Type: p.dataType(), Nullable: true})
				}
				c.PartitionBy = append(c.PartitionBy, name)
				if !p.acceptOp(",") {
					break
				}
			}
			p.expectOp(")")
		case p.accept("LOCATION"):
			c.Location = p.stringLit()
		case p.accept("COMMENT"):
			c.Comment = p.stringLit()
		case p.accept("TBLPROPERTIES"):
			c.Properties = p.propertyList()
		case p.peek().is("CLUSTERED") || p.peek().is("CLUSTER"):
			p.fail(unsupported("bucketed and clustered tables (CLUSTERED BY, CLUSTER BY) are not supported"))
		case p.peek().is("STORED") || p.peek().is("ROW"):
			p.fail(unsupported("Hive tables (STORED AS, ROW FORMAT) are not supported; use USING parquet|json|csv"))
		case p.accept("AS") || p.startsQuery():
			c.Query = p.query()
			return c
		default:
			return c
		}
	}
}

// createPersistentView parses the rest of CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name
// [(cols)] [COMMENT c] [TBLPROPERTIES (...)] AS query, keeping the query's text.
func (p *parser) createPersistentView(replace bool) plan.Command {
	v := plan.CreatePersistentView{Replace: replace, IfNotExists: p.acceptSeq("IF", "NOT", "EXISTS")}
	v.Name = p.multipartName()
	if p.acceptOp("(") {
		for {
			v.Columns = append(v.Columns, p.anyIdentifier())
			if p.accept("COMMENT") {
				p.stringLit()
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	for {
		if p.accept("COMMENT") {
			v.Comment = p.stringLit()
			continue
		}
		if p.accept("TBLPROPERTIES") {
			p.propertyList()
			continue
		}
		break
	}
	if p.acceptSeq("WITH", "METRICS") {
		// CREATE VIEW … WITH METRICS LANGUAGE YAML AS $$yaml$$: a metric view.
		p.expect("LANGUAGE")
		p.expect("YAML")
		p.expect("AS")
		v.Language, v.Text = "YAML", p.stringLit()
		return v
	}
	p.expect("AS")
	start := p.peek().pos
	v.Query = p.query()
	v.Text = strings.TrimSpace(p.text[start:p.peek().pos])
	return v
}

// dropDatabase parses the rest of DROP DATABASE [IF EXISTS] name [RESTRICT|CASCADE].
func (p *parser) dropDatabase() plan.Command {
	d := plan.DropDatabase{IfExists: p.acceptSeq("IF", "EXISTS")}
	d.Name = p.multipartName()
	if !p.accept("RESTRICT") {
		d.Cascade = p.accept("CASCADE")
	}
	return d
}

// alterTable parses ALTER TABLE|VIEW name ADD COLUMN[S] (...) | RENAME TO name |
// SET TBLPROPERTIES (...) | UNSET TBLPROPERTIES [IF EXISTS] (...).
func (p *parser) alterTable() plan.Command {
	p.pos++
	a := plan.AlterTable{}
	switch {
	case p.accept("TABLE"):
	case p.accept("VIEW"):
		a.IsView = true
	default:
		if t := p.peek(); t.kind == tokWord {
			p.fail(unsupported("ALTER %s is not supported", strings.ToUpper(t.text)))
		}
		p.syntaxError()
	}
	a.Name = p.multipartName()
	switch {
	case p.accept("ADD") && (p.accept("COLUMNS") || p.accept("COLUMN")):
		if p.acceptOp("(") {
			a.AddColumns = p.columns()
			p.expectOp(")")
		} else {
			a.AddColumns = p.columns()
		}
	case p.acceptSeq("RENAME", "TO"):
		a.RenameTo = p.multipartName()
	case p.acceptSeq("SET", "TBLPROPERTIES"):
		a.SetProperties = p.propertyList()
	case p.acceptSeq("UNSET", "TBLPROPERTIES"):
		p.acceptSeq("IF", "EXISTS")
		for k := range p.propertyList() {
			a.UnsetProperties = append(a.UnsetProperties, k)
		}
	default:
		what := "this ALTER TABLE form"
		if t := p.peek(); t.kind == tokWord {
			what = "ALTER TABLE ... " + strings.ToUpper(t.text)
		}
		p.fail(unsupported("%s is not supported; ADD COLUMNS, RENAME TO, SET/UNSET TBLPROPERTIES are", what))
	}
	return a
}

// insert parses INSERT INTO|OVERWRITE [TABLE] name [PARTITION (...) [IF NOT EXISTS]] [(cols)]
// query.
func (p *parser) insert() plan.Command {
	p.pos++
	ins := plan.InsertInto{}
	switch {
	case p.accept("INTO"):
	case p.accept("OVERWRITE"):
		ins.Overwrite = true
		if p.peek().is("DIRECTORY") || p.peek().is("LOCAL") {
			p.fail(unsupported("INSERT OVERWRITE DIRECTORY is not supported; write with df.write.save(path)"))
		}
	default:
		p.syntaxError()
	}
	p.accept("TABLE")
	ins.Table = p.multipartName()
	if p.accept("PARTITION") {
		p.expectOp("(")
		for {
			pv := plan.PartitionValue{Column: p.anyIdentifier()}
			if p.acceptOp("=") {
				pv.Value = p.expression()
			}
			ins.Partition = append(ins.Partition, pv)
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		ins.IfNotExists = p.acceptSeq("IF", "NOT", "EXISTS")
	}
	if p.peek().isOp("(") && !p.startsQuery() {
		ins.Columns = p.identifierList()
	}
	if p.acceptSeq("BY", "NAME") {
		p.fail(unsupported("INSERT ... BY NAME is not supported"))
	}
	ins.Input = p.query()
	return ins
}

// truncate parses TRUNCATE TABLE name.
func (p *parser) truncate() plan.Command {
	p.pos++
	p.expect("TABLE")
	t := plan.TruncateTable{Name: p.multipartName()}
	if p.peek().is("PARTITION") {
		p.fail(unsupported("TRUNCATE TABLE ... PARTITION is not supported"))
	}
	return t
}

// propertyList parses ( key [=] value, ... ): keys are strings or dotted identifiers, values
// strings, numbers or booleans (kept as written).
func (p *parser) propertyList() map[string]string {
	p.expectOp("(")
	out := map[string]string{}
	if p.acceptOp(")") {
		return out
	}
	for {
		var key string
		if p.peek().kind == tokString {
			key = p.advance().text // one literal: "'k' 'v'" is a key and its value
		} else {
			key = strings.Join(p.multipartName(), ".")
		}
		value := ""
		hasValue := p.acceptOp("=")
		switch t := p.peek(); {
		case t.kind == tokString:
			value = p.stringLit()
		case t.kind == tokInteger || t.kind == tokDecimal || t.is("TRUE") || t.is("FALSE"):
			value = strings.ToLower(p.advance().raw)
		case hasValue:
			p.syntaxError()
		}
		out[key] = value
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}
