package kafka

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/weirhq/weir/flow"
)

// newRedoCluster starts a kfake cluster with topic "out" (one partition) for the tests of
// lost commits, and returns the options of an exactly-once sink writing to it (delivery
// timeout 2 s, which bounds the client's own retries of a commit).
func newRedoCluster(t *testing.T) (*kfake.Cluster, string, map[string]string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr := strings.Join(c.ListenAddrs(), ",")
	return c, addr, map[string]string{"kafka.bootstrap.servers": addr, "topic": "out",
		"checkpointLocation": filepath.Join(t.TempDir(), "cp"), "kafka.delivery.timeout.ms": "2000"}
}

// lostCommits makes kfake lose the responses to a transactional producer's commits (EndTxn
// with commit) for lossWindow from the first: every commit's connection is closed instead of
// answered, so the client's own retries (within the 2 s delivery timeout) fail too and the
// commit's outcome is unconfirmed, as when a broker restarts under it. With land, the first
// commit is carried out on another connection before its connection is closed (the commit
// landed, its response was lost). answered counts the commits the cluster answers after the
// window (the sink settling the epoch).
type lostCommits struct {
	lost, answered atomic.Int32
	landed         atomic.Bool
}

const lossWindow = 2500 * time.Millisecond

func loseCommits(t *testing.T, c *kfake.Cluster, land bool) *lostCommits {
	t.Helper()
	raw, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	l := &lostCommits{}
	var landing atomic.Bool
	var firstLoss atomic.Int64
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		end := *req.(*kmsg.EndTxnRequest)
		switch {
		case !end.Commit || landing.Load():
			return nil, nil, false
		case firstLoss.Load() != 0 && time.Since(time.Unix(0, firstLoss.Load())) > lossWindow:
			l.answered.Add(1)
			return nil, nil, false
		}
		firstLoss.CompareAndSwap(0, time.Now().UnixNano())
		if land && l.lost.Load() == 0 {
			landing.Store(true)
			c.SleepControl(func() {
				resp, err := raw.Request(context.Background(), &end)
				l.landed.Store(err == nil && resp.(*kmsg.EndTxnResponse).ErrorCode == 0)
			})
			landing.Store(false)
		}
		l.lost.Add(1)
		return nil, errors.New("connection lost"), true
	})
	return l
}

// The connection drops under the epoch's commit (a broker restarting) before the coordinator
// processes it: the exactly-once sink settles the epoch by sending the commit again at the
// transaction's producer epoch, which commits it; read_committed readers see its rows once.
func TestKafkaSinkSettlesEpochAfterLostCommit(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", nil})
	lost := loseCommits(t, c, false)
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if lost.lost.Load() == 0 || lost.answered.Load() == 0 {
		t.Fatalf("%d commits lost, %d answered; want some lost and the epoch settled", lost.lost.Load(), lost.answered.Load())
	}
	h.push([]any{"b", "2", nil})
	if err := h.barrier(1); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1 0:b=2" {
		t.Fatalf("read_committed sees %q", got)
	}
	markers := readTopic(t, addr, "__weir_kafka_sink_commits", true)
	if len(markers) != 2 {
		t.Fatalf("markers %v", markers)
	}
}

// The epoch's commit lands but its response is lost (the connection drops after the
// coordinator committed, and the coordinator's epoch moved on): the commit sent again at the
// transaction's epoch is answered as a retry (KIP-890), the epoch is not produced again, the
// next epoch commits on a new producer; read_committed readers see each row once.
func TestKafkaSinkSettlesLandedLostCommit(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", nil})
	lost := loseCommits(t, c, true)
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if !lost.landed.Load() || lost.lost.Load() == 0 {
		t.Fatalf("landed %v, %d commits lost", lost.landed.Load(), lost.lost.Load())
	}
	h.push([]any{"b", "2", nil})
	if err := h.barrier(1); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1 0:b=2" {
		t.Fatalf("read_committed sees %q", got)
	}
	if markers := readTopic(t, addr, "__weir_kafka_sink_commits", true); len(markers) != 2 {
		t.Fatalf("markers %v", markers)
	}
}

// An epoch whose records outgrow exactlyOnce.redoMaxBytes is not kept in memory. Its lost
// commit is still settled (sending the commit again needs no records), exactly once; a
// transient failure before its commit was sent fails the epoch (nothing of it is visible), and
// the restarted run replays it from the checkpoint, exactly once.
func TestKafkaSinkUnkeptEpoch(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	// Room for the first record (key and value 2 bytes) and 4 bytes more.
	opts["exactlyOnce.redoMaxBytes"] = itoa64(recordBytes(&kgo.Record{Key: []byte("a"), Value: []byte("1")}) + 4)
	h := newKafkaSinkHarness(t, opts)
	op := h.op.(*kafkaOperator)
	h.push([]any{"a", "1", nil}) // kept
	if len(op.epochRecords) != 1 || op.unkept {
		t.Fatalf("kept %d records (unkept %v), want the first", len(op.epochRecords), op.unkept)
	}
	h.push([]any{"b", "22", nil}, []any{"c", "333", nil}) // past the cap
	if op.epochRecords != nil || !op.unkept {
		t.Fatalf("kept %d records past the cap", len(op.epochRecords))
	}
	h.push([]any{"d", "4", nil})
	if op.epochRecords != nil {
		t.Fatal("an unkept epoch keeps records again")
	}
	lost := loseCommits(t, c, false)
	if err := h.barrier(0); err != nil {
		t.Fatalf("an unkept epoch's lost commit: %v", err)
	}
	if lost.lost.Load() == 0 || lost.answered.Load() == 0 {
		t.Fatalf("%d commits lost, %d answered; want some lost and the epoch settled", lost.lost.Load(), lost.answered.Load())
	}
	if op.epochRecords != nil || op.unkept || op.epochBytes != 0 {
		t.Fatal("a committed epoch's records are still kept")
	}
	// A transient failure before the commit is sent: the epoch's records cannot be produced
	// again, the epoch fails.
	h.push([]any{"e", "55", nil}, []any{"f", "666", nil})
	if !op.unkept {
		t.Fatal("the second epoch is kept")
	}
	if err := op.finishEpoch(context.Background(), context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	op.committed = 1
	h.push([]any{"g", "77", nil}, []any{"h", "888", nil})
	if err := op.settleEpoch(context.Background(), 2, syscall.ECONNRESET); !errors.Is(err, errUnkept) {
		t.Fatalf("settling an unkept epoch whose commit was not sent: %v", err)
	}
	// The query fails; its restart replays epoch 2 and goes on.
	h.op.(flow.Closer).Close()
	again := newKafkaSinkHarness(t, opts)
	again.push([]any{"g", "77", nil}, []any{"h", "888", nil})
	if err := again.barrier(2); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1 0:b=22 0:c=333 0:d=4 0:e=55 0:f=666 0:g=77 0:h=888" {
		t.Fatalf("read_committed sees %q", got)
	}
}

// A commit failing transiently late in the barrier's deadline is still redone for twice the
// delivery timeout: the redo's deadline derives from the task's context, not from the little
// left of the commit's.
func TestKafkaSinkRedoOutlivesCommitDeadline(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	delete(opts, "kafka.delivery.timeout.ms")
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", nil})
	op := h.op.(*kafkaOperator)
	const commitTime = 3 * time.Second
	commitCtx, cancel := context.WithTimeout(context.Background(), commitTime)
	defer cancel()
	deadline, _ := commitCtx.Deadline()
	// The commit's connection drops 150 ms before the commit's deadline (less than the redo's
	// first pause).
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.SleepControl(func() { time.Sleep(time.Until(deadline.Add(-150 * time.Millisecond))) })
		return nil, errors.New("connection lost"), true
	})
	if err := op.finishEpoch(commitCtx, context.Background(), 0); err != nil {
		t.Fatalf("redo within the task's context: %v", err)
	}
	if time.Now().Before(deadline) {
		t.Fatal("the epoch settled before the commit's deadline: the redo did not outlive it")
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1" {
		t.Fatalf("read_committed sees %q", got)
	}
}

// The epoch's records outlive the delivery timeout while the cluster is unreachable (a broker
// restarting for longer than delivery.timeout.ms): the epoch's transaction is aborted and its
// kept records are produced again (as new sends, timed from now) once the cluster is back;
// read_committed readers see each row once.
func TestKafkaSinkRedoesEpochAfterRecordTimeout(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	h := newKafkaSinkHarness(t, opts)
	h.push([]any{"a", "1", nil})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	var until atomic.Int64
	until.Store(time.Now().Add(lossWindow).UnixNano())
	var dropped atomic.Int32
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if time.Now().UnixNano() < until.Load() {
			dropped.Add(1)
			return nil, errors.New("connection lost"), true
		}
		return nil, nil, false
	})
	h.push([]any{"b", "2", nil})
	if err := h.barrier(1); err != nil {
		t.Fatal(err)
	}
	if dropped.Load() == 0 {
		t.Fatal("no produce request was dropped")
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1 0:b=2" {
		t.Fatalf("read_committed sees %q", got)
	}
}

// On a coordinator without KIP-890 part 2 the epoch is settled through the client (redoOnce):
// abort, read the markers, produce again unless the epoch's marker landed. The commit landed
// (its response lost), and reading the markers fails transiently once (the commit topic's
// creation times out): the next attempt still reads the markers before producing anything, so
// the landed epoch is not produced and committed a second time.
func TestKafkaSinkRedoOnceRereadsMarkersAfterTransientFailure(t *testing.T) {
	c, addr, opts := newRedoCluster(t)
	h := newKafkaSinkHarness(t, opts)
	op := h.op.(*kafkaOperator)
	h.push([]any{"a", "1", nil}) // the run's markers are read here
	op.sink.txnV2.Store(1)       // settle as with a coordinator predating KIP-890 part 2
	var failed atomic.Int32
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		failed.Add(1)
		create := req.(*kmsg.CreateTopicsRequest)
		resp := create.ResponseKind().(*kmsg.CreateTopicsResponse)
		for _, rt := range create.Topics {
			st := kmsg.NewCreateTopicsResponseTopic()
			st.Topic, st.ErrorCode = rt.Topic, kerr.RequestTimedOut.Code
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	// The first commit lands, its connection drops before the answer, as do the client's
	// retries; commits are answered again once a marker read failed.
	raw, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var landing, landed atomic.Bool
	var commits atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		end := *req.(*kmsg.EndTxnRequest)
		if !end.Commit || landing.Load() || failed.Load() > 0 {
			return nil, nil, false
		}
		if commits.Add(1) > 1 {
			return nil, errors.New("connection lost"), true
		}
		landing.Store(true)
		c.SleepControl(func() {
			resp, err := raw.Request(context.Background(), &end)
			landed.Store(err == nil && resp.(*kmsg.EndTxnResponse).ErrorCode == 0)
		})
		landing.Store(false)
		return nil, errors.New("connection lost"), true
	})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	if !landed.Load() || failed.Load() == 0 {
		t.Fatalf("landed %v, %d marker reads failed; want a landed commit and a failed read", landed.Load(), failed.Load())
	}
	if got := strings.Join(readTopic(t, addr, "out", true), " "); got != "0:a=1" {
		t.Fatalf("read_committed sees %q", got)
	}
	if markers := readTopic(t, addr, "__weir_kafka_sink_commits", true); len(markers) != 1 {
		t.Fatalf("markers %v", markers)
	}
}

// Settling replaces the partition's client. The replaced client fails the records it still
// buffers when it closes, and franz-go reports those failures asynchronously, after Close
// returned: they must not reach the next client's transaction (its commit would fail with
// "client closed", failing the settle of an epoch that could commit).
func TestKafkaSinkReplacedProducersFailuresStayOut(t *testing.T) {
	_, _, opts := newRedoCluster(t)
	h := newKafkaSinkHarness(t, opts)
	op := h.op.(*kafkaOperator)
	for range 20 {
		// A client whose records wait for a cluster that never answers (nothing listens).
		cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"), kgo.DialTimeout(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		op.cl = cl
		for range 50 {
			op.cl.Produce(context.Background(), &kgo.Record{Topic: "out", Value: []byte("x")}, op.sent.record)
		}
		op.closeProducer()
		time.Sleep(20 * time.Millisecond)
		if err := op.sent.take(); err != nil {
			t.Fatalf("the replaced client's failure reached the partition's next sends: %v", err)
		}
	}
}
