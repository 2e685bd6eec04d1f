package expr

import (
	"runtime"
	"strings"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// memCost runs f and returns the number of heap allocations and bytes it made.
func memCost(f func()) (allocs, bytes uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// chain binds a left-deep chain of n applications of op (as the parser builds 1 + 1 + … + 1).
func chain(t *testing.T, op string, n int, leaf func() Expr) Expr {
	t.Helper()
	e := leaf()
	for i := 1; i < n; i++ {
		args := []Expr{e, leaf()}
		switch op {
		case "-", "not", "isnull", "~":
			args = args[:1]
		}
		var err error
		if e, err = Bind(op, args, Options{ANSI: true, TimeZone: "UTC"}); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	return e
}

// TestDeepChainLinear checks that binding and rendering a chain of operators costs memory
// linear in its length: 4× the terms may cost at most 6× the allocations and bytes (a
// rendering per level made it 16×), and the rendering is Spark's.
func TestDeepChainLinear(t *testing.T) {
	one := func() Expr { return lit(int32(1), sqltypes.IntegerType) }
	yes := func() Expr { return lit(true, sqltypes.BooleanType) }
	str := func() Expr { return lit("a", sqltypes.StringType) }
	cases := []struct {
		op    string
		leaf  func() Expr
		head3 string // the rendering of 3 terms
	}{
		{"+", one, "((1 + 1) + 1)"},
		{"*", one, "((1 * 1) * 1)"},
		{"and", yes, "((true AND true) AND true)"},
		{"or", yes, "((true OR true) OR true)"},
		{"|", one, "((1 | 1) | 1)"},
		{"concat", str, "concat(concat(a, a), a)"},
		{"==", yes, "((true = true) = true)"},
		{"-", one, "(- (- 1))"},
		{"not", yes, "(NOT (NOT true))"},
		{"isnull", one, "((1 IS NULL) IS NULL)"},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			if got := chain(t, c.op, 3, c.leaf).String(); got != c.head3 {
				t.Errorf("rendering %q, want %q", got, c.head3)
			}
			const n = 500
			a1, b1 := memCost(func() { _ = chain(t, c.op, n, c.leaf).String() })
			a4, b4 := memCost(func() { _ = chain(t, c.op, 4*n, c.leaf).String() })
			t.Logf("%s: %d terms %d allocs %d bytes; %d terms %d allocs %d bytes (×%.1f, ×%.1f)",
				c.op, n, a1, b1, 4*n, a4, b4, float64(a4)/float64(a1), float64(b4)/float64(b1))
			if a4 > 6*a1 || b4 > 6*b1 {
				t.Errorf("4× the terms cost ×%.1f allocations and ×%.1f bytes; want linear (≤ ×6)",
					float64(a4)/float64(a1), float64(b4)/float64(b1))
			}
		})
	}
	t.Run("date+", func(t *testing.T) {
		// date + int is date_add, rendered as the addition it was written as.
		if got := chainDates(t, 3).String(); got != "((DATE '1970-01-02' + 1) + 1)" {
			t.Errorf("rendering %q", got)
		}
		const n = 500
		a1, b1 := memCost(func() { _ = chainDates(t, n).String() })
		a4, b4 := memCost(func() { _ = chainDates(t, 4*n).String() })
		if a4 > 6*a1 || b4 > 6*b1 {
			t.Errorf("4× the terms cost ×%.1f allocations and ×%.1f bytes; want linear (≤ ×6)",
				float64(a4)/float64(a1), float64(b4)/float64(b1))
		}
	})
}

// chainDates binds DATE '1970-01-02' + 1 + … + 1 (n terms).
func chainDates(t *testing.T, n int) Expr {
	e := lit(int32(1), sqltypes.DateType)
	for i := 1; i < n; i++ {
		var err error
		if e, err = Bind("+", []Expr{e, lit(int32(1), sqltypes.IntegerType)}, Options{ANSI: true, TimeZone: "UTC"}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestRenderingLongChain renders a chain far deeper than any test above, to its exact length.
func TestRenderingLongChain(t *testing.T) {
	const n = 50000
	got := chain(t, "+", n, func() Expr { return lit(int32(1), sqltypes.IntegerType) }).String()
	want := strings.Repeat("(", n-1) + "1" + strings.Repeat(" + 1)", n-1)
	if got != want {
		t.Errorf("rendering of %d terms differs (length %d, want %d)", n, len(got), len(want))
	}
}
