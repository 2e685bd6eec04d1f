package expr

import (
	"fmt"
	"strings"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestAccumulatorGroupStateMoves feeds groups 0 and 1 of an accumulator, moves each group's
// state into another accumulator at other ids (0 → 2 over a group that held state already,
// 1 → 0, 2 → 1), and checks the moved groups give the same results, also after the same rows
// are retracted from both (min/max need their value multisets for that).
func TestAccumulatorGroupStateMoves(t *testing.T) {
	move := map[uint32]uint32{0: 2, 1: 0, 2: 1}
	to := func(g uint32) uint32 { return move[g] }
	for _, c := range accCases {
		t.Run(fmt.Sprintf("%s(%s)", c.fn, c.t.String()), func(t *testing.T) {
			h := newAccHarness(t, c)
			orig := h.f.NewAccumulator(h.env.ctx)
			orig.Grow(3)
			h.feed(orig, []int{0, 1, 2, 3}, nil, false)
			moved := h.f.NewAccumulator(h.env.ctx)
			moved.Grow(3)
			h.feed(moved, []int{0, 1, 2, 3}, func(uint32) uint32 { return 2 }, false)
			for from, dest := range move {
				state, err := EncodeGroupState(h.f, orig, nil, from)
				if err != nil {
					t.Fatal(err)
				}
				if err := LoadGroupState(h.f, moved, dest, state); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := h.result(orig, []uint32{0, 1, 2}), h.result(moved, []uint32{2, 0, 1}); a != b {
				t.Fatalf("moved %s, original %s", b, a)
			}
			if a, b := orig.SizeBytes(), moved.SizeBytes(); a != b {
				t.Errorf("moved size %d, original %d", b, a)
			}
			h.feed(orig, []int{1, 2}, nil, true)
			h.feed(moved, []int{1, 2}, to, true)
			if a, b := h.result(orig, []uint32{0, 1, 2}), h.result(moved, []uint32{2, 0, 1}); a != b {
				t.Fatalf("after retraction: moved %s, original %s", b, a)
			}
		})
	}
}

func TestAccumulatorWithoutGroupStateIsRefused(t *testing.T) {
	env := newEnv(t, true)
	f, err := BindAggregate("count", []Expr{col(0, "x", sqltypes.DoubleType)}, true, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = EncodeGroupState(f, f.NewAccumulator(env.ctx), nil, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "[UNSUPPORTED_FEATURE] spilling the streaming state of aggregate count(DISTINCT x) is not supported by Weir") {
		t.Fatalf("encode: %v", err)
	}
}
