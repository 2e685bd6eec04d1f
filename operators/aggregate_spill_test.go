package operators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

// spillAggCase is one configuration of TestAggregateSpillSameOutput.
type spillAggCase struct {
	name     string
	keys     []int // input columns: 0 k (long), 1 s (string), 2 ts (timestamp)
	complete bool
	append   bool
	// eventTime is the position among keys of the event-time key (-1: none).
	eventTime int
}

var spillAggCases = []spillAggCase{
	{name: "update", keys: []int{0, 1}, eventTime: -1},
	{name: "complete", keys: []int{1, 0}, complete: true, eventTime: -1},
	{name: "update-watermark", keys: []int{2, 0}, eventTime: 0},
	{name: "append-watermark", keys: []int{0, 2}, append: true, eventTime: 1},
}

// spillAggInput is the input schema: k long, s string, ts timestamp, v long.
var spillAggInput = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true},
	{Name: "s", Type: sqltypes.StringType, Nullable: true}, {Name: "ts", Type: sqltypes.TimestampType, Nullable: true},
	{Name: "v", Type: sqltypes.LongType, Nullable: true}}

// spillAggFactory builds the case's aggregate (count(1), sum(v), max(v), min(s), avg(v)) with
// the budget, and its output schema's types.
func spillAggFactory(t *testing.T, mem memory.Allocator, c spillAggCase, budget state.Budget) (Factory, flow.Env, []sqltypes.DataType) {
	t.Helper()
	in := spillAggInput
	calls := []struct {
		name string
		arg  int
	}{{"count", -1}, {"sum", 3}, {"max", 3}, {"min", 1}, {"avg", 3}}
	spec := AggregateSpec{TZ: "UTC", Streaming: true, Complete: c.complete, Append: c.append, Budget: budget}
	var out sqltypes.Schema
	for _, k := range c.keys {
		spec.KeyCols = append(spec.KeyCols, k)
		spec.KeyTypes = append(spec.KeyTypes, in[k].Type)
		out = append(out, in[k])
	}
	for _, call := range calls {
		var args []expr.Expr
		if call.arg < 0 {
			args = []expr.Expr{expr.NewLiteral(int64(1), sqltypes.LongType)}
		} else {
			args = []expr.Expr{&expr.Column{Index: call.arg, Name: in[call.arg].Name, T: in[call.arg].Type, Null: true}}
		}
		f, err := expr.BindAggregate(call.name, args, false, expr.Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		spec.Aggs = append(spec.Aggs, f)
		out = append(out, sqltypes.Field{Name: f.String(), Type: f.Type(), Nullable: true})
	}
	if c.eventTime >= 0 {
		spec.EventTime = &EventTimeKey{Key: c.eventTime, Evict: !c.complete}
	}
	var types []sqltypes.DataType
	for _, f := range out {
		types = append(types, f.Type)
	}
	env := flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(out)}
	return HashAggregate(&expr.Context{Mem: mem, ANSI: true}, spec), env, types
}

// spillAggRun is one aggregate instance under test and what it emitted since last read.
type spillAggRun struct {
	factory Factory
	env     flow.Env
	op      flow.Operator
	out     *collectRows
}

func (r *spillAggRun) start(t *testing.T) {
	t.Helper()
	op, err := r.factory(r.env)
	if err != nil {
		t.Fatal(err)
	}
	r.op = op
}

// take returns the rows emitted since the last call, sorted.
func (r *spillAggRun) take() []string {
	lines := r.out.lines
	r.out.lines = nil
	slices.Sort(lines)
	return lines
}

// TestAggregateSpillSameOutput runs, for each output mode, the same random input (inserts,
// retractions, barriers, watermarks, snapshot and restore, captures encoded after the instance
// moved on) through an aggregate without a budget and one with a tiny budget, and checks they
// emit the same rows at every step, that the budgeted one spilled, leaked no Arrow memory and
// left no scratch store behind.
func TestAggregateSpillSameOutput(t *testing.T) {
	seed := randomSeed(t)
	for ci, c := range spillAggCases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(ci)))
			dir := t.TempDir()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			budget := state.Budget{MemoryBytes: 1 + rng.Int64N(20000), Dir: dir}
			t.Logf("budget %d bytes", budget.MemoryBytes)
			var runs [2]*spillAggRun
			for i, b := range []state.Budget{{}, budget} {
				f, env, types := spillAggFactory(t, mem, c, b)
				runs[i] = &spillAggRun{factory: f, env: env, out: &collectRows{types: types}}
				runs[i].start(t)
			}
			defer func() {
				for _, r := range runs {
					r.op.(flow.Closer).Close()
				}
			}()
			ctx := context.Background()
			compare := func(step int, what string) {
				t.Helper()
				a, b := runs[0].take(), runs[1].take()
				if !slices.Equal(a, b) {
					t.Fatalf("step %d (%s): with a budget\n%s\nwithout\n%s", step, what, strings.Join(b, "\n"), strings.Join(a, "\n"))
				}
			}
			var live [][]any // inserted rows not retracted yet
			wm := int64(0)
			maxSpilled := int64(0)
			for step := 0; step < 400; step++ {
				switch op := rng.IntN(20); {
				case op < 12:
					var rows [][]any
					var ret []bool
					for range 1 + rng.IntN(30) {
						if len(live) > 0 && rng.IntN(5) == 0 {
							i := rng.IntN(len(live))
							rows = append(rows, live[i])
							live = append(live[:i], live[i+1:]...)
							ret = append(ret, true)
							continue
						}
						k := int64(rng.IntN(150))
						row := []any{k, "s" + strconv.Itoa(int(k%7)), (wm/1e6 + int64(rng.IntN(40)) - 5) * 1e6, int64(rng.IntN(1000) - 300)}
						if rng.IntN(20) == 0 {
							row[3] = nil
						}
						rows = append(rows, row)
						ret = append(ret, false)
						live = append(live, row)
					}
					for _, r := range runs {
						rec := spillAggBatch(mem, rows, ret)
						err := r.op.Process(ctx, 0, rec, r.out)
						rec.Release()
						if err != nil {
							t.Fatal(err)
						}
					}
				case op < 16:
					// The metrics (read before the barrier's emission) agree but for memory and the
					// spill's size, which only the run with a budget has.
					a, b := runs[0].op.(flow.StateReporter).StateMetrics(), runs[1].op.(flow.StateReporter).StateMetrics()
					if a.SpillBytes != 0 || (b.SpillBytes > 0) != (runs[1].op.(*hashAggregate).spill != nil && runs[1].op.(*hashAggregate).spill.tail.spill != nil) {
						t.Fatalf("step %d: spill bytes %d without a budget, %d with", step, a.SpillBytes, b.SpillBytes)
					}
					a.MemoryUsedBytes, b.MemoryUsedBytes, a.SpillBytes, b.SpillBytes = 0, 0, 0, 0
					if a != b {
						t.Fatalf("step %d: state metrics with a budget %+v, without %+v", step, b, a)
					}
					for _, r := range runs {
						if err := r.op.(flow.BarrierHandler).Barrier(ctx, int64(step), r.out); err != nil {
							t.Fatal(err)
						}
					}
					compare(step, "barrier")
					for _, r := range runs {
						if o := r.op.(*hashAggregate).old; len(o.chunks) != 0 {
							t.Fatalf("step %d: %d captures of old rows left after the barrier", step, len(o.chunks))
						}
					}
					maxSpilled = max(maxSpilled, runs[1].op.(*hashAggregate).spill.tail.spilled)
				case op < 18:
					if c.eventTime < 0 {
						continue
					}
					wm += int64(rng.IntN(8)) * 1e6
					for _, r := range runs {
						if err := r.op.(flow.WatermarkHandler).Watermark(ctx, wm, r.out); err != nil {
							t.Fatal(err)
						}
					}
					compare(step, "watermark")
				default:
					// Snapshot at a barrier, restore into fresh instances; half the time the
					// capture is encoded after the instances processed more input.
					for _, r := range runs {
						if err := r.op.(flow.BarrierHandler).Barrier(ctx, int64(step), r.out); err != nil {
							t.Fatal(err)
						}
					}
					compare(step, "barrier before the snapshot")
					late := rng.IntN(2) == 0
					var data [2][]byte
					var captures [2]flow.StateCapture
					for i, r := range runs {
						capture, err := r.op.(flow.StateCapturer).CaptureState(int64(step))
						if err != nil {
							t.Fatal(err)
						}
						captures[i] = capture
					}
					if late && len(live) > 0 {
						// Rows the restored instances never see: feed them to the old ones only.
						rows := [][]any{live[0], {int64(rng.IntN(150)), "sx", wm + 20e6, int64(1)}}
						for _, r := range runs {
							rec := spillAggBatch(mem, rows, []bool{true, false})
							err := r.op.Process(ctx, 0, rec, r.out)
							rec.Release()
							if err != nil {
								t.Fatal(err)
							}
						}
					}
					for i, r := range runs {
						var err error
						data[i], err = captures[i].Encode()
						captures[i].Release()
						if err != nil {
							t.Fatal(err)
						}
						r.op.(flow.Closer).Close()
						r.start(t)
						if err := r.op.(flow.Snapshotter).RestoreState(data[i]); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			for _, r := range runs {
				if err := r.op.(flow.EndOfDataHandler).EndOfData(ctx, r.out); err != nil {
					t.Fatal(err)
				}
			}
			compare(-1, "end of data")
			if maxSpilled == 0 {
				t.Errorf("nothing spilled with a budget of %d bytes", budget.MemoryBytes)
			}
			t.Logf("up to %d groups spilled", maxSpilled)
			for _, r := range runs {
				r.op.(flow.Closer).Close()
			}
			runs[0].start(t)
			runs[1].start(t)
			assertEmptyDir(t, dir)
		})
	}
}

// spillAggBatch builds an input batch of spillAggInput rows.
func spillAggBatch(mem memory.Allocator, rows [][]any, ret []bool) arrow.RecordBatch {
	cols := make([]arrow.Array, len(spillAggInput))
	for c, f := range spillAggInput {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = expr.BuildArray(mem, f.Type, "UTC", vals)
	}
	defer releaseAll(cols)
	r := boolArray(mem, ret)
	defer r.Release()
	return flow.NewDataBatch(mem, eventSchema(spillAggInput), cols, r)
}

// A restored aggregate whose snapshot holds spilled groups, with no budget now, loads them all
// into memory; with a budget, memory keeps what fits and the rest stays spilled.
func TestAggregateSpillRestoreBudgetChange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := spillAggCases[0]
	dir := t.TempDir()
	f, env, types := spillAggFactory(t, mem, c, state.Budget{MemoryBytes: 2000, Dir: dir})
	op, err := f(env)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for k := range 1000 {
		rows = append(rows, []any{int64(k), fmt.Sprint("s", k), int64(0), int64(k)})
	}
	rec := spillAggBatch(mem, rows, make([]bool, len(rows)))
	out := &collectRows{types: types}
	if err := op.Process(context.Background(), 0, rec, out); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := op.(flow.BarrierHandler).Barrier(context.Background(), 1, out); err != nil {
		t.Fatal(err)
	}
	a := op.(*hashAggregate)
	if a.spill.tail.spilled == 0 || len(a.counts)+int(a.spill.tail.spilled) != 1000 {
		t.Fatalf("%d groups in memory, %d spilled", len(a.counts), a.spill.tail.spilled)
	}
	data, err := op.(flow.Snapshotter).SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	op.(flow.Closer).Close()
	unlimited, uenv, _ := spillAggFactory(t, mem, c, state.Budget{})
	for _, b := range []struct {
		f   Factory
		env flow.Env
	}{{unlimited, uenv}, {f, env}} {
		r, err := b.f(b.env)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.(flow.Snapshotter).RestoreState(data); err != nil {
			t.Fatal(err)
		}
		ra := r.(*hashAggregate)
		spilled := int64(0)
		if ra.spill != nil {
			spilled = ra.spill.tail.spilled
			// The spill's filter alone outgrows this budget: memory keeps no group.
			if spilled != 1000 || len(ra.counts) != 0 {
				t.Errorf("restored with a budget: %d spilled, %d groups in memory", spilled, len(ra.counts))
			}
		}
		if m := r.(flow.StateReporter).StateMetrics(); m.NumRowsTotal != 1000 || int64(len(ra.counts))+spilled != 1000 {
			t.Errorf("restored %d groups (%d in memory)", m.NumRowsTotal, len(ra.counts))
		}
		// Every group is found again: one more row each makes count 2.
		rec := spillAggBatch(mem, rows, make([]bool, len(rows)))
		if err := r.Process(context.Background(), 0, rec, out); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		out.lines = nil
		if err := r.(flow.BarrierHandler).Barrier(context.Background(), 2, out); err != nil {
			t.Fatal(err)
		}
		if len(out.lines) != 2000 {
			t.Fatalf("%d rows emitted, want 1000 retractions and 1000 inserts", len(out.lines))
		}
		for _, l := range out.lines {
			if l[0] == '+' && !strings.Contains(l, ", 2, ") {
				t.Fatalf("emitted %s, want count 2", l)
			}
		}
		r.(flow.Closer).Close()
	}
	assertEmptyDir(t, dir)
}

// BenchmarkAggregateBudget runs 40 epochs of 50K rows (count, sum) over 200K keys, 80% of the
// rows on 10% of the keys (the hot set), without a budget, with 2 MiB (memory keeps about half
// the hot set) and with 8 MiB (the hot set and some more); it reports rows/s and the groups
// spilled at the end.
func BenchmarkAggregateBudget(b *testing.B) {
	for _, budget := range []int64{0, 2 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			mem := memory.NewGoAllocator()
			in := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
			rng := rand.New(rand.NewPCG(1, 2))
			const keys, epochs, rows = 200_000, 40, 50_000
			var batches []arrow.RecordBatch
			for range epochs {
				vals := make([]int64, rows)
				for i := range vals {
					if rng.IntN(10) < 8 {
						vals[i] = rng.Int64N(keys / 10)
					} else {
						vals[i] = rng.Int64N(keys)
					}
				}
				ib := array.NewInt64Builder(mem)
				ib.AppendValues(vals, nil)
				a := ib.NewArray()
				ib.Release()
				batches = append(batches, flow.NewDataBatch(mem, flow.EventSchema(in), []arrow.Array{a}, nil))
				a.Release()
			}
			b.ResetTimer()
			var spilled int64
			for range b.N {
				op := aggregateWithBudget(b, mem, state.Budget{MemoryBytes: budget, Dir: b.TempDir()})
				for e, rec := range batches {
					if err := op.Process(context.Background(), 0, rec, nil); err != nil {
						b.Fatal(err)
					}
					if err := op.(flow.BarrierHandler).Barrier(context.Background(), int64(e), discard{}); err != nil {
						b.Fatal(err)
					}
				}
				if s := op.(*hashAggregate).spill; s != nil {
					spilled = s.tail.spilled
				}
				op.(flow.Closer).Close()
			}
			b.ReportMetric(float64(epochs*rows*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(spilled), "spilled")
			for _, r := range batches {
				r.Release()
			}
		})
	}
}

// Spilling at a barrier brings the memory part under the budget: the groups kept no longer
// hold on to the key batches they came in (their keys are copied), and what left memory is in
// the store.
func TestAggregateSpillFreesMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const budget = 200_000
	op := aggregateWithBudget(t, mem, state.Budget{MemoryBytes: budget, Dir: t.TempDir()})
	defer op.(flow.Closer).Close()
	keys := make([]int64, 20_000)
	for i := range keys {
		keys[i] = int64(i)
	}
	pushKeys(t, mem, op, keys...)
	a := op.(*hashAggregate)
	before := a.memoryBytes()
	if err := op.(flow.BarrierHandler).Barrier(context.Background(), 1, discard{}); err != nil {
		t.Fatal(err)
	}
	after := a.memoryBytes()
	if before <= budget || after > budget || a.spill.tail.spilled == 0 || int(a.spill.tail.spilled)+len(a.counts) != len(keys) {
		t.Fatalf("memory %d bytes before the barrier, %d after (budget %d); %d groups spilled, %d kept",
			before, after, budget, a.spill.tail.spilled, len(a.counts))
	}
	if b := arraysBytes(a.table.batches[0]); b > int64(16*len(a.counts)+1024) {
		t.Fatalf("%d kept keys hold %d bytes of key columns", len(a.counts), b)
	}
}

// aggregateWithBudget builds a streaming count/sum aggregate over a long key k with a budget.
func aggregateWithBudget(tb testing.TB, mem memory.Allocator, budget state.Budget) flow.Operator {
	tb.Helper()
	k := &expr.Column{Index: 0, Name: "k", T: sqltypes.LongType}
	var aggs []expr.AggFunc
	for _, name := range []string{"count", "sum"} {
		f, err := expr.BindAggregate(name, []expr.Expr{k}, false, expr.Options{ANSI: true})
		if err != nil {
			tb.Fatal(err)
		}
		aggs = append(aggs, f)
	}
	out := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64}, {Name: "sum", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	op, err := HashAggregate(&expr.Context{Mem: mem, ANSI: true}, AggregateSpec{KeyCols: []int{0},
		KeyTypes: []sqltypes.DataType{sqltypes.LongType}, Aggs: aggs, TZ: "UTC", Streaming: true, Budget: budget})(
		flow.Env{Mem: mem, Partitions: 1, OutSchema: out})
	if err != nil {
		tb.Fatal(err)
	}
	return op
}
