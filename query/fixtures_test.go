package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Test fixtures: a stream source whose latest offset a test moves ("querytest": the offset is
// the number of rows, row i has value i, spread over `partitions` partitions), and a sink that
// records committed rows per epoch ("querytestsink").

var testSchema = sqltypes.Schema{{Name: "value", Type: sqltypes.LongType}}

type testStream struct {
	mu         sync.Mutex
	latest     int64
	partitions int
	failLatest error
	failRead   error
	opened     int
	closed     int
}

func (s *testStream) set(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latest = n
}

var (
	testStreamsMu sync.Mutex
	testStreams   = map[string]*testStream{}
	testSinksMu   sync.Mutex
	testSinks     = map[string]*testSink{}
)

func newTestStream(t *testing.T, partitions int) (string, *testStream) {
	testStreamsMu.Lock()
	defer testStreamsMu.Unlock()
	id := t.Name() + "#" + strconv.Itoa(len(testStreams))
	s := &testStream{partitions: partitions}
	testStreams[id] = s
	return id, s
}

func init() {
	connectors.Register(connectors.Format{Name: "querytest", Stream: func(_ context.Context, env sources.StreamEnv, options map[string]string, _ string) (sources.StreamSource, error) {
		if msg, ok := options["open_error"]; ok {
			return nil, sparkerr.New(sparkerr.SparkException, "", "", msg)
		}
		testStreamsMu.Lock()
		s, ok := testStreams[options["id"]]
		testStreamsMu.Unlock()
		if !ok {
			return nil, sparkerr.IllegalArgument("unknown test stream %q", options["id"])
		}
		s.mu.Lock()
		s.opened++
		s.mu.Unlock()
		return &testSource{s: s, mem: env.Mem}, nil
	}, StreamSchema: func(map[string]string, string) (sqltypes.Schema, error) { return testSchema, nil }})
	connectors.Register(connectors.Format{Name: "querytestsink", Sink: func(env sinks.Env, options map[string]string) (sinks.Sink, error) {
		testSinksMu.Lock()
		defer testSinksMu.Unlock()
		s := &testSink{epochs: map[int64][]int64{}}
		testSinks[options["id"]] = s
		return s, nil
	}, OutputModes: []flow.OutputMode{flow.OutputAppend, flow.OutputUpdate, flow.OutputComplete}})
}

type testSource struct {
	s   *testStream
	mem memory.Allocator
}

func (t *testSource) Schema() sqltypes.Schema { return testSchema }
func (t *testSource) Partitions() int         { return t.s.partitions }
func (t *testSource) Description() string     { return "TestStream" }
func (t *testSource) Initial(context.Context) (sources.Offset, error) {
	return sources.Offset("0"), nil
}

func (t *testSource) Latest(context.Context) (sources.Offset, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if t.s.failLatest != nil {
		return nil, t.s.failLatest
	}
	return sources.Offset(strconv.FormatInt(t.s.latest, 10)), nil
}

func (t *testSource) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	t.s.mu.Lock()
	failRead := t.s.failRead
	t.s.mu.Unlock()
	if failRead != nil {
		return failRead
	}
	var from, to int64
	if err := json.Unmarshal(start, &from); err != nil {
		return err
	}
	if err := json.Unmarshal(end, &to); err != nil {
		return err
	}
	b := array.NewInt64Builder(t.mem)
	defer b.Release()
	for v := from; v < to; v++ {
		if int(v)%t.s.partitions == p {
			b.Append(v)
		}
	}
	col := b.NewArray()
	defer col.Release()
	if col.Len() == 0 {
		return nil
	}
	return emit(array.NewRecordBatch(sqltypes.ToArrowSchema(testSchema, "UTC"), []arrow.Array{col}, int64(col.Len())))
}

func (t *testSource) Close() error {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.s.closed++
	return nil
}

// testSink records, per committed epoch, the inserted values of the first (long) column.
type testSink struct {
	mu      sync.Mutex
	epochs  map[int64][]int64
	pending int64
}

func (s *testSink) Description() string    { return "TestSink" }
func (s *testSink) Parallelism(up int) int { return 1 }
func (s *testSink) OutputRows() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.pending
	s.pending = 0
	return n
}
func (s *testSink) NewOperator(flow.Env) (flow.Operator, error) { return &testSinkOp{s: s}, nil }

func (s *testSink) rows() map[int64][]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int64][]int64{}
	for k, v := range s.epochs {
		out[k] = append([]int64(nil), v...)
	}
	return out
}

type testSinkOp struct {
	s   *testSink
	cur []int64
}

func (o *testSinkOp) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	retracted := flow.Retracted(rec)
	col, ok := rec.Column(flow.UserOffset).(*array.Int64)
	if !ok {
		return fmt.Errorf("test sink: first column is %s", rec.Column(flow.UserOffset).DataType())
	}
	for i := 0; i < col.Len(); i++ {
		if !retracted.Value(i) {
			o.cur = append(o.cur, col.Value(i))
		}
	}
	return nil
}

func (o *testSinkOp) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.epochs[epoch] = append(o.s.epochs[epoch], o.cur...)
	o.s.pending += int64(len(o.cur))
	o.cur = nil
	return nil
}

func testSinkByID(id string) *testSink {
	testSinksMu.Lock()
	defer testSinksMu.Unlock()
	return testSinks[id]
}

// scan is a streaming scan of test stream id.
func scan(id string) *logical.SourceScan {
	return &logical.SourceScan{Format: "querytest", Options: map[string]string{"id": id}, Out: testSchema, Streaming: true}
}

func col0(n logical.Node) expr.Expr {
	f := n.Schema()[0]
	return &expr.Column{Index: 0, Name: f.Name, T: f.Type, Null: f.Nullable}
}

// recordingListener keeps every event.
type recordingListener struct {
	mu     sync.Mutex
	events []Event
}

func (l *recordingListener) OnEvent(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *recordingListener) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}
