package engine

import (
	"context"
	"fmt"
	"github.com/weirhq/weir/conf"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

func TestQueryMemoryBudgetConf(t *testing.T) {
	s := NewSession()
	defer s.Close()
	n, err := s.QueryMemoryBudget()
	if err != nil || n != DefaultQueryMemoryBudget() || n < minDefaultQueryMemory {
		t.Fatalf("default budget = %d, %v", n, err)
	}
	must(t, s.Conf().Set(conf.QueryMemoryBudgetKey, "300m"))
	if n, err := s.QueryMemoryBudget(); err != nil || n != min(300<<20, ProcessMemoryLimit()) {
		t.Fatalf("300m budget = %d, %v", n, err)
	}
	must(t, s.Conf().Set(conf.QueryMemoryBudgetKey, "1000p"))
	if n, _ := s.QueryMemoryBudget(); n != ProcessMemoryLimit() {
		t.Fatalf("1000p is not held to the process limit %d: %d", ProcessMemoryLimit(), n)
	}
	// Bad values are refused at set (the registry), and the previous one stays.
	for _, bad := range []string{"lots", "0", "-5m"} {
		if err := s.Conf().Set(conf.QueryMemoryBudgetKey, bad); err == nil {
			t.Errorf("budget %q accepted at set", bad)
		}
	}
	if n, _ := s.QueryMemoryBudget(); n != ProcessMemoryLimit() {
		t.Fatalf("a refused value replaced the budget: %d", n)
	}
	// A value that reached the conf without the registry's check (queryMemoryBudget reads any
	// conf function) still fails the query instead of running it unbounded.
	for _, bad := range []string{"lots", "0", "-5m"} {
		conf := func(string) (string, bool) { return bad, true }
		if _, err := queryMemoryBudget(conf); err == nil {
			t.Errorf("budget %q accepted", bad)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestQueryOverBudgetFails: a sort that must hold 16 MB (a top-N of two million rows) fails
// with Spark's out-of-memory error under a 4 MiB budget, every byte comes back, and the session
// goes on to run the same query under a budget it fits.
func TestQueryOverBudgetFails(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := NewSession(WithAllocator(mem))
	defer s.Close()
	q := sqlRel("SELECT id FROM range(0, 2000000) ORDER BY id DESC LIMIT 3 OFFSET 1999990") // rowsOf sorts its rows
	must(t, s.Conf().Set(conf.QueryMemoryBudgetKey, "4m"))
	res, err := s.Execute(context.Background(), q)
	if err == nil {
		_, err = collect(context.Background(), res)
	}
	wantError(t, err, sparkerr.SparkOutOfMemoryError, "UNABLE_TO_ACQUIRE_MEMORY", "Unable to acquire")
	e, _ := sparkerr.As(err)
	for _, part := range []string{"memory budget of 4194304 bytes", conf.QueryMemoryBudgetKey} {
		if !strings.Contains(e.Message, part) {
			t.Errorf("message %q lacks %q", e.Message, part)
		}
	}
	if mem.CurrentAlloc() != 0 {
		t.Fatalf("%d bytes still allocated after the failed query", mem.CurrentAlloc())
	}
	must(t, s.Conf().Set(conf.QueryMemoryBudgetKey, "256m"))
	if got := strings.Join(rowsOf(t, s, q), ","); got != "7,8,9" {
		t.Fatalf("under budget: %s", got)
	}
}

// TestStreamingQueryOverBudgetFails: a streaming aggregate whose groups outgrow the budget
// fails the query (its exception is the out-of-memory error); the session stays usable.
func TestStreamingQueryOverBudgetFails(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := NewSession(WithAllocator(mem))
	defer s.Close()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte(b.String()), 0o644))
	must(t, s.Conf().Set(conf.QueryMemoryBudgetKey, "1m"))
	in := &plan.Aggregate{Input: &plan.DataSource{Format: "text", Options: map[string]string{"path": dir}, IsStreaming: true},
		Grouping: []plan.Expr{plan.ColumnRef{Name: []string{"value"}}},
		Aggs:     []plan.Expr{plan.Call{Name: "count", Args: []plan.Expr{plan.Literal{Value: int32(1)}}}}}
	q, err := s.StartStream(context.Background(), &plan.WriteStream{Input: in, Format: "noop", OutputMode: "update"}, nil)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ended, _ := q.AwaitTermination(ctx, nil); !ended {
		t.Fatal("the query did not end")
	}
	exc := q.Exception()
	if exc == nil || exc.Err == nil || !flow.IsOutOfMemory(exc.Err) {
		t.Fatalf("exception = %+v, want UNABLE_TO_ACQUIRE_MEMORY", exc)
	}
	if got := strings.Join(rowsOf(t, s, sqlRel("SELECT 1 + 1")), ","); got != "2" {
		t.Fatalf("after the failed stream: %s", got)
	}
}

// TestFileLineBound: spark.weir.files.maxLineBytes bounds the lines a batch text read holds.
func TestFileLineBound(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := NewSession(WithAllocator(mem))
	defer s.Close()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("short\n"+strings.Repeat("x", 5000)+"\n"), 0o644))
	read := &plan.DataSource{Format: "text", Paths: []string{dir}}
	must(t, s.Conf().Set(sources.MaxLineBytesConf, "4k"))
	res, err := s.Execute(context.Background(), read)
	if err == nil {
		_, err = collect(context.Background(), res)
	}
	wantError(t, err, sparkerr.SparkException, "FAILED_READ_FILE.NO_HINT", "Line 2 is longer than 4096 bytes")
	must(t, s.Conf().Set(sources.MaxLineBytesConf, "8k"))
	if got := rowsOf(t, s, read); len(got) != 2 || got[0] != "short" || len(got[1]) != 5000 {
		t.Fatalf("%d rows", len(got))
	}
}

// TestRepartitionCounts: Spark's requirement on repartition/coalesce counts, and the bound on
// a query's partitions.
func TestRepartitionCounts(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ten := &plan.Range{End: 10, Step: 1}
	key := []plan.Expr{plan.ColumnRef{Name: []string{"id"}}}
	for _, c := range []struct {
		rel  *plan.Repartition
		want string
	}{
		{&plan.Repartition{Input: ten, NumPartitions: -1, Shuffle: true}, "requirement failed: Number of partitions (-1) must be positive."},
		{&plan.Repartition{Input: ten, NumPartitions: 0}, "requirement failed: Number of partitions (0) must be positive."},
		{&plan.Repartition{Input: ten, NumPartitions: -3, Shuffle: true, Exprs: key}, "requirement failed: Number of partitions (-3) must be positive."},
		{&plan.Repartition{Input: ten, NumPartitions: 100000, Shuffle: true}, "The query needs 100000 partitions (at Exchange#2)"},
	} {
		res, err := s.Execute(context.Background(), c.rel)
		if err == nil {
			res.Close()
		}
		wantError(t, err, sparkerr.IllegalArgumentException, "", c.want)
	}
	for _, rel := range []*plan.Repartition{{Input: ten, NumPartitions: 7, Shuffle: true}, {Input: ten, Exprs: key},
		{Input: ten, NumPartitions: 1}} {
		if got := rowsOf(t, s, rel); len(got) != 10 {
			t.Fatalf("%+v: %d rows", rel, len(got))
		}
	}
}
