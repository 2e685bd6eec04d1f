package sql

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
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
