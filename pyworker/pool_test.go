package pyworker

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPoolEvalTypes runs one task of each Arrow eval type on real PySpark workers, all on one
// reused worker (MaxWorkers 1), with exact expected rows.
func TestPoolEvalTypes(t *testing.T) {
	base := snapshot(t)
	p := newTestPool(t, 1)
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	var pids []int
	note := func(pid int) { pids = append(pids, pid) }
	cmd := func(name string) []byte { return command(t, name) }

	t.Run("scalar pandas, keyword argument, two batches", func(t *testing.T) {
		tk := task(t, SQLScalarPandasUDF, alloc, UDF{Command: cmd("scalar_pandas"), ArgOffsets: []int{0, 1}, ArgNames: []string{"", "b"}})
		got, pid, err := run(t, p, tk,
			one(longs(alloc, []string{"a", "b"}, []any{1, 2, 3}, []any{4, 5, 6})),
			one(longs(alloc, []string{"a", "b"}, []any{7}, []any{0})))
		note(pid)
		checkRows(t, "scalar pandas", got, err, "_0=14", "_0=25", "_0=36", "_0=70")
	})
	t.Run("two scalar pandas UDFs, one chained", func(t *testing.T) {
		tk := task(t, SQLScalarPandasUDF, alloc,
			UDF{Command: cmd("times_ten"), Chained: [][]byte{cmd("plus_one")}, ArgOffsets: []int{1}},
			UDF{Command: cmd("identity"), ArgOffsets: []int{0}})
		got, pid, err := run(t, p, tk, one(longs(alloc, []string{"a", "b"}, []any{1, 2}, []any{5, 6})))
		note(pid)
		checkRows(t, "chained", got, err, "_0=60 _1=1", "_0=70 _1=2")
	})
	t.Run("scalar pandas iterator", func(t *testing.T) {
		tk := task(t, SQLScalarPandasIterUDF, alloc, UDF{Command: cmd("scalar_pandas_iter"), ArgOffsets: []int{0}})
		got, pid, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{1, 2, 3})), one(longs(alloc, []string{"a"}, []any{-4})))
		note(pid)
		checkRows(t, "scalar pandas iter", got, err, "_0=2", "_0=4", "_0=6", "_0=-8")
	})
	t.Run("arrow batched", func(t *testing.T) {
		tk := task(t, SQLArrowBatchedUDF, alloc, UDF{Command: cmd("arrow_batched"), ArgOffsets: []int{0}})
		got, pid, err := run(t, p, tk, one(strs(alloc, "s", "ab", nil, "é")))
		note(pid)
		checkRows(t, "arrow batched", got, err, "_0=AB!", "_0=(null)", "_0=É!")
	})
	t.Run("scalar arrow", func(t *testing.T) {
		tk := task(t, SQLScalarArrowUDF, alloc, UDF{Command: cmd("scalar_arrow"), ArgOffsets: []int{1}})
		got, pid, err := run(t, p, tk, one(longs(alloc, []string{"x", "a"}, []any{0, 0}, []any{1, nil})))
		note(pid)
		checkRows(t, "scalar arrow", got, err, "_0=3", "_0=(null)")
	})
	t.Run("scalar arrow iterator", func(t *testing.T) {
		tk := task(t, SQLScalarArrowIterUDF, alloc, UDF{Command: cmd("scalar_arrow_iter"), ArgOffsets: []int{0}})
		got, pid, err := run(t, p, tk, one(longs(alloc, []string{"a"}, []any{1, 2})), one(longs(alloc, []string{"a"}, []any{3})))
		note(pid)
		checkRows(t, "scalar arrow iter", got, err, "_0=101", "_0=102", "_0=103")
	})
	t.Run("mapInPandas", func(t *testing.T) {
		tk := task(t, SQLMapPandasIterUDF, alloc, UDF{Command: cmd("map_pandas")})
		got, pid, err := run(t, p, tk,
			one(longs(alloc, []string{"id", "other"}, []any{1, 2, 3, 4}, []any{0, 0, 0, 0})),
			one(longs(alloc, []string{"id", "other"}, []any{5, 6}, []any{0, 0})))
		note(pid)
		checkRows(t, "mapInPandas", got, err, "id=2 sq=4", "id=4 sq=16", "id=6 sq=36")
	})
	t.Run("mapInArrow", func(t *testing.T) {
		tk := task(t, SQLMapArrowIterUDF, alloc, UDF{Command: cmd("map_arrow")})
		got, pid, err := run(t, p, tk, one(longs(alloc, []string{"id"}, []any{1, 2})))
		note(pid)
		checkRows(t, "mapInArrow", got, err, "next=2", "next=3")
	})
	kv := []string{"k", "v"}
	groups := func() []Group {
		return []Group{
			one(longs(alloc, kv, []any{1, 1}, []any{1, 2}), longs(alloc, kv, []any{1}, []any{4})),
			one(longs(alloc, kv, []any{2}, []any{10})),
		}
	}
	t.Run("applyInPandas", func(t *testing.T) {
		tk := task(t, SQLGroupedMapPandasUDF, alloc, UDF{Command: cmd("grouped_map_pandas"), Sides: []SideOffsets{{Keys: []int{0}, Values: []int{1}}}})
		got, pid, err := run(t, p, tk, groups()...)
		note(pid)
		checkRows(t, "applyInPandas", got, err, "k=1 total=7 n=3", "k=2 total=10 n=1")
	})
	t.Run("applyInArrow", func(t *testing.T) {
		tk := task(t, SQLGroupedMapArrowUDF, alloc, UDF{Command: cmd("grouped_map_arrow"), Sides: []SideOffsets{{Keys: []int{0}, Values: []int{1}}}})
		got, pid, err := run(t, p, tk, groups()...)
		note(pid)
		checkRows(t, "applyInArrow", got, err, "k=1 n=3 top=4", "k=2 n=1 top=10")
	})
	t.Run("grouped aggregate pandas", func(t *testing.T) {
		tk := task(t, SQLGroupedAggPandasUDF, alloc, UDF{Command: cmd("grouped_agg_pandas"), ArgOffsets: []int{1}})
		got, pid, err := run(t, p, tk, groups()...)
		note(pid)
		checkRows(t, "grouped agg", got, err, "_0=2.3333333333333335", "_0=10")
	})
	t.Run("grouped aggregate arrow", func(t *testing.T) {
		tk := task(t, SQLGroupedAggArrowUDF, alloc, UDF{Command: cmd("grouped_agg_arrow"), ArgOffsets: []int{1}})
		got, pid, err := run(t, p, tk, groups()...)
		note(pid)
		checkRows(t, "grouped agg arrow", got, err, "_0=7", "_0=10")
	})
	for _, c := range []struct {
		name string
		et   EvalType
	}{{"cogrouped_map_pandas", SQLCogroupedMapPandasUDF}, {"cogrouped_map_arrow", SQLCogroupedMapArrowUDF}} {
		t.Run(c.name+", one side empty", func(t *testing.T) {
			kw := []string{"k", "w"}
			tk := task(t, c.et, alloc, UDF{Command: cmd(c.name), Sides: []SideOffsets{
				{Keys: []int{0}, Values: []int{1}}, {Keys: []int{0}, Values: []int{1}}}})
			left := longs(alloc, kv, []any{0}, []any{0})
			right := longs(alloc, kw, []any{0}, []any{0})
			tk.InputSchemas = []*arrow.Schema{left.Schema(), right.Schema()}
			left.Release()
			right.Release()
			got, pid, err := run(t, p, tk,
				Group{Batches: [][]arrow.RecordBatch{
					{longs(alloc, kv, []any{1, 1}, []any{1, 2})},
					{longs(alloc, kw, []any{1}, []any{3})}}},
				Group{Batches: [][]arrow.RecordBatch{
					nil,
					{longs(alloc, kw, []any{2, 2}, []any{3, 4})}}})
			note(pid)
			checkRows(t, "cogroup", got, err, "k=1 nl=2 nr=1", "k=2 nl=0 nr=2")
		})
	}
	t.Run("empty input", func(t *testing.T) {
		tk := task(t, SQLScalarPandasUDF, alloc, UDF{Command: cmd("identity"), ArgOffsets: []int{0}})
		got, pid, err := run(t, p, tk)
		note(pid)
		checkRows(t, "empty", got, err)
	})

	for _, pid := range pids[1:] {
		if pid != pids[0] {
			t.Errorf("tasks ran on workers %v: want one reused worker", pids)
			break
		}
	}
	daemonPid := p.daemon.pid
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	alloc.AssertSize(t, 0)
	checkNoLeaks(t, base, append(pids, daemonPid)...)
}
