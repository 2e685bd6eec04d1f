package connect

import (
	"context"
	"strings"
	"sync"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/flow"
)

// ExecutionProgress, as Spark 4 sends it (ExecuteGrpcResponseSender.enqueueProgressMessage):
// while an operation runs, every spark.connect.progress.reportInterval (default 2s; 0 or
// negative: none) one ExecutePlanResponse.execution_progress tells the client the stages of
// the jobs the operation started, so PySpark's progress bar and its progress handlers
// (spark.registerProgressHandler) move on a long batch query. Weir's stages are the nodes of
// the operation's flow jobs (flow.Tracker): num_tasks their partitions, num_completed_tasks
// those that ended, input_bytes_read the Arrow bytes their sources produced, and every
// partition not ended is in flight. Operations that start no job (most commands) send none.

// progressIntervalKey is Spark's spark.connect.progress.reportInterval (a time; bare numbers
// count milliseconds).
const progressIntervalKey = "spark.connect.progress.reportInterval"

// defaultProgressInterval is its default.
const defaultProgressInterval = 2 * time.Second

// progressInterval is the session's report interval; 0 disables the reports.
func progressInterval(c *engine.Conf) time.Duration {
	if v, ok := c.Get(progressIntervalKey); ok && strings.HasPrefix(strings.TrimSpace(v), "-") {
		return 0
	}
	return max(c.Duration(progressIntervalKey, defaultProgressInterval), 0)
}

// runPlanWithProgress runs the plan with the operation's progress tracker in its context and
// reports the tracker's progress every interval until the plan returned.
func (s *Server) runPlanWithProgress(ctx context.Context, sess *session, p *pb.Plan, tr *flow.Tracker, emit func(*pb.ExecutePlanResponse) error) error {
	interval := progressInterval(sess.engine.Conf())
	if interval <= 0 {
		return s.runPlan(flow.WithTracker(ctx, tr), sess, p, emit)
	}
	stop := reportProgress(ctx, tr, interval, emit)
	err := s.runPlan(flow.WithTracker(ctx, tr), sess, p, emit)
	stop(err == nil)
	return err
}

// reportProgress emits tr's progress every interval (once it has a stage) until stop is
// called; stop waits for the reporter and, when the operation succeeded after at least one
// report, sends a last one (every stage done) before the operation's final responses.
func reportProgress(ctx context.Context, tr *flow.Tracker, interval time.Duration, emit func(*pb.ExecutePlanResponse) error) (stop func(succeeded bool)) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	send := func() {
		p := tr.Progress()
		if len(p.Stages) == 0 {
			return
		}
		if emit(progressResponse(p)) == nil {
			mu.Lock()
			sent++
			mu.Unlock()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				send()
			}
		}
	}()
	return func(succeeded bool) {
		cancel()
		wg.Wait()
		mu.Lock()
		reported := sent > 0
		mu.Unlock()
		if succeeded && reported {
			send()
		}
	}
}

// progressResponse is an ExecutePlanResponse carrying p.
func progressResponse(p flow.Progress) *pb.ExecutePlanResponse {
	ep := &pb.ExecutePlanResponse_ExecutionProgress{NumInflightTasks: p.Running}
	for _, s := range p.Stages {
		ep.Stages = append(ep.Stages, &pb.ExecutePlanResponse_ExecutionProgress_StageInfo{
			StageId: s.ID, NumTasks: s.Tasks, NumCompletedTasks: s.Completed, InputBytesRead: s.InputBytes, Done: s.Done})
	}
	return &pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_ExecutionProgress_{ExecutionProgress: ep}}
}
