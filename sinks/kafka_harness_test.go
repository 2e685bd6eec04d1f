package sinks

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sqltypes"
)

// pushRows and newOperators are sinktest.PushRows and sinktest.NewOperators for the Kafka sink
// tests, which still live in package sinks (an internal test cannot import sinktest).

func pushRows(t *testing.T, mem memory.Allocator, op flow.Operator, event *arrow.Schema, schema sqltypes.Schema, rows ...[]any) {
	t.Helper()
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = expr.BuildArray(mem, f.Type, "UTC", vals)
	}
	rec := flow.NewDataBatch(mem, event, cols, nil)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	if err := op.Process(context.Background(), 0, rec, nil); err != nil {
		t.Fatal(err)
	}
}

func newOperators(t *testing.T, mem *memory.CheckedAllocator, s Sink, partitions int, event *arrow.Schema) []flow.Operator {
	t.Helper()
	n := s.Parallelism(partitions)
	var ops []flow.Operator
	for p := 0; p < n; p++ {
		op, err := s.NewOperator(flow.Env{Mem: mem, Partition: p, Partitions: n, OutSchema: event})
		if err != nil {
			t.Fatal(err)
		}
		ops = append(ops, op)
	}
	t.Cleanup(func() {
		for _, op := range ops {
			op.(flow.Closer).Close()
		}
		mem.AssertSize(t, 0)
	})
	return ops
}
