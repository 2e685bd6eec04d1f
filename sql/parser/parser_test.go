package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestDataDriven runs testdata/*: parse (statement → plan tree), parse-expr, parse-type,
// parse-schema and parse-error (→ error string with its Java class).
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			text := strings.TrimSpace(d.Input)
			switch d.Cmd {
			case "parse":
				cmd, err := ParseStatement(text)
				if err != nil {
					return "error: " + errString(err)
				}
				return FormatCommand(cmd) + "\n"
			case "parse-expr":
				e, err := ParseExpression(text)
				if err != nil {
					return "error: " + errString(err)
				}
				return FormatExpr(e) + "\n"
			case "parse-type":
				var out strings.Builder
				for _, line := range strings.Split(text, "\n") {
					dt, err := ParseDataType(line)
					if err != nil {
						fmt.Fprintf(&out, "%s → error: %s\n", line, strings.TrimSpace(errString(err)))
						continue
					}
					fmt.Fprintf(&out, "%s → %s\n", line, dt.String())
				}
				return out.String()
			case "parse-schema":
				s, err := ParseTableSchema(text)
				if err != nil {
					return "error: " + errString(err)
				}
				return s.TreeString()
			case "parse-error":
				_, err := ParseStatement(text)
				if err == nil {
					return "no error\n"
				}
				return errString(err)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func errString(err error) string {
	if e, ok := sparkerr.As(err); ok {
		cls := e.JavaClass[strings.LastIndex(e.JavaClass, ".")+1:]
		return cls + ": " + e.Error() + "\n"
	}
	return "untyped: " + err.Error() + "\n"
}

// TestDeepNesting checks that pathological nesting is an error, not a stack overflow.
func TestDeepNesting(t *testing.T) {
	for _, text := range []string{
		"SELECT " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000),
		"SELECT " + strings.Repeat("-", 20000) + "a",
		strings.Repeat("(", 20000) + "SELECT 1" + strings.Repeat(")", 20000),
		"SELECT * FROM " + strings.Repeat("(", 20000) + "t" + strings.Repeat(")", 20000),
		"SELECT CAST(a AS " + strings.Repeat("array<", 20000) + "int" + strings.Repeat(">", 20000) + ")",
	} {
		_, err := ParseStatement(text)
		e, ok := sparkerr.As(err)
		if !ok || e.JavaClass != sparkerr.ParseException {
			t.Fatalf("%.40s…: want ParseException, got %v", text, err)
		}
	}
	// Moderate nesting still parses.
	text := "SELECT " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200)
	if _, err := ParseStatement(text); err != nil {
		t.Fatal(err)
	}
}

// TestParams checks :name and ? parameter markers.
func TestParams(t *testing.T) {
	one := plan.Lit(int32(1), sqltypes.IntegerType)
	cmd, err := ParseStatementWithParams("SELECT :x + ?, ? FROM t WHERE a = :x LIMIT 1",
		map[string]plan.Expr{"x": plan.Col("c")}, []plan.Expr{one, plan.Lit("s", sqltypes.StringType)})
	if err != nil {
		t.Fatal(err)
	}
	got := FormatCommand(cmd)
	want := "Limit 1\n+- Project [+(c, 1), 's']\n   +- Filter ==(a, c)\n      +- NamedTable t"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A ':' in a type is not a parameter.
	if _, err := ParseStatement("SELECT CAST(a AS struct<x:int>)"); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseStatementWithParams("SELECT ?, ?", nil, []plan.Expr{one}); err == nil ||
		!strings.Contains(err.Error(), "UNBOUND_SQL_PARAMETER") {
		t.Fatalf("want UNBOUND_SQL_PARAMETER, got %v", err)
	}
}

// TestParseDDLAndIdentifiers checks the DDL fallback and multi-part identifiers.
func TestParseDDLAndIdentifiers(t *testing.T) {
	for text, want := range map[string]string{
		"int":                     "int",
		"a int, b string":         "struct<a:int,b:string>",
		"struct<a:int>":           "struct<a:int>",
		"a:bigint,b:array<int>":   "struct<a:bigint,b:array<int>>",
		"map<string, double>":     "map<string,double>",
		"x decimal(5,2) NOT NULL": "struct<x:decimal(5,2)>",
	} {
		got, err := ParseDDL(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got.String() != want {
			t.Fatalf("%q: got %s want %s", text, got, want)
		}
	}
	if _, err := ParseDDL("foo bar baz"); err == nil {
		t.Fatal("want an error")
	}
	for text, want := range map[string]string{
		"t":                 "[t]",
		"db.t":              "[db t]",
		"`my db`.`a.b`":     "[my db a.b]",
		"cat.select.from":   "[cat select from]",
		"global_temp.view1": "[global_temp view1]",
	} {
		got, err := ParseMultipartIdentifier(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if fmt.Sprint(got) != want {
			t.Fatalf("%q: got %v want %s", text, got, want)
		}
	}
	for _, bad := range []string{"", "a.", "a b", "`a"} {
		if _, err := ParseMultipartIdentifier(bad); err == nil {
			t.Fatalf("%q: want an error", bad)
		}
	}
}
