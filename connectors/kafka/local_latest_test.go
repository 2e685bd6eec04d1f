package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// countedKafka starts a kfake cluster with topic "t" (partitions) and counts the ListOffsets
// requests it serves.
func countedKafka(t *testing.T, partitions int32) (string, *atomic.Int64) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var lists atomic.Int64
	c.ControlKey(int16(kmsg.ListOffsets), func(kmsg.Request) (kmsg.Response, error, bool) {
		lists.Add(1)
		return nil, nil, false
	})
	return strings.Join(c.ListenAddrs(), ","), &lists
}

// lockedRows is a flow.Emitter collecting a partition's rows (partition/offset=value) for a
// test goroutine to read while the partition runs.
type lockedRows struct {
	mu   sync.Mutex
	rows kafkaRowsEmitter
}

func (l *lockedRows) Emit(ctx context.Context, rec arrow.RecordBatch) error {
	if _, ok, err := flow.MarkerOf(rec); err != nil || ok {
		rec.Release()
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rows.Emit(ctx, rec)
}

// continuousKafka opens a Kafka source of topic "t" from its earliest offsets and runs it
// continuously on its partitions (polls every 5 ms, full look-ups every fullLatest); rows
// returns every row read so far, sorted; stop finishes the source and waits for its partitions.
func continuousKafka(t *testing.T, mem memory.Allocator, addr string, fullLatest time.Duration) (e *sources.EpochSource, rows func() string, stop func()) {
	t.Helper()
	src := openKafka(t, mem, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "t",
		"startingOffsets": "earliest"})
	e = sources.NewEpochSource(src, true, sources.WithPollInterval(5*time.Millisecond), sources.WithFullLatestInterval(fullLatest))
	n := src.Partitions()
	out := make([]*lockedRows, n)
	errs := make(chan error, n)
	schema := flow.EventSchema(sqltypes.ToArrowSchema(src.Schema(), "UTC"))
	ctx, cancel := context.WithCancel(context.Background())
	for p := range n {
		out[p] = &lockedRows{}
		go func() {
			errs <- e.Run(ctx, flow.Env{Mem: mem, Partition: p, Partitions: n, OutSchema: schema}, out[p])
		}()
	}
	rows = func() string {
		var all []string
		for _, o := range out {
			o.mu.Lock()
			all = append(all, o.rows.rows...)
			o.mu.Unlock()
		}
		return sortedRows(all)
	}
	stop = func() {
		e.Finish()
		for range n {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		cancel()
	}
	return e, rows, stop
}

// waitRows waits up to d for rows() to equal want.
func waitRows(t *testing.T, rows func() string, want string, d time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	for rows() != want {
		if time.Since(began) > d {
			t.Fatalf("after %s rows\n%s\nwant\n%s", d, rows(), want)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return time.Since(began)
}

// Records produced after a continuous query started arrive through the readers' own fetches:
// no ListOffsets request is made once the first full look-up is done (the full look-up's
// interval is an hour here), and every record is read exactly once.
func TestKafkaContinuousReadsFetchedRecordsWithoutListOffsets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr, lists := countedKafka(t, 2)
	produceKafka(t, addr, "t", 0, "a", "b")
	_, rows, stop := continuousKafka(t, mem, addr, time.Hour)
	waitRows(t, rows, "0/0=a\n0/1=b", 5*time.Second)
	before := lists.Load()
	produceKafka(t, addr, "t", 1, "x")
	took := waitRows(t, rows, "0/0=a\n0/1=b\n1/0=x", 5*time.Second)
	var want []string
	for i := range 20 {
		v := fmt.Sprintf("v%02d", i)
		produceKafka(t, addr, "t", int32(i%2), v)
		want = append(want, fmt.Sprintf("%d/%d=%s", i%2, 2-i%2+i/2, v)) // after a, b and x
	}
	want = append(want, "0/0=a", "0/1=b", "1/0=x")
	waitRows(t, rows, sortedRows(want), 5*time.Second)
	time.Sleep(50 * time.Millisecond) // polls keep running: still no look-up
	if n := lists.Load() - before; n != 0 {
		t.Fatalf("%d ListOffsets requests after the first rows", n)
	}
	stop()
	if got := rows(); got != sortedRows(want) {
		t.Fatalf("rows after stop\n%s", got)
	}
	t.Logf("a record produced after the start was read %s after its produce returned", took)
}

// The full look-up still runs every FullLatestInterval: a partition added to the topic while
// the query runs is read from its start, and its rows are exact.
func TestKafkaContinuousPicksUpNewPartition(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr, lists := countedKafka(t, 1)
	_, rows, stop := continuousKafka(t, mem, addr, 50*time.Millisecond)
	produceKafka(t, addr, "t", 0, "a")
	waitRows(t, rows, "0/0=a", 5*time.Second)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreatePartitions(context.Background(), 1, "t"); err != nil {
		t.Fatal(err)
	}
	produceKafka(t, addr, "t", 1, "n0", "n1")
	produceKafka(t, addr, "t", 0, "b")
	waitRows(t, rows, "0/0=a\n0/1=b\n1/0=n0\n1/1=n1", 10*time.Second)
	// Idle: a full look-up every 50 ms, not one per 5 ms poll.
	idleFrom := lists.Load()
	time.Sleep(500 * time.Millisecond)
	if n := lists.Load() - idleFrom; n > 20 {
		t.Fatalf("%d ListOffsets requests in 500 ms idle (polls every 5 ms, full look-ups every 50 ms)", n)
	}
	stop()
}

// An epoch's End listed before the readers fetched ahead on one partition and behind on
// another is joined with the planned position, not refused; every row is read once.
func TestKafkaContinuousJoinsUnorderedEpochEnd(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	addr, _ := countedKafka(t, 2)
	e, rows, stop := continuousKafka(t, mem, addr, time.Hour)
	produceKafka(t, addr, "t", 0, "a", "b")
	waitRows(t, rows, "0/0=a\n0/1=b", 5*time.Second)
	produceKafka(t, addr, "t", 1, "x")
	waitRows(t, rows, "0/0=a\n0/1=b\n1/0=x", 5*time.Second)
	// End: partition 0 behind the planned position (2), partition 1 ahead of it (1) by a record
	// produced right after.
	e.Next(sources.Epoch{ID: 0, Start: encodeKafkaOffsets(kafkaOffsets{"t": {0: 0, 1: 0}}),
		End: encodeKafkaOffsets(kafkaOffsets{"t": {0: 1, 1: 2}})})
	produceKafka(t, addr, "t", 1, "y")
	waitRows(t, rows, "0/0=a\n0/1=b\n1/0=x\n1/1=y", 5*time.Second)
	stop()
	if got := rows(); got != "0/0=a\n0/1=b\n1/0=x\n1/1=y" {
		t.Fatalf("rows after stop\n%s", got)
	}
}
