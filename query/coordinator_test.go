package query

import (
	"context"
	"fmt"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/plan"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/datadriven"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/logical"
)

// TestCoordinator drives the coordinator with events and prints its actions and status.
//
//	new trigger=default|processingTime|once|availableNow|continuous [interval=1s] [durable]
//	    [multi-batch] [fresh] [commit-epoch=3 commit-start=10 commit-end=20] [logged-epoch=4 logged-start=20 logged-end=30]
//
// multi-batch says every source implements sources.AvailableNow; durable gives the query a checkpoint; fresh (a first start) or commit-*/logged-* (the last
// committed epoch's and the next epoch's offsets-log records) plan its recovery, printed.
//
//	init offsets=0,0 | timer | latest offsets=5,0 [available=9,_] | done epoch=0 | stop | fail | ended | processAll waiter=1
//
// available gives a rate-limited source's data available (_: a source without a rate limit).
//
// Every event takes at=<duration since start> (default 0s).
func TestCoordinator(t *testing.T) {
	datadriven.Walk(t, "testdata/coordinator", func(t *testing.T, path string) {
		var c *coordinator
		t0 := time.Date(2025, 3, 10, 8, 15, 30, 0, time.UTC)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "new" {
				trig := Trigger{}
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "trigger":
						trig.Kind = map[string]plan.TriggerKind{"default": plan.TriggerUnset, "processingTime": plan.TriggerProcessingTime,
							"once": plan.TriggerOnce, "availableNow": plan.TriggerAvailableNow, "continuous": plan.TriggerContinuous}[a.Vals[0]]
					case "interval":
						iv, err := time.ParseDuration(a.Vals[0])
						if err != nil {
							t.Fatal(err)
						}
						trig.Interval = iv
					}
				}
				c = newCoordinator(trig)
				c.multiBatch = d.HasArg("multi-batch")
				var log recoveryLog
				recovering := false
				record := func(prefix string) *epochRecord {
					e, ok := argOf(d, prefix+"-epoch")
					if !ok {
						return nil
					}
					recovering = true
					n, _ := strconv.ParseInt(e, 10, 64)
					st, _ := argOf(d, prefix+"-start")
					en, _ := argOf(d, prefix+"-end")
					return &epochRecord{Epoch: n, Start: offsetsArg(st), End: offsetsArg(en)}
				}
				log.commit, log.next = record("commit"), record("logged")
				c.durable = d.HasArg("durable") || d.HasArg("fresh") || recovering
				out := ""
				if recovering || d.HasArg("fresh") {
					plan := planRecovery(log)
					c.resume = &plan
					out = resumeLine(plan) + "\n"
				}
				return out + statusLine(c.status)
			}
			ev := event{At: t0}
			switch d.Cmd {
			case "init":
				ev.Kind = evInit
			case "timer":
				ev.Kind = evTimer
			case "latest":
				ev.Kind = evLatest
			case "done":
				ev.Kind = evEpochDone
			case "stop":
				ev.Kind = evStop
			case "fail":
				ev.Kind = evFailed
				ev.Err = fmt.Errorf("boom")
			case "ended":
				ev.Kind = evJobEnded
			case "processAll":
				ev.Kind = evProcessAll
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
			for _, a := range d.CmdArgs {
				switch a.Key {
				case "offsets":
					for _, v := range strings.Split(a.Vals[0], ",") {
						ev.Offsets = append(ev.Offsets, sources.Offset(v))
					}
				case "available":
					for _, v := range strings.Split(a.Vals[0], ",") {
						var o sources.Offset
						if v != "_" {
							o = sources.Offset(v)
						}
						ev.Available = append(ev.Available, o)
					}
				case "epoch":
					ev.Epoch, _ = strconv.ParseInt(a.Vals[0], 10, 64)
				case "waiter":
					ev.Waiter, _ = strconv.Atoi(a.Vals[0])
				case "at":
					dur, err := time.ParseDuration(a.Vals[0])
					if err != nil {
						t.Fatal(err)
					}
					ev.At = t0.Add(dur)
				}
			}
			var b strings.Builder
			for _, a := range c.Step(ev) {
				b.WriteString(actionLine(a) + "\n")
			}
			b.WriteString(statusLine(c.status))
			return b.String()
		})
	})
}

func argOf(d *datadriven.TestData, key string) (string, bool) {
	for _, a := range d.CmdArgs {
		if a.Key == key {
			if len(a.Vals) == 0 {
				return "", true
			}
			return strings.Join(a.Vals, ","), true
		}
	}
	return "", false
}

func offsetsArg(v string) []sources.Offset {
	var out []sources.Offset
	for _, o := range strings.Split(v, ",") {
		out = append(out, sources.Offset(o))
	}
	return out
}

func resumeLine(p resumePlan) string {
	s := fmt.Sprintf("resume: next=%d start=%s last-commit=%d", p.next, offsetsText(p.start), p.lastCommit)
	if p.restore {
		s += fmt.Sprintf(" restore=%d", p.restoreAt)
	}
	if p.replay != nil {
		s += fmt.Sprintf(" replay=%d %s..%s", p.replay.Epoch, offsetsText(p.replay.Start), offsetsText(p.replay.End))
	}
	return s
}

func offsetsText(offs []sources.Offset) string {
	s := make([]string, len(offs))
	for i, o := range offs {
		s[i] = string(o)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func actionLine(a action) string {
	switch a.Kind {
	case actAskLatest:
		switch {
		case a.Prepare:
			return "ask-latest available prepare"
		case a.Available:
			return "ask-latest available"
		}
		return "ask-latest"
	case actWriteOffsets:
		return fmt.Sprintf("write-offsets %d %s..%s", a.Epoch, offsetsText(a.Start), offsetsText(a.End))
	case actCommit:
		return fmt.Sprintf("commit %d", a.Epoch)
	case actStartEpoch:
		return fmt.Sprintf("start-epoch %d %s..%s", a.Epoch, offsetsText(a.Start), offsetsText(a.End))
	case actSetTimer:
		return "set-timer " + a.After.String()
	case actProgress:
		return fmt.Sprintf("progress %d %s..%s latest=%s", a.Epoch, offsetsText(a.Start), offsetsText(a.End), offsetsText(a.Latest))
	case actIdle:
		return "idle"
	case actRelease:
		return fmt.Sprintf("release %v", a.Waiters)
	case actFinish:
		return "finish"
	case actTerminate:
		if a.Err != nil {
			return "terminate err=" + a.Err.Error()
		}
		return "terminate"
	}
	return fmt.Sprintf("action %d", a.Kind)
}

func statusLine(s Status) string {
	return fmt.Sprintf("status: %q data=%t trigger=%t active=%t", s.Message, s.DataAvailable, s.TriggerActive, s.Active)
}

// cappedKafka starts a kfake cluster whose topic "capped" holds 10 records and returns the plan
// of a Kafka stream over it with maxOffsetsPerTrigger=3.
func cappedKafka(t *testing.T) logical.Node {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "capped"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	addr := strings.Join(cluster.ListenAddrs(), ",")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 10 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "capped", Value: []byte(strconv.Itoa(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	opts := map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "capped", "startingOffsets": "earliest",
		"maxOffsetsPerTrigger": "3"}
	schema, err := connectors.StreamSchema("kafka", opts, "")
	if err != nil {
		t.Fatal(err)
	}
	return &logical.SourceScan{Format: "kafka", Options: opts, Out: schema, Streaming: true}
}

// processAllAvailable over a real rate-limited source (Kafka with maxOffsetsPerTrigger=3 on a
// kfake cluster): one call returns once all 10 records available at the call are in the sink,
// read in capped epochs of at most 3. availableNow reads all 10 too, in capped epochs, then ends.
func TestProcessAllAvailableUnderKafkaRateLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	m := newTestManager(mem)
	defer m.StopAll()
	reg := &tables{m: map[string]*sinks.MemoryTable{}}
	m.env.Tables = reg
	q := start(t, m, Spec{Plan: cappedKafka(t), Format: "memory", Name: "capped", OutputMode: flow.OutputAppend})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := q.ProcessAllAvailable(ctx); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(reg.get("capped")); n != 10 {
		t.Fatalf("after processAllAvailable the memory sink has %d rows, want 10", n)
	}
	for _, p := range q.RecentProgress() {
		if n := progressOf(t, p)["numInputRows"].(float64); n > 3 {
			t.Fatalf("an epoch read %v rows past maxOffsetsPerTrigger=3: %s", n, p)
		}
	}
	if err := q.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg.get("capped").Release()

	q = start(t, m, Spec{Plan: cappedKafka(t), Format: "memory", Name: "capped_now", OutputMode: flow.OutputAppend,
		Trigger: Trigger{Kind: plan.TriggerAvailableNow}})
	if ended, err := q.AwaitTermination(ctx, nil); !ended || err != nil {
		t.Fatalf("availableNow: ended %t, %v", ended, err)
	}
	if n := tableRows(reg.get("capped_now")); n != 10 {
		t.Fatalf("availableNow wrote %d rows, want 10", n)
	}
	// maxOffsetsPerTrigger=3 holds: 3, 3, 3 and 1 rows in four epochs, each reporting the
	// offsets at start as the latest.
	var counts []string
	for _, p := range q.RecentProgress() {
		pr := progressOf(t, p)
		counts = append(counts, fmt.Sprint(pr["numInputRows"]))
		src := pr["sources"].([]any)[0].(map[string]any)
		if latest := fmt.Sprint(src["latestOffset"]); latest != `{"capped":{"0":10}}` {
			t.Fatalf("availableNow progress latestOffset %s: %s", latest, p)
		}
	}
	if got := strings.Join(counts, ","); got != "3,3,3,1" {
		t.Fatalf("availableNow epochs read %s rows, want 3,3,3,1", got)
	}
	reg.get("capped_now").Release()
	mem.AssertSize(t, 0)
}
