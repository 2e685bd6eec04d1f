package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/sources"
)

// keptReaders returns the source's kept reader per source partition.
func keptReaders(src sources.StreamSource) map[int]*kafkaReader {
	s := src.(*kafkaStream)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]*kafkaReader{}
	for p, rd := range s.readers {
		out[p] = rd
	}
	return out
}

func kafkaAt(t0, t1 int64) sources.Offset {
	return encodeKafkaOffsets(kafkaOffsets{"t1": {0: t0, 1: t1}})
}

// An epoch starting where the partition's last one ended reuses its consumer (and the records it
// fetched ahead); any other start (a replay, a restart) opens a new consumer that reads exactly
// the epoch's offsets; Close closes the kept consumers.
func TestKafkaSourceKeepsConsumersBetweenEpochs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 2, "t1")
	produceKafka(t, addr, "t1", 0, "a", "b", "c", "d")
	produceKafka(t, addr, "t1", 1, "e")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t1",
		"startingOffsets": "earliest"})

	rows := func(start, end sources.Offset) string { return sortedRows(kafkaRows(t, src, start, end)) }
	if got, want := rows(kafkaAt(0, 0), kafkaAt(2, 1)), "t1/0/0 ka=a\nt1/0/1 kb=b\nt1/1/0 ke=e"; got != want {
		t.Fatalf("first epoch\n%s\nwant\n%s", got, want)
	}
	first := keptReaders(src)
	if len(first) != 2 {
		t.Fatalf("kept readers %v, want one per source partition", first)
	}
	// Partition 0's consumer fetched past offset 2 (c, d are in the topic): they wait in pending.
	// Partition 1 has nothing new: its range is empty and its consumer stays as it is.
	if got, want := rows(kafkaAt(2, 1), kafkaAt(3, 1)), "t1/0/2 kc=c"; got != want {
		t.Fatalf("second epoch\n%s\nwant\n%s", got, want)
	}
	second := keptReaders(src)
	if second[0] != first[0] || second[1] != first[1] {
		t.Fatal("an epoch starting where the last ended opened new consumers")
	}
	produceKafka(t, addr, "t1", 1, "f", "g")
	if got, want := rows(kafkaAt(3, 1), kafkaAt(4, 3)), "t1/0/3 kd=d\nt1/1/1 kf=f\nt1/1/2 kg=g"; got != want {
		t.Fatalf("third epoch\n%s\nwant\n%s", got, want)
	}
	if third := keptReaders(src); third[0] != first[0] || third[1] != first[1] {
		t.Fatal("the third epoch opened new consumers")
	}
	// A replay of the first epoch: new consumers, exactly its rows, none of the later ones.
	if got, want := rows(kafkaAt(0, 0), kafkaAt(2, 1)), "t1/0/0 ka=a\nt1/0/1 kb=b\nt1/1/0 ke=e"; got != want {
		t.Fatalf("replayed epoch\n%s\nwant\n%s", got, want)
	}
	replay := keptReaders(src)
	if replay[0] == first[0] || replay[1] == first[1] {
		t.Fatal("a replayed epoch reused consumers standing elsewhere")
	}
	// The epoch after the replay reuses the replay's consumers and reads exactly its offsets.
	if got, want := rows(kafkaAt(2, 1), kafkaAt(4, 2)), "t1/0/2 kc=c\nt1/0/3 kd=d\nt1/1/1 kf=f"; got != want {
		t.Fatalf("epoch after the replay\n%s\nwant\n%s", got, want)
	}
	if after := keptReaders(src); after[0] != replay[0] || after[1] != replay[1] {
		t.Fatal("the epoch after the replay opened new consumers")
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if left := keptReaders(src); len(left) != 0 {
		t.Fatalf("readers kept after Close: %v", left)
	}
}

// A read_committed source with a kept consumer still reads only committed records, and reads
// across an aborted transaction and its control records.
func TestKafkaSourceKeptConsumerReadCommitted(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 1, "t1")
	txn, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("w"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	ctx := context.Background()
	write := func(commit bool, values ...string) {
		t.Helper()
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if err := txn.ProduceSync(ctx, &kgo.Record{Topic: "t1", Value: []byte(v), Key: []byte("k" + v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t1",
		"startingOffsets": "earliest", "kafka.isolation.level": "read_committed"})
	start, err := src.Initial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, batch := range []struct {
		commit bool
		values []string
	}{{true, []string{"a", "b"}}, {false, []string{"x"}}, {true, []string{"c"}}} {
		write(batch.commit, batch.values...)
		end, err := src.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range kafkaRows(t, src, start, end) {
			got = append(got, r[strings.Index(r, " ")+1:])
		}
		start = end
	}
	if s := strings.Join(got, ","); s != "ka=a,kb=b,kc=c" {
		t.Fatalf("read_committed rows %s", s)
	}
}

// Latest lists end offsets with one ListOffsets round trip from the partitions of the last full
// listing (kept kafkaMetadataMaxAge); a partition added to the topic shows once that expired.
func TestKafkaSourceLatestFromKeptPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr := newFakeKafka(t, 1, "t1")
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t1"})
	ctx := context.Background()
	latest := func() string {
		t.Helper()
		o, err := src.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(o)
	}
	produceKafka(t, addr, "t1", 0, "a")
	if got := latest(); got != `{"t1":{"0":1}}` {
		t.Fatalf("first latest %s", got)
	}
	s := src.(*kafkaStream)
	if s.partitions == nil {
		t.Fatal("a full listing kept no partitions")
	}
	produceKafka(t, addr, "t1", 0, "b", "c")
	if got, ok := s.quickEndOffsets(ctx, []string{"t1"}); !ok || got["t1"][0] != 3 {
		t.Fatalf("quick listing %v %v", got, ok)
	}
	if got := latest(); got != `{"t1":{"0":3}}` {
		t.Fatalf("second latest %s", got)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreatePartitions(ctx, 1, "t1"); err != nil {
		t.Fatal(err)
	}
	produceKafka(t, addr, "t1", 1, "d")
	deadline := time.Now().Add(5 * time.Second)
	for latest() != `{"t1":{"0":3,"1":1}}` {
		if time.Now().After(deadline) {
			t.Fatalf("the new partition is missing from %s", latest())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A kept reader fits an epoch only if it is assigned exactly the epoch's topic-partitions, each
// at the range's start.
func TestKafkaReaderFits(t *testing.T) {
	a, b := kafkaTopicPartition{"t", 0}, kafkaTopicPartition{"t", 1}
	rd := &kafkaReader{next: map[kafkaTopicPartition]int64{a: 1, b: 2}}
	for _, c := range []struct {
		ranges []kafkaRange
		want   bool
	}{
		{[]kafkaRange{{a, 1, 5}, {b, 2, 2}}, true},
		{[]kafkaRange{{a, 1, 5}}, false},                                      // b is no longer read here
		{[]kafkaRange{{a, 0, 5}, {b, 2, 3}}, false},                           // a replay
		{[]kafkaRange{{a, 1, 5}, {kafkaTopicPartition{"u", 0}, 0, 1}}, false}, // a new partition
	} {
		if got := rd.fits(c.ranges); got != c.want {
			t.Errorf("fits(%v) = %v, want %v", c.ranges, got, c.want)
		}
	}
}
