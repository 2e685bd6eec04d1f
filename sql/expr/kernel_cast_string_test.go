package expr

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestDecimalLen compares decimalLen with strconv.FormatInt's length at every power of ten and
// its neighbours, both signs, the extremes and random values; the seed is printed.
func TestDecimalLen(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 31))
	xs := []int64{0, 1, -1, 9, 10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1e18 - 1, 1e18, 1e18 + 1, -1e18 + 1, -1e18, -1e18 - 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		xs = append(xs, p-1, p, p+1, -p+1, -p, -p-1)
	}
	for i := 0; i < 100000; i++ {
		xs = append(xs, int64(r.Uint64())>>r.IntN(64))
	}
	for _, x := range xs {
		if got, want := decimalLen(x), len(strconv.FormatInt(x, 10)); got != want {
			t.Fatalf("seed %d: decimalLen(%d) = %d, want %d", seed, x, got, want)
		}
	}
}
