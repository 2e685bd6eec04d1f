// Package sinktest drives sinks in tests as the runtime does: it builds a sink's operators,
// pushes rows, sends barriers and EndOfData, and checks the allocator is balanced when the test
// ends. Connector packages use it from their _test files; it imports only the sink contracts.
package sinktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// BatchHarness drives a batch sink's partitions as the engine's write job does: rows, then
// EndOfData on every partition, then Finish.
type BatchHarness struct {
	T      *testing.T
	Mem    *memory.CheckedAllocator
	Schema sqltypes.Schema
	Sink   sinks.BatchSink
	Ops    []flow.Operator
	Event  *arrow.Schema
}

// NewBatchHarness builds format's batch sink for a write in mode (nil harness and error: there
// is nothing to write).
func NewBatchHarness(t *testing.T, format string, schema sqltypes.Schema, partitions int, mode sinks.SaveMode,
	options map[string]string, partitionBy ...string) (*BatchHarness, error) {
	t.Helper()
	return NewBatchHarnessEnv(t, format, sinks.Env{Schema: schema, TimeZone: "UTC", PartitionBy: partitionBy}, partitions, mode, options)
}

// NewBatchHarnessEnv is NewBatchHarness with a whole sink Env.
func NewBatchHarnessEnv(t *testing.T, format string, env sinks.Env, partitions int, mode sinks.SaveMode,
	options map[string]string) (*BatchHarness, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := connectors.NewBatchSink(context.Background(), format, env, mode, options)
	if err != nil || s == nil {
		return nil, err
	}
	schema := env.Schema
	h := &BatchHarness{T: t, Mem: mem, Schema: schema, Sink: s, Event: flow.EventSchema(sqltypes.ToArrowSchema(schema, "UTC"))}
	h.Ops = NewOperators(t, mem, s, partitions, h.Event)
	return h, nil
}

// Push sends rows (values in schema order) to partition p as one data batch.
func (h *BatchHarness) Push(p int, rows ...[]any) {
	h.T.Helper()
	PushRows(h.T, h.Mem, h.Ops[p], h.Event, h.Schema, rows...)
}

// End ends every partition's input and finishes the write.
func (h *BatchHarness) End() error {
	for _, op := range h.Ops {
		if err := op.(flow.EndOfDataHandler).EndOfData(context.Background(), nil); err != nil {
			return err
		}
	}
	return h.Sink.Finish(context.Background())
}

// PushRows sends rows (values in schema order) to op as one data batch.
func PushRows(t *testing.T, mem memory.Allocator, op flow.Operator, event *arrow.Schema, schema sqltypes.Schema, rows ...[]any) {
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

// NewOperators builds a sink's operators for upstream partitions, closed (and the allocator
// checked) when the test ends.
func NewOperators(t *testing.T, mem *memory.CheckedAllocator, s sinks.Sink, partitions int, event *arrow.Schema) []flow.Operator {
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

// ListDir returns the sorted names in dir.
func ListDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// ErrText renders an error as the sink tests expect it: "error: <Java class>: <message>\n" for
// a sparkerr.Error, "error: <message>\n" otherwise.
func ErrText(err error) string {
	var se *sparkerr.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("error: %s: %s\n", se.JavaClass, se.Error())
	}
	return "error: " + err.Error() + "\n"
}

// KeyedSchema is the schema of KeyedBatch: one nullable bigint column k.
var KeyedSchema = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}

// KeyedBatch is a flow-event batch of keys; retract marks every row a retraction.
func KeyedBatch(mem memory.Allocator, keys []int64, retract bool) arrow.RecordBatch {
	vals := make([]any, len(keys))
	flags := make([]bool, len(keys))
	for i, k := range keys {
		vals[i] = k
		flags[i] = retract
	}
	col := expr.BuildArray(mem, sqltypes.LongType, "UTC", vals)
	defer col.Release()
	b := array.NewBooleanBuilder(mem)
	b.AppendValues(flags, nil)
	ret := b.NewArray()
	b.Release()
	defer ret.Release()
	return flow.NewDataBatch(mem, flow.EventSchema(sqltypes.ToArrowSchema(KeyedSchema, "UTC")), []arrow.Array{col}, ret)
}

// KeysOf returns the keys of records of KeyedSchema's user columns.
func KeysOf(recs []arrow.RecordBatch) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Column(0).(*array.Int64).Int64Values()...)
	}
	return out
}
