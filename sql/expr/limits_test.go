package expr

import (
	"runtime"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// allocatedBy returns the bytes the Go heap allocated while f ran (runtime.MemStats.TotalAlloc:
// the test's other goroutines are idle, so the delta is f's).
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLimitsFailBeforeAllocating evaluates each over-limit call over a 4-row batch and checks that
// it fails with the expected class while the heap (Go and Arrow) grew by far less than the result
// would have taken.
func TestLimitsFailBeforeAllocating(t *testing.T) {
	const bound = 1 << 20 // MaxValueBytes of the bounded cases
	cases := []struct {
		expr    string
		bounded bool // with MaxValueBytes = bound; else Spark's limits only
		class   string
	}{
		{"repeat('x', 2147483647)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"repeat('xy', 2147483647)", false, "java.lang.ArithmeticException"},
		{"lpad('x', 2147483647, 'ab')", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"rpad('x', 2147483647, 'ab')", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"space(2147483647)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"array_repeat(1, 2147483647)", false, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER"},
		{"array_repeat(1, 2000000000)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"sequence(1L, 5000000000L)", false, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER"},
		{"sequence(1, 2000000000)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"format_string('%2147483647d', 1)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"format_number(1.5BD, 2147483647)", false, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"repeat('x', 600000000)", false, "UNABLE_TO_ACQUIRE_MEMORY"}, // 4 rows pass 2^31-1 bytes
		{"repeat('x', 2000000)", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"lpad('x', 2000000, 'ab')", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"array_repeat(1, 200000)", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"sequence(1, 200000)", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"repeat('x', 300000)", true, "UNABLE_TO_ACQUIRE_MEMORY"}, // 4 × 300 000 > 2^20
		{"replace(repeat('x', 1000), 'x', repeat('y', 1000))", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"regexp_replace(repeat('x', 1000), '', repeat('y', 1000))", true, "UNABLE_TO_ACQUIRE_MEMORY"},
		{"concat_ws(repeat('y', 10000), array_repeat('x', 1000))", true, "UNABLE_TO_ACQUIRE_MEMORY"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			env := newEnv(t, true)
			defer env.close()
			if c.bounded {
				env.ctx.MaxValueBytes = bound
			}
			p := &exprParser{s: c.expr, opts: Options{ANSI: true}}
			e, err := p.parse()
			if err != nil {
				t.Fatal(err)
			}
			b := env.emptyBatch(4)
			defer b.Release()
			var evalErr error
			grew := allocatedBy(func() { _, evalErr = env.eval(e, b) })
			if evalErr == nil || errClass(evalErr) != c.class {
				t.Fatalf("got error %v, want class %s", evalErr, c.class)
			}
			if grew > 8<<20 {
				t.Fatalf("allocated %d bytes before failing", grew)
			}
			if env.mem.CurrentAlloc() != 0 {
				t.Fatalf("Arrow allocator holds %d bytes", env.mem.CurrentAlloc())
			}
		})
	}
}

// TestStackFailsBeforeGenerating checks stack's row count against the bound before any row.
func TestStackFailsBeforeGenerating(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	g, err := BindGenerator("stack", []Expr{NewLiteral(int32(2147483647), intType), NewLiteral(int32(1), intType)}, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	b := env.emptyBatch(1)
	defer b.Release()
	var genErr error
	grew := allocatedBy(func() { _, _, genErr = g.Generate(env.ctx, b) })
	if errClass(genErr) != "UNABLE_TO_ACQUIRE_MEMORY" || grew > 8<<20 {
		t.Fatalf("got %v after allocating %d bytes", genErr, grew)
	}
	e, _ := sparkerr.As(genErr)
	if e.JavaClass != sparkerr.SparkOutOfMemoryError || e.SQLState != "53200" || e.Params["requestedBytes"] == "" {
		t.Fatalf("error shape: %+v", e)
	}
	// A small stack still generates its rows.
	g, err = BindGenerator("stack", []Expr{NewLiteral(int32(3), intType), NewLiteral(int32(1), intType)}, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	rows, cols, err := g.Generate(env.ctx, b)
	if err != nil || len(rows) != 3 {
		t.Fatalf("stack(3, 1): %v rows, %v", rows, err)
	}
	releaseAll(cols)
}

// TestOutOfMemoryErrorNamesTheConf checks the bounded error's shape: Spark's class and
// parameters, the sizes, and the configuration that raises the bound.
func TestOutOfMemoryErrorNamesTheConf(t *testing.T) {
	ctx := &Context{MaxValueBytes: 100}
	err := ctx.checkResultBytes("repeat", 101, 0)
	e, ok := sparkerr.As(err)
	if !ok || e.Class != "UNABLE_TO_ACQUIRE_MEMORY" || e.Params["requestedBytes"] != "101" || e.Params["receivedBytes"] != "100" {
		t.Fatalf("got %v", err)
	}
	want := "Unable to acquire 101 bytes of memory, got 100. The function `repeat` needs 101 bytes for one value, over the limit of 100 bytes of this query's evaluation; set spark.weir.query.memoryBudgetBytes to raise it."
	if e.Message != want {
		t.Fatalf("message\n got %s\nwant %s", e.Message, want)
	}
	if got := e.Classes(); len(got) < 2 || got[0] != sparkerr.SparkOutOfMemoryError || got[1] != "java.lang.OutOfMemoryError" {
		t.Fatalf("classes %v", got)
	}
	if err := ctx.checkResultBytes("repeat", 100, 0); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	if err := (*Context)(nil).checkResultBytes("repeat", MaxRoundedArrayLength, 0); err != nil {
		t.Fatalf("at Spark's limit: %v", err)
	}
	if err := (*Context)(nil).checkResultBytes("repeat", MaxRoundedArrayLength+1, 0); err == nil {
		t.Fatal("past Spark's limit: no error")
	}
}
