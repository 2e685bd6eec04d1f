package flow

// Early stop: a task whose every consumer needs no more input is stopped (its context
// cancelled). A stopped task still sends EndOfData on every edge (under the job's context) and
// drains its inbox until its own senders ended, so end-of-data counting stays exact and no
// sender ever blocks on a task that stopped reading.

// linkTargets records, for every producer task, the consumer tasks its edges reach.
func linkTargets(order []*Node, tasks map[*Node][]*task) {
	for _, n := range order {
		for _, in := range n.Inputs {
			for p, prod := range tasks[in.From] {
				var to []*task
				switch in.Exchange {
				case Forward:
					to = []*task{tasks[n][p]}
				case Gather:
					to = []*task{tasks[n][0]}
				default:
					to = tasks[n]
				}
				for _, c := range to {
					prod.targets = append(prod.targets, c)
					c.producers = append(c.producers, prod)
				}
			}
		}
	}
}

// markNeedless records that t needs no more input and stops the producers that no consumer
// needs any more, transitively.
func (j *localJob) markNeedless(t *task) {
	j.stopMu.Lock()
	defer j.stopMu.Unlock()
	j.markNeedlessLocked(t)
}

func (j *localJob) markNeedlessLocked(t *task) {
	if t.needless.Swap(true) {
		return
	}
	for _, p := range t.producers {
		if p.output || p.stopped.Load() {
			continue
		}
		all := true
		for _, c := range p.targets {
			if !c.needless.Load() {
				all = false
				break
			}
		}
		if all {
			p.stopped.Store(true)
			p.cancel()
			j.markNeedlessLocked(p)
		}
	}
}

// stoppedEarly reports whether t was stopped while the job itself goes on: errors t's work
// returns are then consequences of the stop.
func (j *localJob) stoppedEarly(t *task) bool {
	return t.stopped.Load() && j.ctx.Err() == nil
}
