package parser

import (
	"regexp"
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// statement parses one statement (the whole input).
func (p *parser) statement() plan.Command {
	t := p.peek()
	var cmd plan.Command
	switch {
	case p.startsQuery():
		cmd = plan.Query{Input: p.query()}
	case t.is("SET"):
		return p.setStatement()
	case t.is("RESET"):
		return p.resetStatement()
	case t.is("CREATE"):
		cmd = p.create()
	case t.is("DROP"):
		cmd = p.drop()
	case t.is("SHOW"):
		cmd = p.show()
	case t.is("DESCRIBE") || t.is("DESC"):
		cmd = p.describe()
	case t.is("EXPLAIN"):
		cmd = p.explain()
	case t.is("INSERT"):
		cmd = p.insert()
	case t.is("ALTER"):
		cmd = p.alterTable()
	case t.is("TRUNCATE"):
		cmd = p.truncate()
	case t.is("DELETE") && p.peekAt(1).is("FROM"):
		cmd = p.deleteFrom()
	case t.is("UPDATE"):
		cmd = p.update()
	case t.is("MERGE"):
		cmd = p.merge()
	case t.is("USE"):
		p.pos++
		if !p.accept("NAMESPACE") && !p.accept("DATABASE") {
			p.accept("SCHEMA")
		}
		cmd = plan.UseDatabase{Name: p.multipartName()}
	default:
		if t.kind == tokWord {
			if _, known := unsupportedStatements[strings.ToUpper(t.text)]; known {
				p.fail(unsupported("the %s statement is not supported", strings.ToUpper(t.text)))
			}
		}
		p.syntaxError()
	}
	p.expectEnd()
	return cmd
}

var unsupportedStatements = map[string]struct{}{
	"ANALYZE": {}, "CACHE": {},
	"UNCACHE": {}, "CLEAR": {}, "REFRESH": {}, "ADD": {}, "LIST": {}, "LOAD": {},
	"MSCK": {}, "REPAIR": {}, "COMMENT": {}, "GRANT": {}, "REVOKE": {}, "CALL": {}, "DECLARE": {},
	"EXECUTE": {}, "BEGIN": {}, "COMMIT": {}, "ROLLBACK": {}, "REPLACE": {}, "EXPORT": {}, "IMPORT": {},
}

// create parses CREATE [OR REPLACE] [GLOBAL] TEMP[ORARY] VIEW [IF NOT EXISTS] name [(cols)]
// [COMMENT '…'] AS query, and the persistent catalog's CREATE DATABASE, CREATE TABLE and
// CREATE VIEW (table_ddl.go).
func (p *parser) create() plan.Command {
	p.pos++
	v := plan.CreateView{}
	v.Replace = p.acceptSeq("OR", "REPLACE")
	if !v.Replace && (p.accept("DATABASE") || p.accept("SCHEMA") || p.accept("NAMESPACE")) {
		return p.createDatabase()
	}
	if p.accept("TABLE") {
		return p.createTable(v.Replace)
	}
	if p.accept("VIEW") {
		return p.createPersistentView(v.Replace)
	}
	v.IsGlobal = p.accept("GLOBAL")
	temp := p.accept("TEMP") || p.accept("TEMPORARY")
	if !p.peek().is("VIEW") || !temp {
		what := "CREATE"
		if t := p.peek(); t.kind == tokWord {
			what += " " + strings.ToUpper(t.text)
		}
		p.fail(unsupported("%s is not supported; CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW, CREATE VIEW, "+
			"CREATE TABLE and CREATE DATABASE are", what))
	}
	p.pos++
	v.IfNotExists = p.acceptSeq("IF", "NOT", "EXISTS")
	name := p.multipartName()
	if len(name) > 1 {
		p.fail(sparkerr.Newf(sparkerr.ParseException, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS", "428EK",
			"CREATE TEMPORARY VIEW or the corresponding Dataset APIs only accept single-part view names, but got: %s.",
			sparkerr.Quote(name...)).WithParams("actualName", sparkerr.Quote(name...)))
	}
	v.Name = name[0]
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
		switch {
		case p.accept("COMMENT"):
			p.stringLit()
			continue
		case p.peek().is("TBLPROPERTIES"):
			p.fail(unsupported("TBLPROPERTIES on temporary views is not supported"))
		}
		break
	}
	p.expect("AS")
	v.Input = p.query()
	return v
}

// drop parses DROP VIEW|TABLE [IF EXISTS] name [PURGE] and DROP DATABASE.
func (p *parser) drop() plan.Command {
	p.pos++
	if p.accept("DATABASE") || p.accept("SCHEMA") || p.accept("NAMESPACE") {
		return p.dropDatabase()
	}
	isTable := p.accept("TABLE")
	if !isTable && !p.accept("VIEW") {
		if t := p.peek(); t.kind == tokWord {
			p.fail(unsupported("DROP %s is not supported", strings.ToUpper(t.text)))
		}
		p.syntaxError()
	}
	d := plan.DropView{IfExists: p.acceptSeq("IF", "EXISTS"), IsTable: isTable}
	d.Name = p.multipartName()
	p.accept("PURGE")
	return d
}

// show parses SHOW TABLES/FUNCTIONS/COLUMNS/DATABASES/NAMESPACES/SCHEMAS.
func (p *parser) show() plan.Command {
	p.pos++
	pattern := func() string {
		p.accept("LIKE")
		if p.peek().kind == tokString {
			return p.stringLit()
		}
		return ""
	}
	switch {
	case p.accept("TABLES"):
		s := plan.ShowTables{}
		if p.accept("IN") || p.accept("FROM") {
			s.Namespace = p.multipartName()
		}
		s.Pattern = pattern()
		return s
	case p.accept("FUNCTIONS") || p.acceptSeq("USER", "FUNCTIONS") || p.acceptSeq("SYSTEM", "FUNCTIONS") || p.acceptSeq("ALL", "FUNCTIONS"):
		if p.peek().is("IN") || p.peek().is("FROM") {
			p.fail(unsupported("SHOW FUNCTIONS IN a namespace is not supported"))
		}
		s := plan.ShowFunctions{}
		if p.peek().kind == tokString || p.peek().is("LIKE") {
			s.Pattern = pattern()
		} else if !p.atEnd() {
			s.Pattern = strings.Join(p.multipartName(), ".")
		}
		return s
	case p.accept("COLUMNS"):
		if !p.accept("IN") {
			p.expect("FROM")
		}
		table := p.multipartName()
		if p.accept("IN") || p.accept("FROM") {
			table = append(p.multipartName(), table...)
		}
		return plan.ShowColumns{Table: table}
	case p.accept("DATABASES") || p.accept("NAMESPACES") || p.accept("SCHEMAS"):
		return plan.ShowDatabases{Pattern: pattern()}
	case p.acceptSeq("CREATE", "TABLE"):
		s := plan.ShowCreateTable{Name: p.multipartName()}
		p.acceptSeq("AS", "SERDE")
		return s
	case p.accept("TBLPROPERTIES"):
		s := plan.ShowTableProperties{Name: p.multipartName()}
		if p.acceptOp("(") {
			if p.peek().kind == tokString {
				s.Key = p.stringLit()
			} else {
				s.Key = strings.Join(p.multipartName(), ".")
			}
			p.expectOp(")")
		}
		return s
	}
	if t := p.peek(); t.kind == tokWord {
		p.fail(unsupported("SHOW %s is not supported", strings.ToUpper(t.text)))
	}
	p.syntaxError()
	return nil
}

// describe parses DESCRIBE|DESC [TABLE] [EXTENDED|FORMATTED] name, and DESCRIBE [QUERY] query.
func (p *parser) describe() plan.Command {
	p.pos++
	if p.accept("QUERY") || p.startsQuery() && !p.peek().is("TABLE") {
		return plan.Describe{Query: p.query()}
	}
	for _, kw := range []string{"FUNCTION", "DATABASE", "SCHEMA", "NAMESPACE", "CATALOG"} {
		if p.peek().is(kw) {
			p.fail(unsupported("DESCRIBE %s is not supported", kw))
		}
	}
	p.accept("TABLE")
	d := plan.Describe{}
	d.Extended = p.accept("EXTENDED") || p.accept("FORMATTED")
	d.Table = p.multipartName()
	if !p.atEnd() {
		p.fail(unsupported("DESCRIBE of a partition or column is not supported"))
	}
	return d
}

// explain parses EXPLAIN [LOGICAL|EXTENDED|FORMATTED|CODEGEN|COST] query. Mode is "simple",
// "extended", "formatted", "codegen" or "cost".
func (p *parser) explain() plan.Command {
	p.pos++
	mode := "simple"
	for _, m := range []string{"LOGICAL", "EXTENDED", "FORMATTED", "CODEGEN", "COST"} {
		if p.accept(m) {
			mode = strings.ToLower(m)
			if mode == "logical" {
				mode = "simple"
			}
			break
		}
	}
	if !p.startsQuery() {
		p.fail(unsupported("EXPLAIN is supported for queries only"))
	}
	return plan.Explain{Mode: mode, Input: p.query()}
}

var (
	configKey   = regexp.MustCompile(`^[a-zA-Z_\d.:\-]+$`)
	setKeyValue = regexp.MustCompile(`^(?s)(.*?)=(.*)$`)
)

// rawRest returns the statement text after the current token, trimmed, without trailing ';'.
func (p *parser) rawRest() string {
	t := p.advance()
	rest := p.text[t.pos+len(t.raw):]
	rest = strings.TrimSpace(rest)
	for strings.HasSuffix(rest, ";") {
		rest = strings.TrimSpace(strings.TrimSuffix(rest, ";"))
	}
	return rest
}

func unquoteKey(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

func invalidSetSyntax() *sparkerr.Error {
	return sparkerr.New(sparkerr.ParseException, "INVALID_SET_SYNTAX", "42000",
		"Expected format is 'SET', 'SET key', or 'SET key=value'. If you want to include special characters in key, or include semicolon in value, please use backquotes, e.g., SET `key`=`value`.")
}

// setStatement parses SET, SET -v, SET key, SET key=value (the value is the raw rest of the
// text, trimmed) and SET TIME ZONE 'zone'|LOCAL.
func (p *parser) setStatement() plan.Command {
	if p.peekAt(1).is("TIME") && p.peekAt(2).is("ZONE") {
		p.pos += 3
		key := conf.TimeZoneKey
		if p.accept("LOCAL") {
			p.expectEnd()
			return plan.ResetConf{Key: key}
		}
		v := p.stringLit()
		p.expectEnd()
		return plan.SetConf{Key: key, Value: &v}
	}
	for _, kw := range []string{"VAR", "VARIABLE", "CATALOG", "COLLATION", "ROLE"} {
		if p.peekAt(1).is(kw) && !p.peekAt(2).isOp("=") {
			p.fail(unsupported("SET %s is not supported", kw))
		}
	}
	rest := p.rawRest()
	if rest == "" || rest == "-v" {
		return plan.SetConf{}
	}
	if m := setKeyValue.FindStringSubmatch(rest); m != nil {
		key := unquoteKey(m[1])
		if key == "" || (!configKey.MatchString(key) && !strings.HasPrefix(strings.TrimSpace(m[1]), "`")) {
			p.fail(invalidSetSyntax())
		}
		v := unquoteKey(m[2])
		return plan.SetConf{Key: key, Value: &v}
	}
	key := unquoteKey(rest)
	if !configKey.MatchString(key) && !strings.HasPrefix(rest, "`") {
		p.fail(invalidSetSyntax())
	}
	return plan.SetConf{Key: key}
}

// resetStatement parses RESET [key].
func (p *parser) resetStatement() plan.Command {
	return plan.ResetConf{Key: unquoteKey(p.rawRest())}
}
