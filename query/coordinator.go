package query

import (
	"bytes"
	"github.com/weirhq/weir/sql/plan"
	"time"

	"github.com/weirhq/weir/sources"
)

// The coordinator decides a query's epochs: when to ask the sources for their latest offsets,
// which offset ranges an epoch covers, when the trigger fires next, when progress is due and
// when the query ends. It is pure: Step takes an event and returns actions; the driver
// (driver.go) performs them and feeds back their results as events.

// eventKind is the kind of an event the driver feeds the coordinator.
type eventKind uint8

const (
	// evInit: the sources' initial offsets are known (Offsets).
	evInit eventKind = iota + 1
	// evTimer: the timer the coordinator set fired.
	evTimer
	// evLatest: the sources' latest offsets are known (Offsets).
	evLatest
	// evEpochDone: every sink partition committed epoch Epoch (its barrier reached the job's
	// output).
	evEpochDone
	// evStop: Stop was called.
	evStop
	// evFailed: the job, a source or the sink failed (Err).
	evFailed
	// evJobEnded: the job's output ended (after Finish, or because its inputs ended).
	evJobEnded
	// evProcessAll: processAllAvailable was called; Waiter identifies the caller.
	evProcessAll
)

// event is one input of Step. At is the clock's time when it happened. Available (evLatest
// answering an actAskLatest with Available set) holds, per source, the offset the data
// available now ends at when the source's latest offset is rate limited (sources.RateLimited),
// nil for the others (their latest offset is all there is).
type event struct {
	Kind      eventKind
	At        time.Time
	Offsets   []sources.Offset
	Available []sources.Offset
	Epoch     int64
	Err       error
	Waiter    int
}

// actionKind is the kind of an action Step asks the driver to perform.
type actionKind uint8

const (
	// actAskLatest: ask every source for its latest offset (answer with evLatest); Start is
	// where the next epoch starts, for sources whose latest offset depends on it. With
	// Available, rate-limited sources also report the data available (event.Available): a
	// processAllAvailable caller waits for it; once and availableNow read all of it. With
	// Prepare (availableNow over sources that all implement sources.AvailableNow), every source
	// first fixes the data available now as its target (PrepareAvailableNow) and answers it as
	// Available; the latest offsets answered then and later stay within it and the read limits.
	actAskLatest actionKind = iota + 1
	// actStartEpoch: hand epoch Epoch, (Start, End] per source, to the sources.
	actStartEpoch
	// actSetTimer: fire evTimer After from now (replacing any timer set before).
	actSetTimer
	// actProgress: epoch Epoch completed; publish its progress (Start, End, Latest).
	actProgress
	// actIdle: publish a QueryIdleEvent.
	actIdle
	// actRelease: the processAllAvailable callers Waiters may return.
	actRelease
	// actFinish: no more epochs: let the sources end (answer with evJobEnded).
	actFinish
	// actTerminate: stop everything; the query ended with Err (nil: stopped or finished).
	actTerminate
	// actWriteOffsets: log epoch Epoch's (Start, End] in the offsets log (synced), before the
	// actStartEpoch that follows it. Only for queries with a checkpoint.
	actWriteOffsets
	// actCommit: epoch Epoch completed; log its commit (synced) before its progress. Only for
	// queries with a checkpoint.
	actCommit
)

// action is one output of Step.
type action struct {
	Kind               actionKind
	Epoch              int64
	Start, End, Latest []sources.Offset
	After              time.Duration
	Waiters            []int
	Err                error
	Available          bool
	Prepare            bool
}

type phase uint8

const (
	phaseInit phase = iota
	phaseRunning
	phaseFinishing
	phaseDone
)

// epochPlan is an epoch in flight.
type epochPlan struct {
	id         int64
	start, end []sources.Offset
	latest     []sources.Offset
}

// waiter is a processAllAvailable call: it returns once epoch need is committed, need being
// decided by the first latest offsets fetched after the call (fetch number fetch). When a
// rate-limited source's latest offset stopped short of the data available then, target is
// that data's end: the caller also waits until the committed epochs reach it (or until a
// trigger finds nothing to read: Spark's noNewData).
type waiter struct {
	id      int
	fetch   int
	need    int64
	decided bool
	target  []sources.Offset
}

// coordinator is the state machine. Fields are read by tests; only Step changes them.
type coordinator struct {
	trigger Trigger
	// poll is how often the default trigger asks for new data while idle; idleEvery the least
	// time between idle events (spark.sql.streaming.noDataProgressEventInterval).
	poll, idleEvery time.Duration

	phase     phase
	cur       []sources.Offset // end of the last planned epoch: start of the next
	done      []sources.Offset // end of the last completed epoch
	next      int64            // id of the next epoch
	committed int64            // last completed epoch (-1: none)
	running   *epochPlan

	fetching     bool // a latest-offsets request is out
	fetches      int  // latest-offsets requests issued so far
	triggerFetch bool // the outstanding request may start an epoch
	tickPending  bool // a trigger fired while busy (fixed-interval triggers)
	extraFetch   bool // a processAllAvailable call needs a request after the outstanding one
	timerSet     bool
	lastReport   time.Time
	started      bool // once/availableNow: the first planning happened
	// target is the data available at the start of a once/availableNow query: its epochs end
	// there.
	target []sources.Offset
	// multiBatch: every source implements sources.AvailableNow, so availableNow reads the data
	// available at start in epochs within the sources' read limits (Spark's MultiBatchExecutor);
	// otherwise it reads it all in one epoch, ignoring read limits, as Trigger.Once does
	// (Spark's fallback to single batch execution).
	multiBatch bool
	// preparing: the outstanding latest-offsets request prepares the sources (action.Prepare);
	// only its answer holds the targets.
	preparing bool
	waiters   []waiter

	status Status

	// durable: the query has a checkpoint: epochs are logged before they run and committed
	// after. resume is where a restarted query picks up (nil: a first start).
	durable bool
	resume  *resumePlan
}

func newCoordinator(t Trigger) *coordinator {
	return &coordinator{trigger: t, poll: 10 * time.Millisecond, idleEvery: 10 * time.Second, committed: -1,
		status: Status{Message: "Initializing sources", Active: true}}
}

// fixedInterval reports whether epochs follow a timer (processingTime, continuous).
func (c *coordinator) fixedInterval() bool {
	return c.trigger.Kind == plan.TriggerProcessingTime || c.trigger.Kind == plan.TriggerContinuous
}

// oneShot reports whether the query ends after the data available at start.
func (c *coordinator) oneShot() bool {
	return c.trigger.Kind == plan.TriggerOnce || c.trigger.Kind == plan.TriggerAvailableNow
}

// epochsToTarget reports whether the query reads the data available at start in several
// epochs within the sources' read limits (availableNow over sources.AvailableNow sources).
func (c *coordinator) epochsToTarget() bool {
	return c.trigger.Kind == plan.TriggerAvailableNow && c.multiBatch
}

// Step handles one event.
func (c *coordinator) Step(ev event) []action {
	if c.phase == phaseDone {
		return nil
	}
	var out []action
	switch ev.Kind {
	case evInit:
		c.phase = phaseRunning
		c.cur = ev.Offsets
		c.lastReport = ev.At
		if r := c.resume; r != nil {
			c.next, c.committed = r.next, r.lastCommit
			if r.start != nil {
				c.cur = r.start
			}
		}
		c.done = c.cur
		if r := c.resume; r != nil && r.replay != nil {
			// The logged but uncommitted epoch runs first, with exactly its logged offsets.
			ep := r.replay
			out = c.launch(out, &epochPlan{id: ep.Epoch, start: ep.Start, end: ep.End, latest: ep.End}, false)
		} else {
			out = c.ask(out, true)
		}
		if c.fixedInterval() {
			out = append(out, action{Kind: actSetTimer, After: c.trigger.Interval})
		}
	case evTimer:
		c.timerSet = false
		out = c.onTimer(out)
	case evLatest:
		out = c.onLatest(ev, out)
	case evEpochDone:
		out = c.onEpochDone(ev, out)
	case evProcessAll:
		c.waiters = append(c.waiters, waiter{id: ev.Waiter, fetch: c.fetches + 1})
		switch {
		case c.phase != phaseRunning:
			// Initializing: the first request answers it. Finishing: termination releases it.
		case c.fetching:
			c.extraFetch = true
		default:
			out = c.ask(out, c.trigger.Kind == plan.TriggerUnset && c.running == nil)
		}
	case evJobEnded:
		return c.terminate(out, nil)
	case evStop:
		return c.terminate(out, nil)
	case evFailed:
		return c.terminate(out, ev.Err)
	}
	return c.release(out)
}

func (c *coordinator) onTimer(out []action) []action {
	if c.phase != phaseRunning {
		return out
	}
	switch {
	case c.fixedInterval():
		out = append(out, action{Kind: actSetTimer, After: c.trigger.Interval})
		c.timerSet = true
		if c.running != nil || c.fetching {
			c.tickPending = true
			return out
		}
		return c.ask(out, true)
	case c.trigger.Kind == plan.TriggerUnset:
		if c.running == nil && !c.fetching {
			return c.ask(out, true)
		}
	}
	return out
}

func (c *coordinator) onLatest(ev event, out []action) []action {
	c.fetching = false
	prepared := c.preparing
	c.preparing = false
	if c.phase != phaseRunning {
		return out
	}
	if c.epochsToTarget() && !c.started && !prepared && c.running == nil && c.triggerFetch {
		// The answer to a request made before the sources were prepared (a processAllAvailable
		// caller's during a replayed epoch) has no targets: ask again, preparing them. That
		// request answers the waiters too, and decides them on the targets.
		c.extraFetch = false
		return c.ask(out, true)
	}
	latest := ev.Offsets
	hasNew := !sameOffsets(latest, c.cur)
	available := availableOffsets(latest, ev.Available)
	for i := range c.waiters {
		w := &c.waiters[i]
		if w.decided || w.fetch > c.fetches {
			continue
		}
		w.decided = true
		if hasNew {
			w.need = c.next // the next epoch planned covers latest
		} else {
			w.need = c.next - 1 // the last planned epoch already does
		}
		if !sameOffsets(available, latest) {
			w.target = available // latest is capped: later epochs read the rest
		}
	}
	if !hasNew && c.running == nil && c.triggerFetch && !c.oneShot() {
		// A trigger found nothing to read: every waiter has all it can get now.
		for i := range c.waiters {
			if w := &c.waiters[i]; w.decided {
				w.need, w.target = c.next-1, nil
			}
		}
	}
	switch {
	case c.epochsToTarget():
		// The sources answered their targets as available and an epoch's worth of them as
		// latest; an answer with nothing new means every target is read.
		if c.running != nil || !c.triggerFetch {
			break
		}
		if !c.started {
			c.started = true
			c.target = available
		}
		if !hasNew {
			out = c.finish(out)
			break
		}
		out = c.launch(out, &epochPlan{id: c.next, start: c.cur, end: latest, latest: c.target}, c.durable)
	case c.oneShot():
		// Spark ignores read limits under Trigger.Once, and availableNow over a source without
		// sources.AvailableNow falls back to it: all the data available at start in one epoch.
		if !c.started && c.triggerFetch {
			c.started = true
			c.target = available
			if sameOffsets(available, c.cur) {
				out = c.finish(out)
				break
			}
			out = c.startEpoch(out, available)
		}
	case c.running == nil && c.triggerFetch:
		if hasNew {
			out = c.startEpoch(out, latest)
			break
		}
		c.status.Message, c.status.DataAvailable, c.status.TriggerActive = "Waiting for data to arrive", false, false
		if ev.At.Sub(c.lastReport) >= c.idleEvery {
			c.lastReport = ev.At
			out = append(out, action{Kind: actIdle})
		}
		if c.trigger.Kind == plan.TriggerUnset && !c.timerSet {
			c.timerSet = true
			out = append(out, action{Kind: actSetTimer, After: c.poll})
		}
	}
	switch {
	case c.phase != phaseRunning:
	case c.fixedInterval() && c.tickPending && c.running == nil:
		c.tickPending = false
		c.extraFetch = false
		out = c.ask(out, true)
	case c.extraFetch:
		c.extraFetch = false
		out = c.ask(out, c.trigger.Kind == plan.TriggerUnset && c.running == nil)
	}
	return out
}

func (c *coordinator) onEpochDone(ev event, out []action) []action {
	if c.running == nil || c.running.id != ev.Epoch {
		return out
	}
	ep := c.running
	c.running = nil
	c.committed = ep.id
	c.done = ep.end
	c.lastReport = ev.At
	if c.durable {
		out = append(out, action{Kind: actCommit, Epoch: ep.id})
	}
	out = append(out, action{Kind: actProgress, Epoch: ep.id, Start: ep.start, End: ep.end, Latest: ep.latest})
	if c.phase != phaseRunning {
		return out
	}
	switch {
	case c.oneShot() && !c.started:
		// A replayed epoch ran first: now plan what is available.
		if !c.fetching {
			return c.ask(out, true)
		}
		c.triggerFetch = true
	case c.epochsToTarget() && !c.readTo(c.target, false):
		// The next epoch reads on towards the targets (or finds nothing new: then the query
		// finishes).
		if !c.fetching {
			return c.ask(out, true)
		}
		c.triggerFetch = true
	case c.oneShot():
		// Once, or availableNow at its targets.
		return c.finish(out)
	case c.trigger.Kind == plan.TriggerUnset:
		if !c.fetching {
			return c.ask(out, true)
		}
		c.triggerFetch = true
	case c.tickPending && !c.fetching:
		c.tickPending = false
		return c.ask(out, true)
	default:
		c.status.Message, c.status.TriggerActive = "Waiting for next trigger", false
	}
	return out
}

// ask requests the sources' latest offsets; forTrigger says whether the answer may start an
// epoch.
func (c *coordinator) ask(out []action, forTrigger bool) []action {
	c.fetching = true
	c.fetches++
	c.triggerFetch = forTrigger
	if forTrigger {
		c.status.TriggerActive = true
	}
	first := forTrigger && c.oneShot() && !c.started
	a := action{Kind: actAskLatest, Start: c.cur, Available: first, Prepare: first && c.epochsToTarget()}
	c.preparing = a.Prepare
	for _, w := range c.waiters {
		a.Available = a.Available || !w.decided && w.fetch <= c.fetches
	}
	return append(out, a)
}

func (c *coordinator) startEpoch(out []action, latest []sources.Offset) []action {
	return c.launch(out, &epochPlan{id: c.next, start: c.cur, end: latest, latest: latest}, c.durable)
}

// launch runs epoch ep, logging its offsets first when log is set.
func (c *coordinator) launch(out []action, ep *epochPlan, log bool) []action {
	c.running = ep
	c.cur = ep.end
	c.next = ep.id + 1
	c.status.Message, c.status.DataAvailable, c.status.TriggerActive = "Processing new data", true, true
	if log {
		out = append(out, action{Kind: actWriteOffsets, Epoch: ep.id, Start: ep.start, End: ep.end})
	}
	return append(out, action{Kind: actStartEpoch, Epoch: ep.id, Start: ep.start, End: ep.end})
}

func (c *coordinator) finish(out []action) []action {
	c.phase = phaseFinishing
	c.status.TriggerActive = false
	return append(out, action{Kind: actFinish})
}

func (c *coordinator) terminate(out []action, err error) []action {
	c.phase = phaseDone
	c.running = nil
	c.status = Status{Message: "Stopped", DataAvailable: false, TriggerActive: false, Active: false}
	// The driver releases every processAllAvailable caller once the failure is recorded.
	c.waiters = nil
	return append(out, action{Kind: actTerminate, Err: err})
}

// release frees the processAllAvailable callers whose epoch is committed.
func (c *coordinator) release(out []action) []action {
	var done []int
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.decided && w.need <= c.committed && c.reached(w.target) {
			done = append(done, w.id)
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
	if len(done) > 0 {
		out = append(out, action{Kind: actRelease, Waiters: done})
	}
	return out
}

// reached reports whether the completed epochs reached target (nil: nothing to reach). Offsets
// that are not ordered (a source that moved backwards) count as reached: nothing more will come.
func (c *coordinator) reached(target []sources.Offset) bool { return c.readTo(target, true) }

// readTo reports whether the completed epochs reached target; unordered says what offsets that
// do not compare with their target count as. availableNow's epochs count them as not reached
// and ask again, since a source that moved backwards on one of its parts (a Kafka partition)
// may still have the others' data to read: an answer with nothing new ends the query.
func (c *coordinator) readTo(target []sources.Offset, unordered bool) bool {
	for i, t := range target {
		if i >= len(c.done) {
			return false
		}
		cmp, err := sources.CompareOffsets(c.done[i], t)
		if err != nil && !unordered || err == nil && cmp < 0 {
			return false
		}
	}
	return true
}

// availableOffsets is the data available per source: available's offset where a rate-limited
// source reported one, latest's otherwise.
func availableOffsets(latest, available []sources.Offset) []sources.Offset {
	if available == nil {
		return latest
	}
	out := make([]sources.Offset, len(latest))
	for i, o := range latest {
		out[i] = o
		if i < len(available) && available[i] != nil {
			out[i] = available[i]
		}
	}
	return out
}

func sameOffsets(a, b []sources.Offset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(bytes.TrimSpace(a[i]), bytes.TrimSpace(b[i])) {
			return false
		}
	}
	return true
}
