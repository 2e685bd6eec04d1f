package query

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/weirhq/weir/flow"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/checkpoints"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Checkpointed queries on the wall clock (Pebble runs its own goroutines, so no synctest).

func bindExpr(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.Bind(name, args, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func bindAgg(t *testing.T, name string, args ...expr.Expr) expr.AggFunc {
	t.Helper()
	f, err := expr.BindAggregate(name, args, false, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// modCount is rate-micro-batch(rowsPerBatch) → groupBy(value % mod).agg(fn(value)).
func modCount(t *testing.T, rowsPerBatch string, mod int64, fn string) logical.Node {
	scan := rateScan(t, rowsPerBatch)
	vi := -1
	for i, f := range scan.Schema() {
		if f.Name == "value" {
			vi = i
		}
	}
	f := scan.Schema()[vi]
	value := &expr.Column{Index: vi, Name: f.Name, T: f.Type, Null: f.Nullable}
	key := bindExpr(t, "%", value, expr.NewLiteral(mod, sqltypes.LongType))
	var a expr.AggFunc
	if fn == "count" {
		a = bindAgg(t, "count", expr.NewLiteral(int64(1), sqltypes.LongType))
	} else {
		a = bindAgg(t, fn, value)
	}
	return &logical.Aggregate{Input: scan, Groups: []expr.Expr{key}, Aggs: []expr.AggFunc{a}, Names: []string{fn}}
}

// waitProgress waits until q reported at least n progress events.
func waitProgress(t *testing.T, q *Query, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(q.RecentProgress()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d progress events; exception %v", len(q.RecentProgress()), q.Exception())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// runProgress starts spec, lets it report n progress events, stops it (failing on its
// exception) and returns its progress events, parsed.
func runProgress(t *testing.T, m *Manager, spec Spec, n int) []map[string]any {
	t.Helper()
	q := start(t, m, spec)
	waitProgress(t, q, n)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if q.Exception() != nil {
		t.Fatal(q.Exception())
	}
	var ps []map[string]any
	for _, p := range q.RecentProgress() {
		ps = append(ps, progressOf(t, p))
	}
	return ps
}

// countsOf reads a (key, count) memory table.
func countsOf(t *testing.T, tb *sinks.MemoryTable) map[int64]int64 {
	t.Helper()
	out := map[int64]int64{}
	for _, r := range tb.Snapshot() {
		ks, cs := r.Column(0).(*array.Int64), r.Column(1).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			if _, dup := out[ks.Value(i)]; dup {
				t.Errorf("key %d twice in the result", ks.Value(i))
			}
			out[ks.Value(i)] = cs.Value(i)
		}
		r.Release()
	}
	return out
}

// expectedCounts is value % 10 counted over values 0..n-1.
func expectedCounts(n int64) map[int64]int64 {
	out := map[int64]int64{}
	for v := int64(0); v < n; v++ {
		out[v%10]++
	}
	return out
}

func lastBatch(t *testing.T, q *Query) int64 {
	t.Helper()
	p, ok := q.LastProgress()
	if !ok {
		t.Fatal("no progress")
	}
	return int64(progressOf(t, p)["batchId"].(float64))
}

func checkCounts(t *testing.T, got, want map[int64]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("counts %v, want %v", got, want)
		}
	}
}

// checkStopped checks the counts of a stopped query that committed n rows. Stop may come
// after the sink wrote an epoch (of `more` rows) and before it was committed: the table then
// shows that epoch too, and the next run re-runs it from the committed state.
func checkStopped(t *testing.T, got map[int64]int64, n, more int64) {
	t.Helper()
	if want := expectedCounts(n + more); got[0] == want[0] {
		checkCounts(t, got, want)
		return
	}
	checkCounts(t, got, expectedCounts(n))
}

func TestCheckpointedAggregateResumesExactly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	dir := filepath.Join(t.TempDir(), "cp")
	spec := Spec{Plan: modCount(t, "25", 10, "count"), Format: "memory", Name: "counts", OutputMode: flow.OutputComplete,
		Options: map[string]string{"CheckpointLocation": dir}}
	id := ""
	var runs []string
	next := int64(0)
	for run := range 3 {
		q := start(t, m, spec)
		if run == 0 {
			id = q.ID()
		} else if q.ID() != id {
			t.Fatalf("run %d has id %s, the checkpoint's is %s", run, q.ID(), id)
		}
		for _, r := range runs {
			if r == q.RunID() {
				t.Fatalf("run %d reuses run id %s", run, r)
			}
		}
		runs = append(runs, q.RunID())
		waitProgress(t, q, 3)
		first := int64(progressOf(t, q.RecentProgress()[0])["batchId"].(float64))
		if first != next {
			t.Fatalf("run %d starts at batch %d, want %d", run, first, next)
		}
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		last := lastBatch(t, q)
		// Stop may come after the sink wrote an epoch and before it was committed: the table
		// then shows that epoch too, and the next run re-runs it from the state of last.
		checkStopped(t, countsOf(t, reg.get("counts")), 25*(last+1), 25)
		p := progressOf(t, q.RecentProgress()[len(q.RecentProgress())-1])
		so := p["stateOperators"].([]any)[0].(map[string]any)
		if so["numRowsTotal"] != float64(10) || so["memoryUsedBytes"].(float64) <= 0 {
			t.Fatalf("state operator progress %v", so)
		}
		// Every epoch wrote its offsets record and the aggregate's snapshot (ten groups) to
		// the checkpoint.
		for _, raw := range q.RecentProgress() {
			written := progressOf(t, raw)["sink"].(map[string]any)["metrics"].(map[string]any)["checkpointBytesWritten"]
			if n, err := strconv.Atoi(fmt.Sprint(written)); err != nil || n < 100 {
				t.Fatalf("checkpoint bytes written %v in %s", written, raw)
			}
		}
		reg.get("counts").Release()
		next = last + 1
	}
	mem.AssertSize(t, 0)
}

func TestCheckpointReplaysAnUncommittedEpoch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	dir := filepath.Join(t.TempDir(), "cp")
	spec := Spec{Plan: modCount(t, "25", 10, "count"), Format: "memory", Name: "counts", OutputMode: flow.OutputComplete,
		Options: map[string]string{"checkpointLocation": dir}}
	q := start(t, m, spec)
	waitProgress(t, q, 2)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := lastBatch(t, q)
	reg.get("counts").Release()
	// A crash after logging epoch last+1's offsets and before its commit: the log says what
	// the epoch covers; the restart must run exactly that range under that id.
	prev := loggedRecords(t, dir)[last]
	// Twice the usual range: a range only the log can explain.
	rec := epochRecord{Epoch: last + 1, Start: prev.End, End: []sources.Offset{rateOffsetPlus(t, prev.End[0], 50, 2000)}}
	logEpoch(t, dir, rec)
	q = start(t, m, spec)
	waitProgress(t, q, 2)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := progressOf(t, q.RecentProgress()[0])
	src := p["sources"].([]any)[0].(map[string]any)
	if p["batchId"] != float64(last+1) || p["numInputRows"] != float64(50) ||
		src["startOffset"] != string(prev.End[0]) || src["endOffset"] != string(rec.End[0]) {
		t.Fatalf("replayed epoch progress %v", p)
	}
	total := 25*(last+1) + 50 + 25*(lastBatch(t, q)-last-1)
	checkStopped(t, countsOf(t, reg.get("counts")), total, 25)
	reg.get("counts").Release()
	mem.AssertSize(t, 0)
}

func TestCheckpointRefusesAnIncompatibleQuery(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	dir := filepath.Join(t.TempDir(), "cp")
	opts := map[string]string{"checkpointLocation": dir}
	q := start(t, m, Spec{Plan: modCount(t, "25", 10, "count"), Format: "memory", Name: "counts",
		OutputMode: flow.OutputComplete, Options: opts})
	waitProgress(t, q, 2)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := lastBatch(t, q)
	cases := []struct {
		plan logical.Node
		err  string
	}{
		{modCount(t, "25", 5, "count"), "[STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE] Provided key schema does not match existing state key schema. Please check number and type of fields. Existing key_schema=struct<(value % 10):bigint> and new key_schema=struct<(value % 5):bigint>."},
		{modCount(t, "25", 10, "max"), "[STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE] Provided value schema does not match existing state value schema."},
		{rateScan(t, "25"), "[STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA] Streaming stateful operator name does not match with the operator in state metadata."},
	}
	for _, c := range cases {
		mode := flow.OutputComplete
		if _, ok := c.plan.(*logical.SourceScan); ok {
			mode = flow.OutputAppend
		}
		_, err := m.Start(context.Background(), Spec{Plan: c.plan, Format: "memory", Name: "counts", OutputMode: mode,
			Options: opts})
		if err == nil || !strings.HasPrefix(err.Error(), c.err) {
			t.Fatalf("start: %v\nwant %s", err, c.err)
		}
	}
	// The checkpoint is untouched: the original query resumes after its last batch.
	q = start(t, m, Spec{Plan: modCount(t, "25", 10, "count"), Format: "memory", Name: "counts",
		OutputMode: flow.OutputComplete, Options: opts})
	waitProgress(t, q, 1)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := int64(progressOf(t, q.RecentProgress()[0])["batchId"].(float64)); got != last+1 {
		t.Fatalf("resumed at batch %d, want %d", got, last+1)
	}
}

func TestCheckpointLocationHasOneRun(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	defer m.StopAll()
	conf := map[string]string{CheckpointLocationConf: t.TempDir()}
	m.env.Conf = func(k string) (string, bool) { v, ok := conf[k]; return v, ok }
	spec := Spec{Plan: rateScan(t, "5"), Format: "noop", Name: "rates", OutputMode: flow.OutputAppend}
	q1 := start(t, m, spec)
	waitProgress(t, q1, 1)
	// The same session restarting the query stops the active run (Spark's default).
	q2 := start(t, m, spec)
	if !q1.terminated() || q1.Exception() != nil {
		t.Fatalf("the earlier run is still active (or failed: %v)", q1.Exception())
	}
	if q2.ID() != q1.ID() || q2.RunID() == q1.RunID() {
		t.Fatalf("ids %s/%s then %s/%s", q1.ID(), q1.RunID(), q2.ID(), q2.RunID())
	}
	// Another session cannot take it over.
	other := newTestManager(memory.NewGoAllocator())
	other.env.Conf = m.env.Conf
	other.env.Locations = m.env.Locations // two sessions of one server
	_, err := other.Start(context.Background(), spec)
	if err == nil || !strings.HasPrefix(err.Error(), "[CONCURRENT_QUERY] Cannot start query with checkpoint location "+
		filepath.Join(conf[CheckpointLocationConf], "rates")) {
		t.Fatalf("second session: %v", err)
	}
	if err := q2.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Once stopped, any session may run it.
	q3, err := other.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if q3.ID() != q1.ID() {
		t.Fatalf("id %s, want %s", q3.ID(), q1.ID())
	}
	if err := q3.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestRateSourceKeepsItsCreationTime(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	defer m.StopAll()
	dir := filepath.Join(t.TempDir(), "cp")
	opts := map[string]string{"rowsPerSecond": "100", "numPartitions": "1"}
	schema, err := connectors.StreamSchema("rate", opts, "")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Plan: &logical.SourceScan{Format: "rate", Options: opts, Out: schema, Streaming: true},
		Format: "noop", OutputMode: flow.OutputAppend, Options: map[string]string{"checkpointLocation": dir}}
	read := func() string {
		store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		b, ok, err := store.SourceMetadata(storeKey, 0)
		if err != nil || !ok {
			t.Fatalf("source metadata: %v %t", err, ok)
		}
		return string(b)
	}
	q := start(t, m, spec)
	waitProgress(t, q, 1)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := read()
	if !strings.HasPrefix(first, "v1\n") {
		t.Fatalf("rate metadata %q", first)
	}
	time.Sleep(20 * time.Millisecond)
	q = start(t, m, spec)
	waitProgress(t, q, 1)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again := read(); again != first {
		t.Fatalf("rate metadata changed: %q then %q", first, again)
	}
}

// logEpoch writes rec into the offsets log of the checkpoint at dir without a commit, as a
// crash after logging an epoch and before committing it leaves it.
func logEpoch(t *testing.T, dir string, rec epochRecord) {
	t.Helper()
	store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := encodeRecord(rec)
	if err == nil {
		err = store.WriteOffsets(storeKey, rec.Epoch, raw)
	}
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// rateOffsetPlus moves a rate-micro-batch offset n rows and ms milliseconds on.
func rateOffsetPlus(t *testing.T, o sources.Offset, n, ms int64) sources.Offset {
	t.Helper()
	var v struct {
		Offset    int64 `json:"offset"`
		Timestamp int64 `json:"timestamp"`
	}
	if err := json.Unmarshal(o, &v); err != nil {
		t.Fatal(err)
	}
	v.Offset += n
	v.Timestamp += ms
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckpointHeldByAnotherProcessIsRefused(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	defer m.StopAll()
	dir := filepath.Join(t.TempDir(), "cp")
	spec := Spec{Plan: rateScan(t, "5"), Format: "noop", OutputMode: flow.OutputAppend,
		Options: map[string]string{"checkpointLocation": dir}}
	q := start(t, m, spec)
	waitProgress(t, q, 1)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Another process holding the store shows as Pebble's lock.
	store, err := checkpoints.Open(filepath.Join(dir, pebbleDir))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, err = m.Start(context.Background(), spec)
	if err == nil || !strings.HasPrefix(err.Error(), "[CONCURRENT_QUERY] Cannot open checkpoint location "+dir) {
		t.Fatalf("start: %v", err)
	}
}

// A stateless change below the aggregate (a filter) renumbers the planner's nodes; the state
// still belongs to the aggregate and the counts continue exactly.
func TestCheckpointSurvivesAStatelessChange(t *testing.T) {
	m := newTestManager(memory.NewGoAllocator())
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	dir := filepath.Join(t.TempDir(), "cp")
	plan := modCount(t, "25", 10, "count").(*logical.Aggregate)
	opts := map[string]string{"checkpointLocation": dir}
	q := start(t, m, Spec{Plan: plan, Format: "memory", Name: "counts", OutputMode: flow.OutputComplete, Options: opts})
	waitProgress(t, q, 2)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg.get("counts").Release()
	scan := plan.Input
	vi := 1
	if scan.Schema()[0].Name == "value" {
		vi = 0
	}
	value := &expr.Column{Index: vi, Name: "value", T: sqltypes.LongType}
	filtered := *plan
	filtered.Input = &logical.Filter{Input: scan, Cond: bindExpr(t, ">=", value, expr.NewLiteral(int64(0), sqltypes.LongType))}
	q = start(t, m, Spec{Plan: &filtered, Format: "memory", Name: "counts", OutputMode: flow.OutputComplete, Options: opts})
	waitProgress(t, q, 2)
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkStopped(t, countsOf(t, reg.get("counts")), 25*(lastBatch(t, q)+1), 25)
	reg.get("counts").Release()
}
