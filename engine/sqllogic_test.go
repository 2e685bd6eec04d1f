package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestSQLLogic runs testdata/sql/* in the style of sqllogictest: each `query` runs SQL text through
// the whole engine (parse → analyze → plan → flow runtime) and prints the rows, one per line with
// columns separated by " | " (values rendered as Spark casts them to string, NULL for null).
// `query rowsort` sorts the printed rows; `statement` runs a command and prints "ok" or the error;
// `query error` prints the error class (the Java class when Spark has none) and message. Every file runs with a checked allocator.
func TestSQLLogic(t *testing.T) {
	datadriven.Walk(t, "testdata/sql", func(t *testing.T, path string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		s := NewSession(WithAllocator(mem))
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			ctx := context.Background()
			switch d.Cmd {
			case "statement":
				res, err := runSQL(ctx, s, d.Input)
				if err != nil {
					return errString(err)
				}
				res.Close()
				return "ok\n"
			case "query":
				res, err := runSQL(ctx, s, d.Input)
				if err != nil {
					return errString(err)
				}
				rows, err := render(ctx, s, res)
				if err != nil {
					return errString(err)
				}
				if d.HasArg("rowsort") {
					sort.Strings(rows)
				}
				if len(rows) == 0 {
					return "(empty)\n"
				}
				return strings.Join(rows, "\n") + "\n"
			case "set":
				for _, a := range d.CmdArgs {
					if err := s.Conf().Set(a.Key, a.Vals[0]); err != nil {
						return errString(err)
					}
				}
				return "ok\n"
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func runSQL(ctx context.Context, s *Session, text string) (*Result, error) {
	cmd, err := parser.ParseStatement(text)
	if err != nil {
		return nil, err
	}
	return s.RunCommand(ctx, cmd)
}

func errString(err error) string {
	if e, ok := sparkerr.As(err); ok {
		if e.Class == "" {
			// Errors Spark raises without a class (a Java exception) show the Java class.
			return fmt.Sprintf("error %s: %s\n", e.JavaClass, e.Message)
		}
		return fmt.Sprintf("error %s: %s\n", e.Class, e.Message)
	}
	return "error: " + err.Error() + "\n"
}

// render prints a result's rows with Spark's cast-to-string rendering.
func render(ctx context.Context, s *Session, res *Result) ([]string, error) {
	recs, err := collect(ctx, res)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	ectx, err := s.evalContext()
	if err != nil {
		return nil, err
	}
	var rows []string
	for _, rec := range recs {
		cells := make([][]string, rec.NumCols())
		for c, f := range res.Schema {
			col := &expr.Column{Index: c, Name: f.Name, T: f.Type, Null: f.Nullable}
			cast, err := expr.NewCast(col, sqltypes.StringType, plan.CastTry, s.exprOptions())
			if err != nil {
				return nil, err
			}
			arr, err := cast.Eval(ectx, rec)
			if err != nil {
				return nil, err
			}
			for r := 0; r < arr.Len(); r++ {
				v := expr.ValueAt(arr, r, sqltypes.StringType)
				if v == nil {
					cells[c] = append(cells[c], "NULL")
				} else {
					cells[c] = append(cells[c], v.(string))
				}
			}
			arr.Release()
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, len(cells))
			for c := range cells {
				row[c] = cells[c][r]
			}
			rows = append(rows, strings.Join(row, " | "))
		}
	}
	return rows, nil
}
