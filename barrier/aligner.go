package barrier

import "math"

// SenderID identifies one upstream sender: an input of the operator and the producer partition
// on it.
type SenderID struct {
	Input, Sender int
}

// Aligner aligns barriers and merges watermarks across an operator instance's senders.
type Aligner struct {
	live      map[SenderID]bool // not ended
	arrived   map[SenderID]bool // delivered the pending barrier
	pending   int64             // epoch being aligned, or -1
	watermark map[SenderID]int64
	// marked[in]: some sender of input in delivered a watermark: the input is watermarked.
	marked map[int]bool
	// settled: a barrier aligned, so every watermarked input declared itself (watermark
	// operators send a watermark before their first barrier, see the package doc).
	settled bool
	policy  Policy
	current int64 // last watermark forwarded
}

// NewAligner tracks senders[i] senders on each input i; watermarks combine by PolicyMin.
func NewAligner(senders []int) *Aligner {
	a := &Aligner{live: map[SenderID]bool{}, arrived: map[SenderID]bool{}, pending: -1,
		watermark: map[SenderID]int64{}, marked: map[int]bool{}, current: math.MinInt64}
	for in, n := range senders {
		for s := 0; s < n; s++ {
			a.live[SenderID{in, s}] = true
			a.watermark[SenderID{in, s}] = math.MinInt64
		}
	}
	return a
}

// SetPolicy sets how the watermarks of several watermarked inputs combine.
func (a *Aligner) SetPolicy(p Policy) { a.policy = p }

// Blocked reports whether data from s must be held: s already delivered the pending barrier.
func (a *Aligner) Blocked(s SenderID) bool { return a.pending >= 0 && a.arrived[s] }

// Barrier records that s delivered barrier epoch. It returns aligned=true when every live sender
// has delivered it: the caller calls Advance (the first alignment may let the watermark move),
// snapshots, forwards the barrier and releases held data.
func (a *Aligner) Barrier(s SenderID, epoch int64) (aligned bool) {
	a.pending = epoch
	a.arrived[s] = true
	return a.checkAligned()
}

func (a *Aligner) checkAligned() bool {
	if a.pending < 0 {
		return false
	}
	for id := range a.live {
		if !a.arrived[id] {
			return false
		}
	}
	a.pending = -1
	a.settled = true
	clear(a.arrived)
	return true
}

// Pending returns the epoch being aligned, or -1.
func (a *Aligner) Pending() int64 { return a.pending }

// End records that s ended. It returns aligned=true if s was the last sender a pending barrier
// waited for; inputEnded=true if every sender of s's input ended; allEnded=true if every sender
// ended. The watermark does not move when a sender ends (the next watermark that arrives is
// merged without it), so the order in which inputs end never shows in the output.
func (a *Aligner) End(s SenderID) (aligned, inputEnded, allEnded bool) {
	delete(a.live, s)
	delete(a.watermark, s)
	aligned = a.checkAligned()
	inputEnded = true
	for id := range a.live {
		if id.Input == s.Input {
			inputEnded = false
		}
	}
	return aligned, inputEnded, len(a.live) == 0
}

// Watermark records s's watermark ts and returns the merged watermark and whether it advanced
// past the last one reported.
func (a *Aligner) Watermark(s SenderID, ts int64) (int64, bool) {
	if !a.live[s] {
		return a.current, false
	}
	a.marked[s.Input] = true
	if ts > a.watermark[s] {
		a.watermark[s] = ts
	}
	return a.Advance()
}

// Advance recomputes the merged watermark; it reports the watermark and whether it advanced
// past the last one reported (the caller then forwards it).
func (a *Aligner) Advance() (int64, bool) {
	m, ok := a.merged()
	if !ok || m == math.MinInt64 || m <= a.current {
		return a.current, false
	}
	a.current = m
	return m, true
}

// merged combines the inputs' watermarks: an input's is the minimum over its live senders (a
// sender yet to send one holds it back); inputs that never carried a watermark do not count
// once a barrier aligned. Before that, the minimum policy waits for every input (one may still
// declare itself) and the maximum policy takes the inputs that did.
func (a *Aligner) merged() (int64, bool) {
	perInput := map[int]int64{}
	for id, w := range a.watermark {
		if v, ok := perInput[id.Input]; !ok || w < v {
			perInput[id.Input] = w
		}
	}
	var vals []int64
	for in, v := range perInput {
		if !a.marked[in] {
			if !a.settled && a.policy == PolicyMin {
				return 0, false
			}
			continue
		}
		vals = append(vals, v)
	}
	return a.policy.combine(vals)
}
