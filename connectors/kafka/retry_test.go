package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The Kafka source rides out the transient errors of a broker restart or a leader election
// (the Java client's retries) and fails with a TimeoutException naming the last error once
// they outlast the timeout.
func TestKafkaSourceRetriesTransientErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := strings.Join(c.ListenAddrs(), ",")
	produceKafka(t, addr, "t", 0, "a", "b", "c")
	produceKafka(t, addr, "t", 1, "x")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "earliest"})
	ctx := context.Background()
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latestFrom := func() (sources.Offset, error) { return src.(sources.StartRelative).LatestFrom(ctx, start) }

	// A partition without a leader, then one whose leader moved, while listing offsets.
	faults := c.Fault(
		kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{0}, Err: kerr.LeaderNotAvailable, Count: 3},
		kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.NotLeaderForPartition, Count: 2})
	end, err := latestFrom()
	if err != nil {
		t.Fatalf("latest offsets through LEADER_NOT_AVAILABLE and NOT_LEADER_OR_FOLLOWER: %v", err)
	}
	if string(end) != `{"t":{"0":3,"1":1}}` || faults.Hits() != 5 {
		t.Fatalf("latest %s after %d faulted requests", end, faults.Hits())
	}

	// The topic unknown for a moment (its metadata not there yet after a restart): without
	// retrying, its partitions would look deleted, failing the query with data loss.
	faults = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Metadata}, Topic: "t", Err: kerr.UnknownTopicOrPartition, Count: 3})
	time.Sleep(50 * time.Millisecond) // past the client's metadata cache (MetadataMinAge)
	if end, err = latestFrom(); err != nil || string(end) != `{"t":{"0":3,"1":1}}` {
		t.Fatalf("latest offsets through UNKNOWN_TOPIC_OR_PARTITION: %s, %v", end, err)
	}
	if faults.Hits() != 3 {
		t.Fatalf("%d faulted metadata requests", faults.Hits())
	}

	// Fetches failing for a while (the topic unknown to the broker) still read every record.
	faults = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Topic: "t", Err: kerr.UnknownTopicOrPartition, Count: 4})
	if got := sortedRows(kafkaRows(t, src, start, end)); got != "t/0/0 ka=a\nt/0/1 kb=b\nt/0/2 kc=c\nt/1/0 kx=x" {
		t.Fatalf("rows through failing fetches\n%s", got)
	}
	if faults.Hits() == 0 {
		t.Fatal("no fetch was faulted")
	}

	// An error that outlasts default.api.timeout.ms fails the listing with a TimeoutException.
	short := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "earliest", "kafka.default.api.timeout.ms": "1000"})
	faults = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Err: kerr.LeaderNotAvailable, Count: -1})
	began := time.Now()
	_, err = short.(sources.StartRelative).LatestFrom(ctx, start)
	faults.Remove()
	se, ok := sparkerr.As(err)
	if !ok || se.JavaClass != kafkaTimeoutException || !strings.Contains(se.Message, "default.api.timeout.ms") ||
		!strings.Contains(se.Message, "LEADER_NOT_AVAILABLE") || !strings.Contains(se.Message, addr) {
		t.Fatalf("a lasting LEADER_NOT_AVAILABLE: %v", err)
	}
	if d := time.Since(began); d < time.Second || d > 5*time.Second {
		t.Fatalf("failed after %s, want about default.api.timeout.ms=1000", d)
	}

	// Errors that are not transient fail at once.
	faults = c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Err: kerr.TopicAuthorizationFailed, Count: -1})
	began = time.Now()
	_, err = latestFrom()
	faults.Remove()
	if se, ok := sparkerr.As(err); !ok || se.JavaClass != "org.apache.kafka.common.errors.TopicAuthorizationException" ||
		time.Since(began) > time.Second {
		t.Fatalf("TOPIC_AUTHORIZATION_FAILED: %v after %s", err, time.Since(began))
	}
}

func TestRetriableKafka(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{kerr.LeaderNotAvailable, true},
		{kerr.NotLeaderForPartition, true},
		{kerr.UnknownTopicOrPartition, true},
		{kerr.RequestTimedOut, true},
		{sparkerr.Newf(kafkaTimeoutException, "", "", "wrapped").Wrap(kerr.LeaderNotAvailable), true},
		{kerr.TopicAuthorizationFailed, false},
		{kerr.SaslAuthenticationFailed, false},
		{context.Canceled, false},
		{nil, false},
	} {
		if got := retriableKafka(tc.err); got != tc.want {
			t.Errorf("retriableKafka(%v) = %t", tc.err, got)
		}
	}
}

// A batch read whose start and end listings come back over different partitions (a topic
// being created between them) lists both again instead of failing.
func TestKafkaBatchListsAgainWhenPartitionsAppear(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := strings.Join(c.ListenAddrs(), ",")
	produceKafka(t, addr, "t", 0, "a", "b")
	produceKafka(t, addr, "t", 1, "x")
	// The first listing (the earliest offsets) does not know partition 1 yet.
	faults := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1},
		Err: kerr.UnknownTopicOrPartition, Count: 1})
	b, err := NewKafkaBatch(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t"}, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	event := flow.EventSchema(sqltypes.ToArrowSchema(b.Schema(), "UTC"))
	out := &kafkaRowsEmitter{}
	for p := range 2 {
		if err := b.Run(context.Background(), flow.Env{Mem: mem, Partition: p, Partitions: 2, OutSchema: event}, out); err != nil {
			t.Fatal(err)
		}
	}
	if got := sortedRows(out.rows); got != "0/0=a\n0/1=b\n1/0=x" || faults.Hits() != 1 {
		t.Fatalf("rows after %d faulted listings\n%s", faults.Hits(), got)
	}
}
