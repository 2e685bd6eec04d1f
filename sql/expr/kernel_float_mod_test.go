package expr

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestFmodMatchesMathMod compares fmod and constFmod with math.Mod bit for bit on random integral and
// fractional operands of both signs, zeros, the 2^53 boundary, infinities and NaN; the seed
// is printed.
func TestFmodMatchesMathMod(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 29))
	edge := []float64{0, math.Copysign(0, -1), 1, -1, 3, -3, 1 << 53, -(1 << 53), 1<<53 - 1, -(1<<53 - 1),
		1 << 62, math.Inf(1), math.Inf(-1), math.NaN(), 0.5, -2.5, math.MaxFloat64, math.SmallestNonzeroFloat64}
	value := func() float64 {
		switch r.IntN(5) {
		case 0:
			return edge[r.IntN(len(edge))]
		case 1:
			return float64(r.Int64N(1<<54) - 1<<53)
		case 2:
			return (r.Float64() - 0.5) * 1e6
		}
		return float64(r.IntN(2001) - 1000)
	}
	for i := 0; i < 200000; i++ {
		x, y := value(), value()
		want := math.Mod(x, y)
		f := newConstFmod(y)
		for name, got := range map[string]float64{"fmod": fmod(x, y), "constFmod": f.mod(x)} {
			if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
				t.Fatalf("seed %d: %s(%v, %v) = %v, math.Mod %v", seed, name, x, y, got, want)
			}
		}
	}
}
