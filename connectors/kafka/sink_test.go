package kafka

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var kafkaTestSchema = sqltypes.Schema{
	{Name: "key", Type: sqltypes.StringType, Nullable: true},
	{Name: "value", Type: sqltypes.StringType, Nullable: true},
	{Name: "partition", Type: sqltypes.IntegerType, Nullable: true},
}

func newKafkaCluster(t *testing.T, topic string, partitions int32) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

// kafkaSinkHarness drives one partition of a Kafka sink as the runtime does.
type kafkaSinkHarness struct {
	t     *testing.T
	mem   *memory.CheckedAllocator
	op    flow.Operator
	event *arrow.Schema
}

func newKafkaSinkHarness(t *testing.T, options map[string]string) *kafkaSinkHarness {
	t.Helper()
	return newQuerySinkHarness(t, "", options)
}

// newQuerySinkHarness is newKafkaSinkHarness for a sink of the query with id queryID.
func newQuerySinkHarness(t *testing.T, queryID string, options map[string]string) *kafkaSinkHarness {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := connectors.NewSink("kafka", sinks.Env{Mode: flow.OutputAppend, Schema: kafkaTestSchema, TimeZone: "UTC", QueryID: queryID}, options)
	if err != nil {
		t.Fatal(err)
	}
	h := &kafkaSinkHarness{t: t, mem: mem, event: flow.EventSchema(sqltypes.ToArrowSchema(kafkaTestSchema, "UTC"))}
	if h.op, err = s.NewOperator(flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: h.event}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.op.(flow.Closer).Close()
		mem.AssertSize(t, 0)
	})
	return h
}

// push sends rows (key, value, partition) to the operator.
func (h *kafkaSinkHarness) push(rows ...[]any) {
	h.t.Helper()
	sinktest.PushRows(h.t, h.mem, h.op, h.event, kafkaTestSchema, rows...)
}

// tryPush is push returning the operator's error.
func (h *kafkaSinkHarness) tryPush(rows ...[]any) error {
	h.t.Helper()
	c := &processError{Operator: h.op}
	sinktest.PushRows(h.t, h.mem, c, h.event, kafkaTestSchema, rows...)
	return c.err
}

// processError keeps the error of Process instead of returning it.
type processError struct {
	flow.Operator
	err error
}

func (c *processError) Process(ctx context.Context, in int, rec arrow.RecordBatch, out flow.Emitter) error {
	c.err = c.Operator.Process(ctx, in, rec, out)
	return nil
}

func (h *kafkaSinkHarness) barrier(epoch int64) error {
	return h.op.(flow.BarrierHandler).Barrier(context.Background(), epoch, nil)
}

// readTopic returns the records of topic visible to a reader with the isolation level, as
// "partition:key=value" sorted.
func readTopic(t *testing.T, addr, topic string, committed bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admCl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	var listed kadm.ListedOffsets
	if committed {
		listed, err = adm.ListCommittedOffsets(ctx, topic)
	} else {
		listed, err = adm.ListEndOffsets(ctx, topic)
	}
	if err != nil {
		t.Fatal(err)
	}
	ends := map[int32]int64{}
	parts := map[int32]kgo.Offset{}
	listed.Each(func(l kadm.ListedOffset) {
		if l.Offset > 0 {
			ends[l.Partition] = l.Offset
			parts[l.Partition] = kgo.NewOffset().AtStart()
		}
	})
	var out []string
	if len(parts) == 0 {
		return out
	}
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: parts})}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for len(ends) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s: %v (left %v)", topic, ctx.Err(), ends)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := ends[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				out = append(out, itoa(int(r.Partition))+":"+string(r.Key)+"="+string(r.Value))
			}
			if r.Offset+1 >= end {
				delete(ends, r.Partition)
			}
		})
	}
	sort.Strings(out)
	return out
}

func TestKafkaSinkExactlyOnceSkipsReplayedEpoch(t *testing.T) {
	addr := newKafkaCluster(t, "out", 2)
	cp := filepath.Join(t.TempDir(), "cp")
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": "out", "checkpointLocation": cp}
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", int32(0)}, []any{"b", "2", int32(1)})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1 1:b=2" {
		t.Fatalf("epoch 0: %s", got)
	}
	// A restart replays epoch 0 (its checkpoint commit was lost), then runs epoch 1.
	again := newKafkaSinkHarness(t, opts)
	again.push([]any{"a", "1", int32(0)}, []any{"b", "2", int32(1)})
	if err := again.barrier(0); err != nil {
		t.Fatal(err)
	}
	again.push([]any{"c", "3", nil})
	if err := again.barrier(1); err != nil {
		t.Fatal(err)
	}
	got := readTopic(t, addr, "out", true)
	joined := strings.Join(got, " ")
	if len(got) != 3 || !strings.Contains(joined, "0:a=1") || !strings.Contains(joined, "1:b=2") || !strings.Contains(joined, ":c=3") {
		t.Fatalf("after replay: %v", got)
	}
	markers := readTopic(t, addr, "__weir_kafka_sink_commits", true)
	if len(markers) != 2 || !strings.HasSuffix(markers[0], "-0=0") || !strings.HasSuffix(markers[1], "-0=1") {
		t.Fatalf("markers %v", markers)
	}
}

func TestKafkaSinkAbortsFailedEpoch(t *testing.T) {
	addr := newKafkaCluster(t, "out", 1)
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"checkpointLocation": filepath.Join(t.TempDir(), "cp"), "kafka.delivery.timeout.ms": "3000"}
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", int32(0)}, []any{"b", "2", int32(7)}) // partition 7 does not exist
	if err := h.barrier(0); err == nil {
		t.Fatal("epoch 0 with a row for a missing partition committed")
	}
	if got := readTopic(t, addr, "out", true); len(got) != 0 {
		t.Fatalf("read_committed sees %v of an aborted epoch", got)
	}
	if got := readTopic(t, addr, "__weir_kafka_sink_commits", true); len(got) != 0 {
		t.Fatalf("markers of an aborted epoch: %v", got)
	}
}

func TestKafkaSinkAtLeastOnce(t *testing.T) {
	addr := newKafkaCluster(t, "out", 1)
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": "out", "exactlyOnce": "false",
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{nil, "1", nil}, []any{"k", "2", nil})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", false), " "); got != "0:=1 0:k=2" {
		t.Fatalf("rows %s", got)
	}
}

// Append mode produces rows as they arrive: an at-least-once reader sees them before the
// barrier; exactly-once rows are in the epoch's open transaction, visible to read_committed
// readers only after the barrier commits it.
func TestKafkaSinkProducesRowsAsTheyArrive(t *testing.T) {
	addr := newKafkaCluster(t, "out", 1)
	waitFor := func(committed bool, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := strings.Join(readTopic(t, addr, "out", committed), " ")
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("read (committed %v) sees %q, want %q", committed, got, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cp := filepath.Join(t.TempDir(), "cp")
	least := newKafkaSinkHarness(t, map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"exactlyOnce": "false", "checkpointLocation": cp})
	least.push([]any{"a", "1", nil})
	waitFor(false, "0:a=1")
	if err := least.barrier(0); err != nil {
		t.Fatal(err)
	}
	exact := newKafkaSinkHarness(t, map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"checkpointLocation": cp + "2"})
	exact.push([]any{"b", "2", nil})
	waitFor(false, "0:a=1 0:b=2")
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1" {
		t.Fatalf("read_committed sees %q before the barrier", got)
	}
	if err := exact.barrier(0); err != nil {
		t.Fatal(err)
	}
	waitFor(true, "0:a=1 0:b=2")
}

// A sink closed mid-epoch (the query stopped) aborts the epoch's open transaction: read_committed
// readers are not held back until it times out.
func TestKafkaSinkCloseAbortsOpenTransaction(t *testing.T) {
	addr := newKafkaCluster(t, "out", 1)
	h := newKafkaSinkHarness(t, map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")})
	h.push([]any{"a", "1", nil})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	h.push([]any{"b", "2", nil})
	op := h.op.(*kafkaOperator)
	if err := op.cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	offsets := func() (stable, end int64) {
		t.Helper()
		ctx := context.Background()
		s, err := adm.ListCommittedOffsets(ctx, "out")
		if err != nil {
			t.Fatal(err)
		}
		e, err := adm.ListEndOffsets(ctx, "out")
		if err != nil {
			t.Fatal(err)
		}
		ls, _ := s.Lookup("out", 0)
		le, _ := e.Lookup("out", 0)
		return ls.Offset, le.Offset
	}
	if stable, end := offsets(); stable >= end {
		t.Fatalf("before Close: last stable offset %d, end %d: no open transaction", stable, end)
	}
	op.Close()
	if stable, end := offsets(); stable != end {
		t.Fatalf("after Close: last stable offset %d, end %d: the transaction is still open", stable, end)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1" {
		t.Fatalf("read_committed sees %q", got)
	}
}

func TestKafkaSinkValidation(t *testing.T) {
	str, bin, i32 := sqltypes.StringType, sqltypes.BinaryType, sqltypes.IntegerType
	for _, tc := range []struct {
		schema sqltypes.Schema
		opts   map[string]string
		want   string
	}{
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, "checkpointLocation must be specified"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "topic": "t"}, "Option 'kafka.bootstrap.servers' must be specified"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1"}, "topic option required when no 'topic' attribute is present"},
		{sqltypes.Schema{{Name: "key", Type: bin}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t"}, "Required attribute 'value' not found"},
		{sqltypes.Schema{{Name: "value", Type: i32}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t"}, "value attribute type must be a String or Binary"},
		{sqltypes.Schema{{Name: "value", Type: str}, {Name: "partition", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t"}, "partition attribute type must be an Int"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t", "kafka.value.serializer": "x"}, "Kafka option 'value.serializer' is not supported"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t", "kafka.acks": "most"}, "Invalid value most for configuration acks: String must be one of: all, -1, 0, 1"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t", "kafka.compression.type": "brotli"}, "Invalid value brotli for configuration compression.type"},
		{sqltypes.Schema{{Name: "value", Type: str}}, map[string]string{"checkpointLocation": "/tmp/x", "kafka.bootstrap.servers": "h:1", "topic": "t", "exactlyOnce.redoMaxBytes": "-1"}, "exactlyOnce.redoMaxBytes must be non-negative"},
	} {
		_, err := connectors.NewSink("kafka", sinks.Env{Mode: flow.OutputAppend, Schema: tc.schema}, tc.opts)
		se, ok := sparkerr.As(err)
		if !ok || !strings.Contains(se.Message, tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// testBroker returns a broker with topic (partitions): the real Kafka broker named by
// KAFKA_BOOTSTRAP (scripts/kafka-broker.sh) when set, with a fresh topic, otherwise kfake.
func testBroker(t *testing.T, topic string, partitions int32) (addr, name string) {
	t.Helper()
	addr = os.Getenv("KAFKA_BOOTSTRAP")
	if addr == "" {
		return newKafkaCluster(t, topic, partitions), topic
	}
	name = topic + "-" + sources.RandomID()[:8]
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, partitions, 1, nil, name); err != nil {
		t.Fatal(err)
	}
	return addr, name
}

func TestKafkaSinkTransactionalIDFromQueryID(t *testing.T) {
	cp := filepath.Join(t.TempDir(), "cp")
	opts := map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t", "checkpointLocation": cp}
	h := newQuerySinkHarness(t, "0f8e6d2c-query", opts)
	if id := h.op.(*kafkaOperator).txnID; id != "weir-0f8e6d2c-query-0" {
		t.Fatalf("transactional id %q", id)
	}
	// Another checkpoint location with the same query id (a moved checkpoint) keeps the ids.
	opts["checkpointLocation"] = filepath.Join(t.TempDir(), "moved")
	if id := newQuerySinkHarness(t, "0f8e6d2c-query", opts).op.(*kafkaOperator).txnID; id != "weir-0f8e6d2c-query-0" {
		t.Fatalf("transactional id after a move %q", id)
	}
	opts["kafka.transactional.id"] = "mine"
	if id := newQuerySinkHarness(t, "0f8e6d2c-query", opts).op.(*kafkaOperator).txnID; id != "mine-0" {
		t.Fatalf("user transactional id %q", id)
	}
}

// A restarted run fences the previous run's producer: the zombie's open transaction is
// aborted when the new producer initializes, and its late commit fails; readers with
// read_committed see every epoch once.
func TestKafkaSinkFencesZombie(t *testing.T) {
	addr, topic := testBroker(t, "fence", 1)
	queryID := "fence-" + sources.RandomID()
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": topic,
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	old := newQuerySinkHarness(t, queryID, opts)
	old.push([]any{"a", "0", nil})
	if err := old.barrier(0); err != nil {
		t.Fatal(err)
	}
	// The old run is in the middle of epoch 1 (its rows produced into the epoch's open
	// transaction) when it is taken for dead.
	zombie := old.op.(*kafkaOperator)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	old.push([]any{"zombie", "late", nil})
	if err := zombie.cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// The new run replays epoch 1 and goes on to epoch 2.
	run := newQuerySinkHarness(t, queryID, opts)
	run.push([]any{"b", "1", nil})
	if err := run.barrier(1); err != nil {
		t.Fatal(err)
	}
	if err := old.barrier(1); err == nil {
		t.Fatal("the fenced producer's late commit succeeded")
	}
	// A zombie that starts a whole new epoch fails too (producing its rows or at the barrier).
	if err := old.tryPush([]any{"z", "2", nil}); err == nil {
		if err := old.barrier(2); err == nil {
			t.Fatal("the fenced producer committed an epoch")
		}
	}
	run.push([]any{"c", "2", nil})
	if err := run.barrier(2); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, topic, true), " "); got != "0:a=0 0:b=1 0:c=2" {
		t.Fatalf("read_committed sees %s", got)
	}
}

func TestKafkaBatchWrite(t *testing.T) {
	addr := newKafkaCluster(t, "out", 2)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s, err := connectors.NewBatchSink(context.Background(), "kafka", sinks.Env{Schema: kafkaTestSchema, TimeZone: "UTC"}, sinks.SaveErrorIfExists,
		map[string]string{"kafka.bootstrap.servers": addr, "topic": "out"})
	if err != nil {
		t.Fatal(err)
	}
	event := flow.EventSchema(sqltypes.ToArrowSchema(kafkaTestSchema, "UTC"))
	var ops []flow.Operator
	for p := 0; p < s.Parallelism(2); p++ {
		op, err := s.NewOperator(flow.Env{Mem: mem, Partition: p, Partitions: 2, OutSchema: event})
		if err != nil {
			t.Fatal(err)
		}
		if op.(interface{ Unwrap() flow.Operator }).Unwrap().(*kafkaOperator).txnID != "" {
			t.Fatal("a batch write is transactional")
		}
		ops = append(ops, op)
	}
	h := &kafkaSinkHarness{t: t, mem: mem, event: event}
	for p, rows := range [][][]any{{{"a", "1", int32(0)}, {nil, "2", int32(1)}}, {{"c", "3", int32(1)}}} {
		h.op = ops[p]
		h.push(rows...)
	}
	for _, op := range ops {
		if err := op.(flow.EndOfDataHandler).EndOfData(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		op.(flow.Closer).Close()
	}
	if err := s.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := s.OutputRows(); n != 3 {
		t.Fatalf("output rows %d", n)
	}
	if got := strings.Join(readTopic(t, addr, "out", false), " "); got != "0:a=1 1:=2 1:c=3" {
		t.Fatalf("records %s", got)
	}
}

// kafka.* producer options reach the producer (through the translation shared with the
// source): compressed, lingering, acks=all transactional writes read back intact.
func TestKafkaSinkProducerOptions(t *testing.T) {
	addr := newKafkaCluster(t, "out", 1)
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"checkpointLocation": filepath.Join(t.TempDir(), "cp"), "kafka.compression.type": "zstd",
		"kafka.linger.ms": "5", "kafka.acks": "all", "kafka.client.id": "weir-sink-test"}
	h := newQuerySinkHarness(t, "opts", opts)
	if n := len(h.op.(*kafkaOperator).sink.clientOpts); n < 5 {
		t.Fatalf("%d translated client options", n)
	}
	h.push([]any{"a", strings.Repeat("x", 3000), nil}, []any{"b", "2", nil})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a="+strings.Repeat("x", 3000)+" 0:b=2" {
		t.Fatalf("records %.80s", got)
	}
}

// A run killed while partition 1's transaction of epoch 0 was open (its marker written, not
// committed) after partition 0 committed epoch 0: the restarted run replays epoch 0, and
// partition 0 must still see its own committed marker, which lies after the open transaction
// (beyond the commit topic's last stable offset until the zombie is fenced).
func TestKafkaSinkOpenTransactionOfAnotherPartition(t *testing.T) {
	addr, topic := testBroker(t, "cross", 2)
	queryID := "cross-" + sources.RandomID()
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": topic,
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	epoch0 := [][][]any{{{"a", "1", int32(0)}}, {{"b", "2", int32(1)}}}
	old := newPartitionHarnesses(t, queryID, opts, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Partition 1 of the old run: its epoch 0 transaction holds its row and marker, uncommitted.
	zombie := old[1].op.(*kafkaOperator)
	if err := zombie.start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := zombie.cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*kgo.Record{{Topic: topic, Partition: 1, Key: []byte("b"), Value: []byte("2")},
		{Topic: zombie.sink.commitTopic, Partition: 0, Key: []byte(zombie.txnID), Value: []byte("0")}} {
		if err := zombie.cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// Partition 0 of the old run commits epoch 0; then the run dies.
	old[0].push(epoch0[0]...)
	if err := old[0].barrier(0); err != nil {
		t.Fatal(err)
	}
	run := newPartitionHarnesses(t, queryID, opts, 2)
	errs := make(chan error, 2)
	for p, h := range run {
		h.push(epoch0[p]...)
		go func() { errs <- h.barrier(0) }()
	}
	for range run {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(readTopic(t, addr, topic, true), " "); got != "0:a=1 1:b=2" {
		t.Fatalf("read_committed sees %s", got)
	}
}

// newPartitionHarnesses drives partitions 0..n-1 of one Kafka sink.
func newPartitionHarnesses(t *testing.T, queryID string, options map[string]string, n int) []*kafkaSinkHarness {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	s, err := connectors.NewSink("kafka", sinks.Env{Mode: flow.OutputAppend, Schema: kafkaTestSchema, TimeZone: "UTC", QueryID: queryID}, options)
	if err != nil {
		t.Fatal(err)
	}
	event := flow.EventSchema(sqltypes.ToArrowSchema(kafkaTestSchema, "UTC"))
	var out []*kafkaSinkHarness
	for _, op := range sinktest.NewOperators(t, mem, s, n, event) {
		out = append(out, &kafkaSinkHarness{t: t, mem: mem, op: op, event: event})
	}
	return out
}

// Another query's open transaction on the shared commit topic, opened before this query's
// marker of epoch 1: the restarted run, replaying epoch 1, waits until that transaction ends
// (here: commits a moment later) instead of reading only the markers before it, and skips the
// epoch.
func TestKafkaSinkWaitsForForeignOpenTransaction(t *testing.T) {
	addr, topic := testBroker(t, "foreign", 1)
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": topic,
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	queryID := "after-foreign-" + sources.RandomID()
	first := newQuerySinkHarness(t, queryID, opts)
	first.push([]any{"a", "1", nil})
	if err := first.barrier(0); err != nil {
		t.Fatal(err)
	}
	foreign, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("foreign-"+sources.RandomID()))
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	if err := foreign.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	marker := &kgo.Record{Topic: "__weir_kafka_sink_commits", Partition: 0, Key: []byte("foreign-0"), Value: []byte("7")}
	if err := foreign.ProduceSync(ctx, marker).FirstErr(); err != nil {
		t.Fatal(err)
	}
	first.push([]any{"b", "2", nil})
	if err := first.barrier(1); err != nil {
		t.Fatal(err)
	}
	again := newQuerySinkHarness(t, queryID, opts)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_ = foreign.EndTransaction(context.Background(), kgo.TryCommit)
	}()
	began := time.Now()
	// The first row starts the run (its rows are produced as they arrive).
	again.push([]any{"b", "2", nil})
	if err := again.barrier(1); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(began); waited < 250*time.Millisecond {
		t.Fatalf("the restarted run read the markers after %v, before the open transaction ended", waited)
	}
	if got := strings.Join(readTopic(t, addr, topic, true), " "); got != "0:a=1 0:b=2" {
		t.Fatalf("read_committed sees %s", got)
	}
}

// Another transaction, open on the commit topic when the sink starts reading the markers, is
// aborted while the sink waits for it: the read (which never gets the aborted marker) ends at
// the abort's control record, past the end offset it listed, instead of waiting for the
// aborted offset until it times out.
func TestKafkaSinkReadsMarkersAfterAbortedTail(t *testing.T) {
	addr, topic := testBroker(t, "tail", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	aborted, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("aborted-"+sources.RandomID()))
	if err != nil {
		t.Fatal(err)
	}
	defer aborted.Close()
	if _, err := kadm.NewClient(aborted).CreateTopic(ctx, 1, -1, nil, "__weir_kafka_sink_commits"); err != nil &&
		!errors.Is(err, kerr.TopicAlreadyExists) {
		t.Fatal(err)
	}
	if err := aborted.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	marker := &kgo.Record{Topic: "__weir_kafka_sink_commits", Partition: 0, Key: []byte("aborted-0"), Value: []byte("3")}
	if err := aborted.ProduceSync(ctx, marker).FirstErr(); err != nil {
		t.Fatal(err)
	}
	h := newQuerySinkHarness(t, "tail-"+sources.RandomID(), map[string]string{"kafka.bootstrap.servers": addr,
		"topic": topic, "checkpointLocation": filepath.Join(t.TempDir(), "cp"), "kafka.delivery.timeout.ms": "3000"})
	abortErr := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		abortErr <- aborted.EndTransaction(ctx, kgo.TryAbort)
	}()
	h.push([]any{"a", "1", nil}) // the first row starts the run (reading the markers)
	if err := <-abortErr; err != nil {
		t.Fatal(err)
	}
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, topic, true), " "); got != "0:a=1" {
		t.Fatalf("read_committed sees %q", got)
	}
}

// Under a continuous trigger the sink defaults to at-least-once (rows visible as produced, as
// Spark's continuous Kafka sink); an explicit exactlyOnce option wins under any trigger.
func TestKafkaSinkExactlyOnceDefaultByTrigger(t *testing.T) {
	base := map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "topic": "out", "checkpointLocation": "/tmp/cp"}
	for _, tc := range []struct {
		continuous bool
		option     string
		want       bool
	}{
		{false, "", true}, {true, "", false}, {true, "true", true}, {true, "TRUE", true},
		{false, "false", false}, {true, "false", false},
	} {
		opts := map[string]string{}
		for k, v := range base {
			opts[k] = v
		}
		if tc.option != "" {
			opts["exactlyOnce"] = tc.option
		}
		s, err := connectors.NewSink("kafka", sinks.Env{Mode: flow.OutputAppend, Schema: kafkaTestSchema, TimeZone: "UTC", QueryID: "q", Continuous: tc.continuous}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*kafkaSink).exactlyOnce; got != tc.want {
			t.Errorf("continuous %v, exactlyOnce option %q: exactlyOnce %v, want %v", tc.continuous, tc.option, got, tc.want)
		}
	}
}
