package kafka

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// restartBroker restarts the real broker of the restart test (scripts/kafka-broker.sh restart
// with the test's WEIR_KAFKA_RUN).
func restartBroker(t *testing.T) error {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "scripts", "kafka-broker.sh"), "restart")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("restart: %v: %s", err, out)
	}
	return nil
}

// An exactly-once sink rides broker restarts out: epochs keep committing while the broker
// (a real one of the test's own: WEIR_KAFKA_RUN names its state, KAFKA_BOOTSTRAP its address)
// restarts under them, WEIR_KAFKA_RESTARTS times (default 20); no barrier fails, and a
// read_committed reader sees every row exactly once. It restarts the broker, so it runs only
// when WEIR_KAFKA_RESTART_TEST=1 (a shared broker must not be restarted under other tests).
func TestKafkaSinkRidesBrokerRestarts(t *testing.T) {
	if os.Getenv("WEIR_KAFKA_RESTART_TEST") != "1" || os.Getenv("KAFKA_BOOTSTRAP") == "" || os.Getenv("WEIR_KAFKA_RUN") == "" {
		t.Skip("set WEIR_KAFKA_RESTART_TEST=1, KAFKA_BOOTSTRAP and WEIR_KAFKA_RUN (a private broker of scripts/kafka-broker.sh)")
	}
	restarts := 20
	if v := os.Getenv("WEIR_KAFKA_RESTARTS"); v != "" {
		restarts, _ = strconv.Atoi(v)
	}
	addr, topic := testBroker(t, "restart", 1)
	opts := map[string]string{"kafka.bootstrap.servers": addr, "topic": topic,
		"checkpointLocation": filepath.Join(t.TempDir(), "cp")}
	if f := os.Getenv("WEIR_KAFKA_DEBUG_LOG"); f != "" {
		w, err := os.Create(f)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		kafkaClientLogger = kgo.BasicLogger(w, kgo.LogLevelDebug, func() string { return time.Now().Format("15:04:05.000 ") })
		defer func() { kafkaClientLogger = nil }()
	}
	h := newQuerySinkHarness(t, "restart-"+topic, opts)
	var want []string
	var epoch int64
	failures := 0
	// The first epoch commits before any restart (the producer is initialized).
	h.push([]any{"k0", "0", nil})
	if err := h.barrier(0); err != nil {
		t.Fatal(err)
	}
	want = append(want, "0:k0=0")
	epoch++
	for r := 0; r < restarts; r++ {
		var done atomic.Bool
		var restartErr error
		go func() {
			// Restart after a varying part of an epoch has passed.
			time.Sleep(time.Duration(r*37%100) * time.Millisecond)
			restartErr = restartBroker(t)
			done.Store(true)
		}()
		for !done.Load() {
			key := fmt.Sprintf("k%d", epoch)
			for i := 0; i < 3; i++ {
				if err := h.tryPush([]any{key, strconv.Itoa(i), nil}); err != nil {
					t.Fatalf("epoch %d: process: %v", epoch, err)
				}
			}
			time.Sleep(20 * time.Millisecond)
			began := time.Now()
			if err := h.barrier(epoch); err != nil {
				failures++
				t.Errorf("restart %d, epoch %d: the barrier failed after %v: %v", r, epoch, time.Since(began), err)
				// The query's restart from its checkpoint, once the broker is back: a new run
				// replays the epoch.
				for !done.Load() {
					time.Sleep(100 * time.Millisecond)
				}
				h.op.(interface{ Close() }).Close()
				h = newQuerySinkHarness(t, "restart-"+topic, opts)
				continue
			}
			for i := 0; i < 3; i++ {
				want = append(want, "0:"+key+"="+strconv.Itoa(i))
			}
			epoch++
		}
		if restartErr != nil {
			t.Fatal(restartErr)
		}
	}
	t.Logf("%d restarts, %d epochs, %d failed barriers", restarts, epoch, failures)
	got := readTopic(t, addr, topic, true)
	if strings.Join(got, " ") != strings.Join(sortedCopy(want), " ") {
		t.Fatalf("read_committed sees %d records, want %d", len(got), len(want))
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

var _ = context.Background
