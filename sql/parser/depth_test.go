package parser

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// TestExpressionDepth checks that expressions as deep as maxExprDepth parse and deeper ones
// fail with Spark's FAILED_TO_PARSE_TOO_COMPLEX, whichever way the depth is built: an operator
// chain, predicates and postfix operators in a loop, chains inside parentheses inside chains,
// and lambda bodies.
func TestExpressionDepth(t *testing.T) {
	chain := func(n int) string { return strings.Repeat("1 + ", n-1) + "1" }
	// Each parenthesised level holds a chain of k terms: depth ≈ levels × k.
	nested := func(levels, k int) string {
		s := "1"
		for i := 0; i < levels; i++ {
			s = "(" + s + ")" + strings.Repeat(" + 1", k)
		}
		return s
	}
	cases := []struct {
		name, expr string
		ok         bool
	}{
		{"chain at the limit", chain(maxExprDepth - 2), true},
		{"chain past the limit", chain(maxExprDepth + 1), false},
		{"50 000 ANDs", strings.Repeat("true AND ", 50000) + "true", true},
		{"IS NULL chain", "1" + strings.Repeat(" IS NULL", maxExprDepth+1), false},
		{"postfix chain", "a" + strings.Repeat("[0]", maxExprDepth+1), false},
		{"cast chain", "a" + strings.Repeat("::int", maxExprDepth+1), false},
		{"chains in parentheses", nested(10, maxExprDepth/10+10), false},
		{"chains in parentheses below", nested(10, maxExprDepth/20), true},
		{"lambda body", "transform(a, x -> " + chain(maxExprDepth+1) + ")", false},
		{"subquery", "(SELECT " + chain(maxExprDepth+1) + ")", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseStatement("SELECT " + c.expr)
			if c.ok {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			e, ok := sparkerr.As(err)
			if !ok || e.Class != "FAILED_TO_PARSE_TOO_COMPLEX" || e.JavaClass != sparkerr.ParseException {
				t.Fatalf("got %v, want a ParseException FAILED_TO_PARSE_TOO_COMPLEX", err)
			}
		})
	}
}

// TestRelationDepth checks that chained set operations and joins up to maxRelationDepth parse
// and longer chains fail with FAILED_TO_PARSE_TOO_COMPLEX, in subqueries too.
func TestRelationDepth(t *testing.T) {
	unions := func(n int) string { return "SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", n) }
	cases := []struct {
		name, text string
		ok         bool
	}{
		{"unions below the limit", unions(maxRelationDepth / 2), true},
		{"unions past the limit", unions(maxRelationDepth), false},
		{"joins past the limit", "SELECT * FROM t" + strings.Repeat(" JOIN t", maxRelationDepth), false},
		{"in a scalar subquery", "SELECT (" + unions(maxRelationDepth) + ")", false},
		{"in a derived table", "SELECT * FROM (" + unions(maxRelationDepth) + ")", false},
		{"shared CTE", "WITH a AS (SELECT 1), b AS (SELECT * FROM a JOIN a), c AS (SELECT * FROM b JOIN b) SELECT * FROM c JOIN c", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseStatement(c.text)
			if c.ok {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if e, ok := sparkerr.As(err); !ok || e.Class != "FAILED_TO_PARSE_TOO_COMPLEX" {
				t.Fatalf("got %v, want FAILED_TO_PARSE_TOO_COMPLEX", err)
			}
		})
	}
}

// canceledCtx is a context that is already done.
type canceledCtx struct{ context.Context }

func (canceledCtx) Err() error { return context.Canceled }

// TestParseCanceled checks that lexing and parsing a long statement stop with the context's
// error when the context is done.
func TestParseCanceled(t *testing.T) {
	text := "SELECT " + strings.Repeat("1 + ", 20000) + "1"
	_, err := ParseStatementContext(canceledCtx{context.Background()}, text, nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
