package barrier

import "testing"

func TestAlignerHoldsSendersAheadUntilAligned(t *testing.T) {
	// Two inputs: input 0 has two senders, input 1 has one.
	a := NewAligner([]int{2, 1})
	s00, s01, s10 := SenderID{0, 0}, SenderID{0, 1}, SenderID{1, 0}
	if a.Blocked(s00) || a.Pending() != -1 {
		t.Fatal("nothing pending at start")
	}
	if a.Barrier(s00, 1) {
		t.Fatal("aligned after one of three senders")
	}
	if !a.Blocked(s00) || a.Blocked(s01) || a.Blocked(s10) {
		t.Fatal("only the sender that delivered barrier 1 is blocked")
	}
	if a.Pending() != 1 {
		t.Fatalf("Pending = %d, want 1", a.Pending())
	}
	if a.Barrier(s10, 1) {
		t.Fatal("aligned after two of three senders")
	}
	if !a.Barrier(s01, 1) {
		t.Fatal("not aligned after every sender delivered barrier 1")
	}
	if a.Blocked(s00) || a.Blocked(s10) || a.Pending() != -1 {
		t.Fatal("alignment must unblock every sender")
	}
}

func TestAlignerEndedSenderCountsAsDelivered(t *testing.T) {
	a := NewAligner([]int{2})
	s0, s1 := SenderID{0, 0}, SenderID{0, 1}
	if a.Barrier(s0, 7) {
		t.Fatal("aligned too early")
	}
	aligned, inputEnded, allEnded := a.End(s1)
	if !aligned || inputEnded || allEnded {
		t.Fatalf("End = %v %v %v, want aligned, input not ended, not all ended", aligned, inputEnded, allEnded)
	}
	aligned, inputEnded, allEnded = a.End(s0)
	if aligned || !inputEnded || !allEnded {
		t.Fatalf("End = %v %v %v, want input and all ended", aligned, inputEnded, allEnded)
	}
}

func TestAlignerWatermarkIsMinimumOverLiveSenders(t *testing.T) {
	a := NewAligner([]int{1, 1})
	s0, s1 := SenderID{0, 0}, SenderID{1, 0}
	if _, adv := a.Watermark(s0, 100); adv {
		t.Fatal("advanced before every sender reported")
	}
	if wm, adv := a.Watermark(s1, 50); !adv || wm != 50 {
		t.Fatalf("Watermark = %d %v, want 50 true", wm, adv)
	}
	if _, adv := a.Watermark(s1, 40); adv {
		t.Fatal("a watermark never goes back")
	}
	if wm, adv := a.Watermark(s1, 200); !adv || wm != 100 {
		t.Fatalf("Watermark = %d %v, want 100 true", wm, adv)
	}
}
