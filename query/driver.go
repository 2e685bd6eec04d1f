package query

import (
	"errors"
	"io"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// The driver is the query's goroutine: it feeds the coordinator events and performs its
// actions. Everything that can block (initial and latest offsets, reading the job's output)
// runs in helper goroutines that post events back; the driver itself never blocks on them.

// minBatchesToRetain is how many epochs of offsets and commits a checkpoint keeps (Spark's
// spark.sql.streaming.minBatchesToRetain); purgeEvery how often (in epochs) older records go.
const (
	minBatchesToRetain = 100
	purgeEvery         = 10
)

// driver is the I/O side of one query's coordinator, owned by its goroutine.
type driver struct {
	q     *Query
	coord *coordinator
	clock clock.Clock
	timer *clock.Timer

	// fetchStart is when the outstanding latest-offsets request was issued; latestTook how
	// long the last one took.
	fetchStart time.Time
	latestTook time.Duration
	// epochs in flight: when their trigger fired and when they started.
	epochs           map[int64]epochTiming
	prevTriggerStart time.Time
}

type epochTiming struct {
	triggerStart, started time.Time
	latestTook            time.Duration
	// walCommit: writing the offsets log entry; commitOffsets: writing the commit.
	walCommit, commitOffsets time.Duration
	// batchMs is the batch timestamp logged with the epoch's offsets (0: none logged).
	batchMs int64
}

// run is the query's goroutine.
func (q *Query) run() {
	d := &driver{q: q, coord: newCoordinator(q.spec.Trigger), clock: q.m.env.Clock, epochs: map[int64]epochTiming{}}
	d.coord.durable = q.cp != nil
	if poll, ok, err := pollingDelay(q.m.env.Conf); err == nil && ok && poll > 0 {
		d.coord.poll = poll
	}
	d.coord.resume = q.resume
	d.coord.multiBatch = allAvailableNow(q.streams)
	q.setStatus(d.coord.status)
	if q.openErr != nil {
		d.perform(d.coord.Step(event{Kind: evFailed, At: d.clock.Now(), Err: q.openErr}))
		return
	}
	q.spawn(d.readJob)
	q.spawn(d.initialOffsets)
	for ev := range q.events {
		if ev.Kind == evLatest {
			d.latestTook = ev.At.Sub(d.fetchStart)
		}
		if d.perform(d.coord.Step(ev)) {
			return
		}
	}
}

// spawn runs f in a helper goroutine that termination waits for.
func (q *Query) spawn(f func()) {
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		f()
	}()
}

func (q *Query) setStatus(s Status) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.status = s
}

// perform carries out actions; it reports whether the query terminated.
func (d *driver) perform(acts []action) bool {
	q := d.q
	q.setStatus(d.coord.status)
	for _, a := range acts {
		switch a.Kind {
		case actAskLatest:
			d.fetchStart = d.clock.Now()
			start, available, prepare := a.Start, a.Available, a.Prepare
			q.spawn(func() { d.latestOffsets(start, available, prepare) })
		case actWriteOffsets:
			began := d.clock.Now()
			batchMs, err := d.writeOffsets(a, began)
			if err != nil {
				return d.perform(d.coord.Step(event{Kind: evFailed, At: d.clock.Now(), Err: err}))
			}
			t := d.epochs[a.Epoch]
			t.walCommit, t.batchMs = d.clock.Now().Sub(began), batchMs
			d.epochs[a.Epoch] = t
		case actCommit:
			began := d.clock.Now()
			if err := d.stateSaved(a.Epoch); err != nil {
				return d.perform(d.coord.Step(event{Kind: evFailed, At: d.clock.Now(), Err: err}))
			}
			if err := q.cp.store.Commit(storeKey, a.Epoch); err != nil {
				return d.perform(d.coord.Step(event{Kind: evFailed, At: d.clock.Now(),
					Err: sparkerr.Newf(sparkerr.SparkException, "", "", "cannot commit epoch %d to the checkpoint: %v", a.Epoch, err).Wrap(err)}))
			}
			if a.Epoch%purgeEvery == 0 {
				// Keep the logs of the last minBatchesToRetain epochs and the state recovery
				// from this commit needs.
				if err := q.cp.store.Purge(storeKey, a.Epoch-minBatchesToRetain); err == nil {
					_ = q.cp.store.PurgeState(storeKey, a.Epoch)
				}
			}
			t := d.epochs[a.Epoch]
			t.commitOffsets = d.clock.Now().Sub(began)
			d.epochs[a.Epoch] = t
		case actStartEpoch:
			now := d.clock.Now()
			t := d.epochs[a.Epoch]
			t.triggerStart, t.started, t.latestTook = d.fetchStart, now, d.latestTook
			if t.triggerStart.IsZero() {
				t.triggerStart = now
			}
			d.epochs[a.Epoch] = t
			q.batchMicros.Store(d.batchTimestampMs(a.Epoch, t, now) * 1000)
			for i, f := range q.feeds {
				f.Next(sources.Epoch{ID: a.Epoch, Start: a.Start[i], End: a.End[i]})
			}
		case actSetTimer:
			if d.timer != nil {
				d.timer.Stop()
			}
			d.timer = d.clock.AfterFunc(a.After, func() { q.post(event{Kind: evTimer}) })
		case actProgress:
			d.publishProgress(a)
		case actIdle:
			q.m.emit(Event{Type: IdleEvent, JSON: q.idleEventJSON(d.clock.Now())})
		case actRelease:
			q.releaseWaiters(a.Waiters, false)
		case actFinish:
			for _, f := range q.feeds {
				f.Finish()
			}
		case actTerminate:
			d.terminate(a.Err)
			return true
		}
	}
	return false
}

func (d *driver) publishProgress(a action) {
	q := d.q
	now := d.clock.Now()
	t := d.epochs[a.Epoch]
	delete(d.epochs, a.Epoch)
	s := epochStats{epoch: a.Epoch, triggerStart: t.triggerStart, prevTriggerStart: d.prevTriggerStart, end: now,
		latestOffset: t.latestTook, addBatch: now.Sub(t.started), start: a.Start, endOffsets: a.End, latest: a.Latest,
		walCommit: t.walCommit, commitOffsets: t.commitOffsets}
	if q.state != nil {
		s.state = q.state.take(a.Epoch)
	}
	if q.cp != nil {
		s.checkpointBytes = q.cp.written.take(a.Epoch)
	}
	for i, src := range q.streams {
		if r, ok := src.(sources.ReportsMetrics); ok {
			if s.sourceMetrics == nil {
				s.sourceMetrics = make([]map[string]string, len(q.streams))
			}
			s.sourceMetrics[i] = r.Metrics(at(a.End, i))
		}
	}
	d.prevTriggerStart = t.triggerStart
	for _, f := range q.feeds {
		s.rows = append(s.rows, f.Rows(a.Epoch))
	}
	s.outputRows = q.sink.OutputRows()
	p := q.buildProgress(s)
	q.addProgress(p)
	q.m.emit(Event{Type: ProgressEvent, JSON: progressEventJSON(p)})
}

// stateSaved waits until the job saved every stateful operator's state of epoch: the job saves
// snapshots in the background (flow.StateSaveWaiter) and commit N may only be written once
// state N is durable in the checkpoint. The job's barrier of epoch N reached the sinks before
// this is called, so every save of N is counted; the wait is the part of the saves that did not
// overlap the epoch's last operators and sink commit.
func (d *driver) stateSaved(epoch int64) error {
	w, ok := d.q.job.(flow.StateSaveWaiter)
	if !ok {
		return nil
	}
	if err := w.WaitSaved(d.q.ctx, epoch); err != nil {
		return sparkerr.Newf(sparkerr.SparkException, "", "", "cannot save the state of epoch %d to the checkpoint: %v", epoch, err).Wrap(err)
	}
	return nil
}

// writeOffsets logs an epoch's offsets (synced) before it runs, with the batch timestamp now,
// which it returns (ms).
func (d *driver) writeOffsets(a action, now time.Time) (int64, error) {
	meta := d.q.offsetMeta(now)
	b, err := encodeRecord(epochRecord{Epoch: a.Epoch, Start: a.Start, End: a.End, Meta: meta})
	if err == nil {
		err = d.q.cp.store.WriteOffsets(storeKey, a.Epoch, b)
	}
	if err == nil {
		d.q.cp.written.add(a.Epoch, len(b))
	}
	if err != nil {
		return 0, sparkerr.Newf(sparkerr.SparkException, "", "", "cannot log the offsets of epoch %d in the checkpoint: %v",
			a.Epoch, err).Wrap(err)
	}
	return meta.BatchTimestampMs, nil
}

// batchTimestampMs is the time current_timestamp() returns during epoch (Spark's
// batchTimestampMs): the one logged with its offsets — for an epoch run again after a restart,
// the one it first ran with — else (no checkpoint) now.
func (d *driver) batchTimestampMs(epoch int64, t epochTiming, now time.Time) int64 {
	if t.batchMs != 0 {
		return t.batchMs
	}
	if r := d.q.resume; r != nil && r.replay != nil && r.replay.Epoch == epoch && r.replay.Meta != nil &&
		r.replay.Meta.BatchTimestampMs != 0 {
		return r.replay.Meta.BatchTimestampMs
	}
	return now.UnixMilli()
}

// initialOffsets asks every source for its initial offset.
func (d *driver) initialOffsets() {
	q := d.q
	offs := make([]sources.Offset, len(q.streams))
	for i, s := range q.streams {
		o, err := s.Initial(q.ctx)
		if err != nil {
			q.post(event{Kind: evFailed, Err: err})
			return
		}
		offs[i] = o
	}
	q.post(event{Kind: evInit, Offsets: offs})
}

// latestOffsets asks every source for its latest offset (relative to the next epoch's start
// for sources.StartRelative ones); with available, sources.RateLimited ones also report the
// data available. With prepare, every source first fixes its availableNow target
// (prepareAvailableNow), reported as the data available.
func (d *driver) latestOffsets(start []sources.Offset, available, prepare bool) {
	q := d.q
	offs := make([]sources.Offset, len(q.streams))
	var avail []sources.Offset
	if prepare {
		var err error
		if avail, err = d.prepareAvailableNow(start); err != nil {
			if q.ctx.Err() == nil {
				q.post(event{Kind: evFailed, Err: err})
			}
			return
		}
		available = false
	}
	for i, s := range q.streams {
		var o sources.Offset
		var err error
		if rl, ok := s.(sources.RateLimited); ok && available && i < len(start) {
			var a sources.Offset
			o, a, err = rl.LatestAndAvailable(q.ctx, start[i])
			if avail == nil {
				avail = make([]sources.Offset, len(q.streams))
			}
			avail[i] = a
		} else if rel, ok := s.(sources.StartRelative); ok && i < len(start) {
			o, err = rel.LatestFrom(q.ctx, start[i])
		} else {
			o, err = s.Latest(q.ctx)
		}
		if err != nil {
			if q.ctx.Err() == nil {
				q.post(event{Kind: evFailed, Err: err})
			}
			return
		}
		offs[i] = o
	}
	q.post(event{Kind: evLatest, Offsets: offs, Available: avail})
}

// readJob reads the job's output: an epoch is done once every sink partition forwarded its
// barrier.
func (d *driver) readJob() {
	q := d.q
	seen := map[int64]int{}
	for {
		rec, err := q.job.Next(q.ctx)
		switch {
		case errors.Is(err, io.EOF):
			q.post(event{Kind: evJobEnded})
			return
		case err != nil:
			if q.ctx.Err() == nil {
				q.post(event{Kind: evFailed, Err: err})
			}
			return
		}
		m, isMarker, err := flow.MarkerOf(rec)
		rec.Release()
		if err != nil {
			q.post(event{Kind: evFailed, Err: err})
			return
		}
		if !isMarker || m.Kind != flow.MarkerBarrier {
			continue
		}
		seen[m.Epoch]++
		if seen[m.Epoch] == q.sinkPar {
			delete(seen, m.Epoch)
			q.post(event{Kind: evEpochDone, Epoch: m.Epoch})
		}
	}
}

// terminate stops the timer, the job and every helper, closes the sources, records the
// failure, tells the manager and listeners, and marks the query done.
func (d *driver) terminate(err error) {
	q := d.q
	close(q.quit)
	if d.timer != nil {
		d.timer.Stop()
	}
	q.cancel()
	if q.job != nil {
		q.job.Close()
	}
	q.wg.Wait()
	for _, s := range q.streams {
		_ = s.Close()
	}
	if c, ok := q.sink.(io.Closer); ok {
		_ = c.Close() // a foreachBatch sink's Python worker
	}
	q.closeCheckpoint()
	var exc *Exception
	if err != nil {
		exc = q.streamFailed(err)
	}
	q.mu.Lock()
	q.exc = exc
	q.status = d.coord.status
	q.terminatedAt = d.clock.Now()
	q.mu.Unlock()
	q.releaseWaiters(nil, true)
	q.m.queryTerminated(q, exc)
	close(q.done)
}
