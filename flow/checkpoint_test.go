package flow_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/operators"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The checkpoint harness runs scan(2 partitions) → hash exchange on k → streaming
// HashAggregate(k: count(1), sum(v), min(v), max(v)) on 2 partitions, with operator state saved
// in a checkpoints.Store on disk at every barrier. Commands:
//
//	start                 start the job (no restore)
//	push p=<partition> [retract]  push the input's "k v" lines from scan partition p
//	                      (as retractions of rows pushed before)
//	barrier epoch=<n>     every scan partition emits barrier n; prints what the job emitted up
//	                      to the barrier (both aggregate partitions) and the summed state metrics
//	commit epoch=<n>      wait until the job saved the epoch's state, then record the epoch's
//	                      commit (what the query does once the sink has it)
//	hold-saves            make state saves block (the barrier still goes on: saves are async)
//	release-saves         let held saves go on
//	saved epoch=<n>       whether every state save of epochs ≤ n finished within 200 ms
//	crash                 close the job and the store without committing anything more
//	restart               reopen the store and start the job restored at the last commit
//	end                   scan partitions end; prints the final emissions

type storeBackend struct {
	s *checkpoints.Store
	h *checkpointHarness
}

func (b storeBackend) Save(node string, p int, e int64, data []byte) error {
	b.h.mu.Lock()
	hold, crashed := b.h.hold, b.h.crashed
	b.h.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-crashed:
			return errors.New("crashed while saving")
		}
	}
	return b.s.PutState("q", node, p, e, data)
}

func (b storeBackend) Load(node string, p int, e int64) ([]byte, bool, error) {
	return b.s.State("q", node, p, e)
}

type step struct {
	rows    [][2]int64
	retract bool
	barrier int64
	end     bool
}

type checkpointHarness struct {
	t      *testing.T
	mem    *memory.CheckedAllocator
	dir    string
	store  *checkpoints.Store
	job    flow.Job
	feeds  [2]chan step
	mu     sync.Mutex
	states map[int64]flow.StateMetrics
	// hold, when set, blocks saves until closed; crashed is closed by crash.
	hold, crashed chan struct{}
}

var (
	inSchema  = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	aggSchema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64}, {Name: "sum", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "min", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "max", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
)

func (h *checkpointHarness) graph() *flow.Graph {
	scanSchema := flow.EventSchema(inSchema)
	scan := &flow.Node{Name: "Scan#1", Parallelism: 2, Schema: scanSchema, Source: flow.SourceFunc(
		func(ctx context.Context, env flow.Env, out flow.Emitter) error {
			for {
				var s step
				select {
				case s = <-h.feeds[env.Partition]:
				case <-ctx.Done():
					return ctx.Err()
				}
				switch {
				case s.end:
					return nil
				case s.rows != nil:
					kb, vb := array.NewInt64Builder(env.Mem), array.NewInt64Builder(env.Mem)
					for _, r := range s.rows {
						kb.Append(r[0])
						vb.Append(r[1])
					}
					k, v := kb.NewArray(), vb.NewArray()
					kb.Release()
					vb.Release()
					rb := array.NewBooleanBuilder(env.Mem)
					for range s.rows {
						rb.Append(s.retract)
					}
					r := rb.NewArray()
					rb.Release()
					rec := flow.NewDataBatch(env.Mem, scanSchema, []arrow.Array{k, v}, r)
					k.Release()
					v.Release()
					r.Release()
					if err := out.Emit(ctx, rec); err != nil {
						return err
					}
				default:
					if err := out.Emit(ctx, flow.NewMarkerBatch(env.Mem, scanSchema, flow.Marker{Kind: flow.MarkerBarrier, Epoch: s.barrier})); err != nil {
						return err
					}
				}
			}
		})}
	ectx := &expr.Context{Mem: h.mem, ANSI: true}
	k := &expr.Column{Index: 0, Name: "k", T: sqltypes.LongType}
	v := &expr.Column{Index: 1, Name: "v", T: sqltypes.LongType, Null: true}
	var aggs []expr.AggFunc
	for _, c := range []struct {
		name string
		arg  expr.Expr
	}{{"count", expr.NewLiteral(int64(1), sqltypes.LongType)}, {"sum", v}, {"min", v}, {"max", v}} {
		f, err := expr.BindAggregate(c.name, []expr.Expr{c.arg}, false, expr.Options{ANSI: true})
		if err != nil {
			h.t.Fatal(err)
		}
		aggs = append(aggs, f)
	}
	agg := &flow.Node{Name: "Aggregate#2", Parallelism: 2, Schema: flow.EventSchema(aggSchema),
		NewOperator: operators.HashAggregate(ectx, operators.AggregateSpec{KeyCols: []int{0},
			KeyTypes: []sqltypes.DataType{sqltypes.LongType}, Aggs: aggs, TZ: "UTC", Streaming: true}),
		Inputs: []flow.Input{{From: scan, Exchange: flow.Partition, Partitioner: operators.HashPartitioner(ectx, []expr.Expr{k})}}}
	return &flow.Graph{Output: agg}
}

func (h *checkpointHarness) start(restore int64, has bool) {
	h.feeds = [2]chan step{make(chan step, 16), make(chan step, 16)}
	h.states = map[int64]flow.StateMetrics{}
	h.crashed = make(chan struct{})
	cp := flow.Checkpointing{Backend: storeBackend{h.store, h}, Restore: restore, HasRestore: has,
		OnStateMetrics: func(_ string, _ int, epoch int64, m flow.StateMetrics) {
			h.mu.Lock()
			defer h.mu.Unlock()
			s := h.states[epoch]
			s.NumRowsTotal += m.NumRowsTotal
			s.NumRowsUpdated += m.NumRowsUpdated
			s.NumRowsRemoved += m.NumRowsRemoved
			s.MemoryUsedBytes += m.MemoryUsedBytes
			h.states[epoch] = s
		}}
	job, err := flow.NewLocalRunner(flow.WithAllocator(h.mem)).Start(context.Background(), h.graph(), flow.JobOptions{Checkpointing: cp})
	if err != nil {
		h.t.Fatal(err)
	}
	h.job = job
}

// collect reads the job's output until barrier epoch came from both partitions (or, for
// epoch < 0, until the job ends), returning the data rows sorted.
func (h *checkpointHarness) collect(epoch int64) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rows []string
	seen := 0
	for epoch < 0 || seen < 2 {
		rec, err := h.job.Next(ctx)
		if err != nil {
			if epoch < 0 && errors.Is(err, io.EOF) {
				break
			}
			h.t.Fatalf("job: %v", err)
		}
		m, isMarker, err := flow.MarkerOf(rec)
		if err != nil {
			h.t.Fatal(err)
		}
		if isMarker {
			if m.Kind == flow.MarkerBarrier && m.Epoch == epoch {
				seen++
			}
			rec.Release()
			continue
		}
		ret := flow.Retracted(rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			sign := "+"
			if ret.Value(i) {
				sign = "-"
			}
			var vals []string
			for c := flow.UserOffset; c < int(rec.NumCols()); c++ {
				col := rec.Column(c).(*array.Int64)
				if col.IsNull(i) {
					vals = append(vals, "null")
				} else {
					vals = append(vals, strconv.FormatInt(col.Value(i), 10))
				}
			}
			rows = append(rows, sign+" "+strings.Join(vals, " "))
		}
		rec.Release()
	}
	sort.Strings(rows)
	return rows
}

func (h *checkpointHarness) openStore() {
	s, err := checkpoints.Open(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	h.store = s
}

// waitSaved waits (up to d) until the job saved the state of every epoch ≤ epoch.
func (h *checkpointHarness) waitSaved(epoch int64, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return h.job.(flow.StateSaveWaiter).WaitSaved(ctx, epoch)
}

func (h *checkpointHarness) stop() {
	h.mu.Lock()
	if h.crashed != nil {
		close(h.crashed)
		h.crashed = nil
	}
	h.hold = nil
	h.mu.Unlock()
	if h.job != nil {
		h.job.Close()
		h.job = nil
	}
	if h.store != nil {
		if err := h.store.Close(); err != nil {
			h.t.Fatal(err)
		}
		h.store = nil
	}
}

func TestCheckpointHarness(t *testing.T) {
	datadriven.Walk(t, "testdata/checkpoint", func(t *testing.T, path string) {
		h := &checkpointHarness{t: t, mem: memory.NewCheckedAllocator(memory.NewGoAllocator()),
			dir: filepath.Join(t.TempDir(), "store")}
		defer func() {
			h.stop()
			h.mem.AssertSize(t, 0)
		}()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			arg := func(key string) int64 {
				for _, a := range d.CmdArgs {
					if a.Key == key {
						n, err := strconv.ParseInt(a.Vals[0], 10, 64)
						if err != nil {
							t.Fatal(err)
						}
						return n
					}
				}
				t.Fatalf("%s needs %s", d.Cmd, key)
				return 0
			}
			switch d.Cmd {
			case "start":
				h.openStore()
				h.start(0, false)
				return "started"
			case "push":
				var rows [][2]int64
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					var r [2]int64
					if _, err := fmt.Sscan(line, &r[0], &r[1]); err != nil {
						t.Fatalf("row %q: %v", line, err)
					}
					rows = append(rows, r)
				}
				h.feeds[arg("p")] <- step{rows: rows, retract: d.HasArg("retract")}
				return "ok"
			case "barrier":
				e := arg("epoch")
				for _, f := range h.feeds {
					f <- step{barrier: e}
				}
				out := h.collect(e)
				h.mu.Lock()
				s := h.states[e]
				h.mu.Unlock()
				out = append(out, fmt.Sprintf("state: total=%d updated=%d removed=%d memory>0=%t",
					s.NumRowsTotal, s.NumRowsUpdated, s.NumRowsRemoved, s.MemoryUsedBytes > 0))
				return strings.Join(out, "\n")
			case "commit":
				if err := h.waitSaved(arg("epoch"), 10*time.Second); err != nil {
					t.Fatal(err)
				}
				if err := h.store.Commit("q", arg("epoch")); err != nil {
					t.Fatal(err)
				}
				return "ok"
			case "hold-saves":
				h.mu.Lock()
				h.hold = make(chan struct{})
				h.mu.Unlock()
				return "ok"
			case "release-saves":
				h.mu.Lock()
				close(h.hold)
				h.hold = nil
				h.mu.Unlock()
				return "ok"
			case "saved":
				switch err := h.waitSaved(arg("epoch"), 200*time.Millisecond); {
				case err == nil:
					return "saved"
				case errors.Is(err, context.DeadlineExceeded):
					return "pending"
				default:
					return err.Error()
				}
			case "crash":
				h.stop()
				return "crashed"
			case "restart":
				h.openStore()
				c, ok, err := h.store.LastCommit("q")
				if err != nil {
					t.Fatal(err)
				}
				h.start(c, ok)
				if !ok {
					return "restarted without state"
				}
				return fmt.Sprintf("restarted at epoch %d", c)
			case "end":
				for _, f := range h.feeds {
					f <- step{end: true}
				}
				out := h.collect(-1)
				h.job.Close()
				h.job = nil
				return strings.Join(append(out, "ended"), "\n")
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}
