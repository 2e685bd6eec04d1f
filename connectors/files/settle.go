package files

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// settleAfter is how long a file must stay unchanged (same size and modification time) before
// a file stream admits it into its file log. A writer that creates a file and then writes it
// (open, write, close) can be listed in between; a file logged then would be read empty or
// cut, and never again. Linux stamps modification times from the coarse clock, a jiffy (1 to
// 10 ms) behind, except on filesystems with fine-grained stamps (ext4 and tmpfs on Linux 6.13
// and later: steps of about 10 µs, ≤ 0.2 ms behind, as measured); 20 ms covers either with
// room to spare. It delays a file by up to 20 ms after its last write.
const settleAfter = 20 * time.Millisecond

// sighting is an unsettled file as first seen with its current size and modification time.
type sighting struct {
	size, mtime int64 // as listed (bytes, Unix milliseconds)
	at          time.Time
}

// settler tells the files of a listing that are complete from those that may still be being
// written. A file is settled once it has not changed for settleAfter: its modification time is
// that old, or two listings that far apart saw the same size and modification time. An empty
// file is never settled: it has no rows to lose, and a writer that created it and has not
// written yet would be cut off; once it has content it settles as any other. Files a file
// sink's commit log lists are complete and settled at once.
type settler struct {
	clock clock.Clock
	// wait waits for a duration or until its context is done (a timer of clock; tests replace
	// it to move a mock clock and change files meanwhile).
	wait func(context.Context, time.Duration) error
	// pending: the unsettled files of the last listing, by path.
	pending map[string]sighting
}

func newSettler(c clock.Clock) *settler {
	st := &settler{clock: c, pending: map[string]sighting{}}
	st.wait = st.sleep
	return st
}

// split returns the settled files of fresh (in their order) and records the others as
// pending, forgetting the pending files fresh no longer holds (removed, or admitted).
func (st *settler) split(fresh []dataFile) []dataFile {
	now := st.clock.Now()
	pending := make(map[string]sighting, len(st.pending))
	var settled []dataFile
	for _, f := range fresh {
		if f.committed {
			settled = append(settled, f)
			continue
		}
		s, ok := st.pending[f.Path]
		if !ok || s.size != f.Size || s.mtime != f.MTime {
			s = sighting{size: f.Size, mtime: f.MTime, at: now}
		}
		if f.Size > 0 && !now.Before(s.settles()) {
			settled = append(settled, f)
			continue
		}
		pending[f.Path] = s
	}
	st.pending = pending
	return settled
}

// settles is when a file first seen as s is settled if it is still unchanged: settleAfter
// after its modification time or after it was first seen so, whichever is earlier (a
// modification time ahead of the clock).
func (s sighting) settles() time.Time {
	t := time.UnixMilli(s.mtime).Add(settleAfter)
	if u := s.at.Add(settleAfter); u.Before(t) {
		return u
	}
	return t
}

// awaited is the pending files worth waiting for (not empty), with when each settles.
func (st *settler) awaited() map[string]sighting {
	out := map[string]sighting{}
	for p, s := range st.pending {
		if s.size > 0 {
			out[p] = s
		}
	}
	return out
}

// sleep waits for d on the settler's clock, or until ctx is done.
func (st *settler) sleep(ctx context.Context, d time.Duration) error {
	t := st.clock.Timer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
