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
	current   int64 // last watermark forwarded
}

// NewAligner tracks senders[i] senders on each input i.
func NewAligner(senders []int) *Aligner {
	a := &Aligner{live: map[SenderID]bool{}, arrived: map[SenderID]bool{}, pending: -1,
		watermark: map[SenderID]int64{}, current: math.MinInt64}
	for in, n := range senders {
		for s := 0; s < n; s++ {
			a.live[SenderID{in, s}] = true
			a.watermark[SenderID{in, s}] = math.MinInt64
		}
	}
	return a
}

// Blocked reports whether data from s must be held: s already delivered the pending barrier.
func (a *Aligner) Blocked(s SenderID) bool { return a.pending >= 0 && a.arrived[s] }

// Barrier records that s delivered barrier epoch. It returns aligned=true when every live sender
// has delivered it: the caller snapshots, forwards the barrier and releases held data.
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
	clear(a.arrived)
	return true
}

// Pending returns the epoch being aligned, or -1.
func (a *Aligner) Pending() int64 { return a.pending }

// End records that s ended. It returns aligned=true if s was the last sender a pending barrier
// waited for; inputEnded=true if every sender of s's input ended; allEnded=true if every sender
// ended.
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
	if ts > a.watermark[s] {
		a.watermark[s] = ts
	}
	return a.advance()
}

func (a *Aligner) advance() (int64, bool) {
	m := int64(math.MaxInt64)
	for _, w := range a.watermark {
		m = min(m, w)
	}
	if len(a.watermark) == 0 || m == math.MinInt64 || m <= a.current {
		return a.current, false
	}
	a.current = m
	return m, true
}
