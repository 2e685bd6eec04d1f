package flow

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestTrackerReportsStages: a tracked job reports one stage per node with its tasks, the
// tasks that ended and its sources' bytes, while it runs and once it ended.
func TestTrackerReportsStages(t *testing.T) {
	checkLeaks(t)
	mem := newMem(t)
	release := make(chan struct{})
	src := &Node{Name: "src", Parallelism: 2, Schema: testSchema, Source: scripted(
		[]step{{rows: []int64{1, 2, 3}}},
		[]step{{wait: release}, {rows: []int64{4}}})}
	out := passNode("pass", 1, Input{From: src, Exchange: Gather})
	tr := &Tracker{}
	job, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(), &Graph{Output: out}, JobOptions{Tracker: tr})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	// Wait (no timing assertion) until source partition 0 ended.
	var p Progress
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if p = tr.Progress(); len(p.Stages) == 2 && p.Stages[0].Completed == 1 {
			break
		}
	}
	if len(p.Stages) != 2 {
		t.Fatalf("stages: %+v", p)
	}
	s0, s1 := p.Stages[0], p.Stages[1]
	if s0.ID != 0 || s0.Tasks != 2 || s0.Completed != 1 || s0.Done || s0.InputBytes <= 0 ||
		s1.ID != 1 || s1.Tasks != 1 || s1.Completed != 0 || s1.InputBytes != 0 || p.Running != 2 {
		t.Fatalf("while running: %+v", p)
	}
	close(release)
	for {
		rec, err := job.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	job.Close()
	p = tr.Progress()
	if p.Running != 0 || !p.Stages[0].Done || !p.Stages[1].Done || p.Stages[0].InputBytes <= s0.InputBytes {
		t.Fatalf("after the end: %+v", p)
	}
	// A second job under the same tracker continues the stage ids.
	job2, err := NewLocalRunner(WithAllocator(mem)).Start(context.Background(),
		&Graph{Output: &Node{Name: "s", Parallelism: 1, Schema: testSchema, Source: scripted([]step{})}}, JobOptions{Tracker: tr})
	if err != nil {
		t.Fatal(err)
	}
	job2.Close()
	if p = tr.Progress(); len(p.Stages) != 3 || p.Stages[2].ID != 2 || p.Stages[2].Tasks != 1 {
		t.Fatalf("two jobs: %+v", p)
	}
}

func TestTrackerFromContext(t *testing.T) {
	if TrackerFrom(context.Background()) != nil {
		t.Fatal("a tracker out of nowhere")
	}
	tr := &Tracker{}
	if TrackerFrom(WithTracker(context.Background(), tr)) != tr {
		t.Fatal("the tracker did not travel")
	}
}
