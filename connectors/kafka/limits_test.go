package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// produceAt writes value records to topic/partition with the given create times (ms).
func produceAt(t *testing.T, addr, topic string, partition int32, at map[string]int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range sortedKeys(at) {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v), Timestamp: time.UnixMilli(at[v])}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedKeys(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if m[ks[j]] < m[ks[i]] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

// batchRows runs a KafkaBatch on two partitions and returns partition/offset=value rows.
func batchRows(t *testing.T, mem memory.Allocator, opts map[string]string) ([]string, error) {
	t.Helper()
	b, err := NewKafkaBatch(opts, "UTC")
	if err != nil {
		return nil, err
	}
	event := flow.EventSchema(sqltypes.ToArrowSchema(b.Schema(), "UTC"))
	out := &kafkaRowsEmitter{}
	for p := 0; p < 2; p++ {
		if err := b.Run(context.Background(), flow.Env{Mem: mem, Partition: p, Partitions: 2, OutSchema: event}, out); err != nil {
			return nil, err
		}
	}
	return out.rows, nil
}

func TestKafkaTimestampPositions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	produceAt(t, addr, "t", 0, map[string]int64{"a": 1000, "b": 2000, "c": 3000})
	produceAt(t, addr, "t", 1, map[string]int64{"x": 1500, "y": 2500})
	base := func(kv ...string) map[string]string {
		m := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		opts []string
		want string
	}{
		{[]string{"startingTimestamp", "2000"}, "0/1=b\n0/2=c\n1/1=y"},
		{[]string{"startingTimestamp", "1200", "endingTimestamp", "2500"}, "0/1=b\n1/0=x"},
		{[]string{"startingOffsetsByTimestamp", `{"t":{"0":3000,"1":0}}`, "endingOffsetsByTimestamp", `{"t":{"0":9999,"1":2000}}`},
			"0/2=c\n1/0=x"},
		// No record at or after 9000 on any partition: Spark's "latest" strategy starts at the end.
		{[]string{"startingTimestamp", "9000", "startingOffsetsByTimestampStrategy", "latest"}, ""},
	} {
		rows, err := batchRows(t, mem, base(tc.opts...))
		if err != nil {
			t.Fatalf("%v: %v", tc.opts, err)
		}
		if got := sortedRows(rows); got != tc.want {
			t.Errorf("%v: rows\n%s\nwant\n%s", tc.opts, got, tc.want)
		}
	}
	for _, tc := range []struct {
		opts      []string
		javaClass string
		want      string
	}{
		{[]string{"startingTimestamp", "9000"}, sparkerr.IllegalArgumentException,
			"No offset matched from request of topic-partition t-0 and timestamp 9000."},
		{[]string{"startingOffsetsByTimestamp", `{"t":{"0":1000}}`}, sources.IllegalStateException,
			"Partitions specified for Kafka timestamp based start offsets don't match what are assigned. Maybe topic " +
				"partitions are created \nor deleted while the query is running, or you didn't specify all the partitions.\n" +
				"Specified: Set(t-0) Assigned: Set(t-0, t-1)"},
		{[]string{"startingOffsets", `{"t":{"0":1}}`}, sources.IllegalStateException,
			"Partitions specified for Kafka start offsets don't match what are assigned. Maybe topic partitions are created \n" +
				"or deleted while the query is running. Use -1 for latest, -2 for earliest.\nSpecified: Set(t-0) Assigned: Set(t-0, t-1)"},
		{[]string{"startingOffsets", `{"t":{"0":3,"1":0}}`, "endingTimestamp", "1000"}, sources.IllegalStateException,
			"The resolved start offset 3 is greater than the resolved end offset 0 for topic t partition 0.\nThere may be multiple reasons:"},
	} {
		_, err := batchRows(t, mem, base(tc.opts...))
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != tc.javaClass || !strings.HasPrefix(se.Message, tc.want) {
			t.Errorf("%v: got %v, want %s %q", tc.opts, err, tc.javaClass, tc.want)
		}
	}
	// A stream starting at a timestamp.
	src := openKafka(t, mem, base("startingTimestamp", "2500"))
	init, err := src.Initial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(init) != `{"t":{"0":2,"1":1}}` {
		t.Fatalf("initial offsets at timestamp 2500: %s", init)
	}
}

func TestKafkaBatchOptionErrors(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		opts  map[string]string
		class string
		want  string
	}{
		{base("startingOffsets", "latest"), "", "starting offset can't be latest for batch queries on Kafka"},
		{base("startingOffsets", `{"t":{"0":-1}}`), "", "startingOffsets for t-0 can't be latest for batch queries on Kafka"},
		{base("endingOffsets", "earliest"), "", "ending offset can't be earliest for batch queries on Kafka"},
		{base("endingOffsets", `{"t":{"0":-2}}`), "", "ending offset for t-0 can't be earliest for batch queries on Kafka"},
		{base("startingOffsets", `{"t":{"0":1}}`, "endingOffsets", `{"t":{"0":5,"1":5}}`),
			"MISMATCHED_TOPIC_PARTITIONS_BETWEEN_START_OFFSET_AND_END_OFFSET",
			"The specified start offset and end offset should have the same topic-partitions.\n" +
				"Topic-partitions for start offset: Set(t-0), topic-partitions for end offset: Set(t-0, t-1)."},
		{base("startingOffsets", `{"t":{"0":7}}`, "endingOffsets", `{"t":{"0":5}}`),
			"UNRESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET",
			"The specified start offset 7 is greater than the end offset 5 for topic t partition 0."},
		{base("startingOffsetsByTimestamp", `{"t":{"0":70}}`, "endingOffsetsByTimestamp", `{"t":{"0":50}}`),
			"UNRESOLVED_START_OFFSET_GREATER_THAN_END_OFFSET",
			"The specified start timestamp 70 is greater than the end timestamp 50 for topic t partition 0."},
		{base("startingTimestamp", "soon"), "", "Expected a single long value, got soon"},
		{base("endingOffsetsByTimestamp", "{"), "", "Expected e.g. {\"topicA\": {\"0\": 123456789, \"1\": 123456789},\n" +
			"\"topicB\": {\"0\": 123456789, \"1\": 123456789}}, got {"},
		{base("startingTimestamp", "1", "startingOffsetsByTimestampStrategy", "nearest"), "", "No value found for 'NEAREST'"},
		{base("minPartitions", "0"), "", "minPartitions must be positive"},
		{base("maxRecordsPerPartition", "-3"), "", "maxRecordsPerPartition must be positive"},
		{base("kafka.security.protocol", "SSL", "kafka.ssl.truststore.type", "JKS", "kafka.ssl.truststore.location", "/x.jks"),
			"", "Kafka option ssl.truststore.type=JKS is not supported"},
	} {
		_, err := NewKafkaBatch(tc.opts, "UTC")
		se, ok := sparkerr.As(err)
		if !ok || se.Class != tc.class || !strings.HasPrefix(se.Message, tc.want) {
			t.Errorf("%v: got %v (class %q), want %q %q", tc.opts, err, se.Class, tc.class, tc.want)
		}
	}
	// Streams refuse ending positions; minOffsetsPerTrigger may not exceed maxOffsetsPerTrigger.
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{base("endingOffsetsByTimestamp", `{"t":{"0":1}}`), "ending timestamp not valid in streaming queries"},
		{base("minOffsetsPerTrigger", "10", "maxOffsetsPerTrigger", "5"), "The value of minOffsetPerTrigger(10) is higher than the maxOffsetsPerTrigger(5)."},
		{base("maxTriggerDelay", "soon"), "Time must be specified as seconds (s)"},
	} {
		_, err := connectors.StreamSchema("kafka", tc.opts, "")
		if se, ok := sparkerr.As(err); !ok || !strings.HasPrefix(se.Message, tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if ms, err := timeStringAsMs("15m"); err != nil || ms != 900000 {
		t.Fatalf("15m = %d ms, %v", ms, err)
	}
	if ms, err := timeStringAsMs("250"); err != nil || ms != 250 {
		t.Fatalf("250 = %d ms, %v", ms, err)
	}
}

func TestKafkaMinOffsetsPerTrigger(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t")
	mock := clock.NewMock()
	mock.Set(time.Unix(1_000_000, 0))
	src, err := connectors.OpenStream(context.Background(), "kafka", sources.StreamEnv{Mem: mem, Clock: mock, DefaultPartitions: 2, TimeZone: "UTC"},
		map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t", "startingOffsets": "earliest",
			"minOffsetsPerTrigger": "4", "maxTriggerDelay": "30s", "maxOffsetsPerTrigger": "6"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx := context.Background()
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latestFrom := func(from sources.Offset) string {
		t.Helper()
		o, err := src.(sources.StartRelative).LatestFrom(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		return string(o)
	}
	produceKafka(t, addr, "t", 0, "1")
	// The first trigger always lets an epoch through (Spark's lastTriggerMillis starts at 0).
	first := latestFrom(start)
	if first != `{"t":{"0":1,"1":0}}` {
		t.Fatalf("first epoch end %s", first)
	}
	produceKafka(t, addr, "t", 1, "2", "3")
	// 2 < 4 offsets available and 10s < 30s since the last epoch: no epoch.
	mock.Add(10 * time.Second)
	if got := latestFrom(sources.Offset(first)); got != first {
		t.Fatalf("delayed epoch ended at %s, want its start %s", got, first)
	}
	produceKafka(t, addr, "t", 0, "4", "5")
	// 4 available: the epoch goes.
	mock.Add(time.Second)
	second := latestFrom(sources.Offset(first))
	if second != `{"t":{"0":3,"1":2}}` {
		t.Fatalf("second epoch end %s", second)
	}
	produceKafka(t, addr, "t", 0, "6")
	mock.Add(29 * time.Second)
	if got := latestFrom(sources.Offset(second)); got != second {
		t.Fatalf("epoch before maxTriggerDelay ended at %s", got)
	}
	// maxTriggerDelay passed since the last epoch: the single available offset goes.
	mock.Add(time.Second)
	if got := latestFrom(sources.Offset(second)); got != `{"t":{"0":4,"1":2}}` {
		t.Fatalf("epoch after maxTriggerDelay ended at %s", got)
	}
	// maxOffsetsPerTrigger still caps an epoch that minOffsetsPerTrigger lets through.
	produceKafka(t, addr, "t", 0, "7", "8", "9", "10", "11", "12", "13", "14")
	mock.Add(time.Second)
	if got := latestFrom(sources.Offset(`{"t":{"0":4,"1":2}}`)); got != `{"t":{"0":10,"1":2}}` {
		t.Fatalf("capped epoch ended at %s", got)
	}
}
