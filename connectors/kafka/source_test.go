package kafka

import (
	"context"
	"fmt"
	"maps"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// newFakeKafka starts a kfake cluster with the topics (partitions each) and returns its
// bootstrap address.
func newFakeKafka(t *testing.T, partitions int32, topics ...string) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ",")
}

// produceKafka writes records (value "v", key "k" or nil) to topic/partition.
func produceKafka(t *testing.T, addr, topic string, partition int32, values ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range values {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v), Key: []byte("k" + v),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte(v)}}}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func openKafka(t *testing.T, mem memory.Allocator, opts map[string]string) sources.StreamSource {
	t.Helper()
	src, err := connectors.OpenStream(context.Background(), "kafka", sources.StreamEnv{Mem: mem, DefaultPartitions: 2, TimeZone: "UTC"}, opts, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// kafkaRows reads (start, end] on every partition and renders topic/partition/offset/key/value.
func kafkaRows(t *testing.T, src sources.StreamSource, start, end sources.Offset) []string {
	t.Helper()
	var rows []string
	for p := 0; p < src.Partitions(); p++ {
		err := src.Read(context.Background(), p, start, end, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			schema := src.Schema()
			for i := 0; i < int(rec.NumRows()); i++ {
				row := fmt.Sprintf("%v/%v/%v %s=%s", expr.ValueAt(rec.Column(2), i, schema[2].Type),
					expr.ValueAt(rec.Column(3), i, schema[3].Type), expr.ValueAt(rec.Column(4), i, schema[4].Type),
					expr.ValueAt(rec.Column(0), i, schema[0].Type), expr.ValueAt(rec.Column(1), i, schema[1].Type))
				if len(schema) > 7 {
					row += fmt.Sprintf(" %v", expr.ValueAt(rec.Column(7), i, schema[7].Type))
				}
				rows = append(rows, row)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

func sortedRows(rows []string) string {
	s := append([]string(nil), rows...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, "\n")
}

func TestKafkaSourceEarliestLatestAndRanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t1")
	produceKafka(t, addr, "t1", 0, "a", "b")
	produceKafka(t, addr, "t1", 1, "c")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t1",
		"startingOffsets": "earliest", "includeHeaders": "true"})
	if d := src.Description(); d != "KafkaV2[Subscribe[t1]]" {
		t.Fatalf("description %s", d)
	}
	ctx := context.Background()
	init, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(init) != `{"t1":{"0":0,"1":0}}` {
		t.Fatalf("initial %s", init)
	}
	latest, err := src.(sources.StartRelative).LatestFrom(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if string(latest) != `{"t1":{"0":2,"1":1}}` {
		t.Fatalf("latest %s", latest)
	}
	got := sortedRows(kafkaRows(t, src, init, latest))
	want := "t1/0/0 ka=a [[h [97]]]\nt1/0/1 kb=b [[h [98]]]\nt1/1/0 kc=c [[h [99]]]"
	if got != want {
		t.Fatalf("rows\n%s\nwant\n%s", got, want)
	}
	produceKafka(t, addr, "t1", 1, "d", "e")
	next, err := src.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedRows(kafkaRows(t, src, latest, next)); !strings.Contains(got, "t1/1/1 kd=d") || !strings.Contains(got, "t1/1/2 ke=e") || strings.Count(got, "\n") != 1 {
		t.Fatalf("second epoch rows\n%s", got)
	}
	// A replayed epoch reads the same rows.
	if again := sortedRows(kafkaRows(t, src, init, latest)); again != want {
		t.Fatalf("replay rows\n%s", again)
	}
}

func TestKafkaSourceLatestStartAndMaxOffsetsPerTrigger(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	produceKafka(t, addr, "t", 0, "old")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t"})
	ctx := context.Background()
	init, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(init) != `{"t":{"0":1,"1":0}}` {
		t.Fatalf("initial (latest) %s", init)
	}
	limited := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": `{"t":{"0":-2,"1":-1}}`, "maxOffsetsPerTrigger": "3"})
	start, err := limited.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	produceKafka(t, addr, "t", 0, "1", "2", "3", "4", "5")
	produceKafka(t, addr, "t", 1, "x", "y", "z", "w", "v")
	if string(start) != `{"t":{"0":0,"1":0}}` {
		t.Fatalf("specific start %s", start)
	}
	// Backlog 6 and 5 of 11: 3*6/11 = 1.6 -> 1, 3*5/11 = 1.36 -> 1.
	end, err := limited.(sources.StartRelative).LatestFrom(ctx, start)
	if err != nil {
		t.Fatal(err)
	}
	if string(end) != `{"t":{"0":1,"1":1}}` {
		t.Fatalf("rate limited end %s", end)
	}
	if got := sortedRows(kafkaRows(t, limited, start, end)); got != "t/0/0 kold=old\nt/1/0 kx=x" {
		t.Fatalf("limited rows\n%s", got)
	}
	// The lag after that epoch: the listed end offsets (6 and 5) minus what it read (1 and 1),
	// not the capped latest offset.
	got := limited.(sources.ReportsMetrics).Metrics(end)
	want := map[string]string{"minOffsetsBehindLatest": "4", "maxOffsetsBehindLatest": "5",
		"avgOffsetsBehindLatest": "4.5", "offsetsBehindLatest": `{"t":{"0":5,"1":4}}`}
	if !maps.Equal(got, want) {
		t.Fatalf("lag metrics %v, want %v", got, want)
	}
}

func TestKafkaSourcePatternDiscoversTopics(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 1, "events-a", "other")
	produceKafka(t, addr, "events-a", 0, "1")
	produceKafka(t, addr, "other", 0, "no")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribePattern": "events-.*",
		"startingOffsets": "earliest"})
	if d := src.Description(); d != "KafkaV2[SubscribePattern[events-.*]]" {
		t.Fatalf("description %s", d)
	}
	ctx := context.Background()
	init, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	adm, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if _, err := kadm.NewClient(adm).CreateTopic(ctx, 1, 1, nil, "events-b"); err != nil {
		t.Fatal(err)
	}
	if err := adm.ProduceSync(ctx, &kgo.Record{Topic: "events-b", Value: []byte("2")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	latest, err := src.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(latest), `"events-b":{"0":1}`) || strings.Contains(string(latest), "other") {
		t.Fatalf("latest %s", latest)
	}
	if got := sortedRows(kafkaRows(t, src, init, latest)); got != "events-a/0/0 k1=1\nevents-b/0/0 %!s(<nil>)=2" {
		t.Fatalf("rows\n%s", got)
	}
}

func TestKafkaSourceOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"subscribe": "t"}, "Option 'kafka.bootstrap.servers' must be specified"},
		{map[string]string{"kafka.bootstrap.servers": "h:1"}, "One of the following options must be specified for Kafka source"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "assign": `{"t":[0]}`}, "Only one of the following options can be specified"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": " "}, "No topics to subscribe to"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "assign": "t"}, "No topicpartitions to assign"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "kafka.auto.offset.reset": "x"}, "Kafka option 'auto.offset.reset' is not supported"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "kafka.value.deserializer": "x"}, "Kafka option 'value.deserializer' is not supported"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "endingOffsets": "latest"}, "ending offset not valid in streaming queries"},
		{map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "startingOffsets": "{bad"}, "Expected e.g."},
	} {
		_, err := connectors.StreamSchema("kafka", tc.opts, "")
		se, ok := sparkerr.As(err)
		if !ok || !strings.Contains(se.Message, tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
}

func TestKafkaSourceUnreachableFailsInTime(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// A refused connection and an address that never answers both fail within the API timeout.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, h := range held {
					h.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	for _, addr := range []string{"127.0.0.1:1", silent.Addr().String()} {
		src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
			"kafka.default.api.timeout.ms": "1500"})
		began := time.Now()
		_, err := src.Initial(context.Background())
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != kafkaTimeoutException || !strings.Contains(se.Message, addr) {
			t.Fatalf("error %v", err)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Fatalf("%s took %s", addr, d)
		}
	}
}

// kafkaRowsEmitter keeps the user columns' offsets of the data batches it gets.
type kafkaRowsEmitter struct {
	rows []string
}

func (c *kafkaRowsEmitter) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	user := flow.UserColumns(rec)
	defer user.Release()
	for i := 0; i < int(user.NumRows()); i++ {
		c.rows = append(c.rows, fmt.Sprintf("%v/%v=%s", expr.ValueAt(user.Column(3), i, sqltypes.IntegerType),
			expr.ValueAt(user.Column(4), i, sqltypes.LongType), expr.ValueAt(user.Column(1), i, sqltypes.BinaryType)))
	}
	return nil
}

func TestKafkaBatchReadsStartingToEndingOffsets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	produceKafka(t, addr, "t", 0, "a", "b", "c")
	produceKafka(t, addr, "t", 1, "x")
	if _, err := NewKafkaBatch(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "latest"}, "UTC"); err == nil || !strings.Contains(err.Error(), "starting offset can't be latest for batch queries") {
		t.Fatalf("latest start: %v", err)
	}
	b, err := NewKafkaBatch(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"endingOffsets": `{"t":{"0":2,"1":-1}}`}, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	event := flow.EventSchema(sqltypes.ToArrowSchema(b.Schema(), "UTC"))
	out := &kafkaRowsEmitter{}
	for p := 0; p < 2; p++ {
		if err := b.Run(context.Background(), flow.Env{Mem: mem, Partition: p, Partitions: 2, OutSchema: event}, out); err != nil {
			t.Fatal(err)
		}
	}
	if got := sortedRows(out.rows); got != "0/0=a\n0/1=b\n1/0=x" {
		t.Fatalf("rows\n%s", got)
	}
}

// A topic-partition whose range is complete is paused while the epoch waits for a slower one:
// its new records are not fetched into the reader's pending records meanwhile; the next epoch
// (reusing the reader) reads them.
func TestKafkaSourcePausesCompleteRanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	produceKafka(t, addr, "t", 0, "a", "b")
	produceKafka(t, addr, "t", 1, "x")
	src, err := connectors.OpenStream(context.Background(), "kafka", sources.StreamEnv{Mem: mem, DefaultPartitions: 1, TimeZone: "UTC"},
		map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t", "startingOffsets": "earliest"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	at := func(t0, t1 int64) sources.Offset { return encodeKafkaOffsets(kafkaOffsets{"t": {0: t0, 1: t1}}) }
	// Partition 1's range [0, 3) waits for two records produced after partition 0 received many
	// records past its complete range [0, 2).
	const late = 40
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		for i := 0; i < late; i++ {
			produceKafka(t, addr, "t", 0, fmt.Sprintf("late%02d", i))
		}
		time.Sleep(700 * time.Millisecond)
		produceKafka(t, addr, "t", 1, "y", "z")
	}()
	rows := sortedRows(kafkaRows(t, src, at(0, 0), at(2, 3)))
	<-done
	if want := "t/0/0 ka=a\nt/0/1 kb=b\nt/1/0 kx=x\nt/1/1 ky=y\nt/1/2 kz=z"; rows != want {
		t.Fatalf("rows\n%s\nwant\n%s", rows, want)
	}
	rd := keptReaders(src)[0]
	if rd == nil {
		t.Fatal("no kept reader")
	}
	if n := len(rd.pending); n >= late/2 {
		t.Fatalf("%d records of the complete partition fetched while the epoch waited", n)
	}
	if paused := rd.cl.PauseFetchPartitions(nil); len(paused) != 0 {
		t.Fatalf("the kept reader left %v paused", paused)
	}
	next := sortedRows(kafkaRows(t, src, at(2, 3), at(2+late, 3)))
	if got := strings.Count(next, "\n") + 1; got != late || !strings.Contains(next, "t/0/2 klate00=late00") ||
		!strings.Contains(next, fmt.Sprintf("t/0/%d klate%02d=late%02d", 1+late, late-1, late-1)) {
		t.Fatalf("next epoch reads %d rows\n%s", got, next)
	}
	if again := keptReaders(src)[0]; again != rd {
		t.Fatal("the next epoch opened a new reader")
	}
}
