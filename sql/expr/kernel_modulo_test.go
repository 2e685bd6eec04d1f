package expr

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The multiply-high remainder equals Go's % (the CPU's divide) on edge and random dividends
// and divisors of both widths; the seed is printed.
func TestConstRemMatchesDivide(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 23))
	edges := []int64{0, 1, -1, 2, -2, 3, 7, -7, 1000, 1 << 31, -(1 << 31), math.MaxInt32, math.MinInt32,
		1 << 62, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	divisors := append([]int64{}, edges[1:]...)
	for range 200 {
		divisors = append(divisors, r.Int64N(2000)-1000, int64(r.Uint64()), int64(r.Uint64()>>r.IntN(64)))
	}
	xs := append([]int64{}, edges...)
	for range 2000 {
		xs = append(xs, int64(r.Uint64()), int64(r.Uint64()>>r.IntN(64)), r.Int64N(1<<20)-1<<19)
	}
	out := make([]int64, len(xs))
	for _, d := range divisors {
		if d == 0 {
			continue
		}
		remConst(out, xs, d)
		for i, x := range xs {
			want := int64(0)
			if d != -1 { // Go's MinInt64 % -1 is 0 too, but spell it out
				want = x % d
			}
			if out[i] != want {
				t.Fatalf("seed %d: %d %% %d = %d, want %d", seed, x, d, out[i], want)
			}
		}
		d32 := int32(d)
		if d32 == 0 {
			continue
		}
		xs32 := make([]int32, len(xs))
		for i, x := range xs {
			xs32[i] = int32(x)
		}
		out32 := make([]int32, len(xs))
		remConst(out32, xs32, d32)
		for i, x := range xs32 {
			want := int32(0)
			if d32 != -1 {
				want = x % d32
			}
			if out32[i] != want {
				t.Fatalf("seed %d: int %d %% %d = %d, want %d", seed, x, d32, out32[i], want)
			}
		}
	}
}

// packModCompare's bits are the comparison of Go's remainders, including a ragged tail.
func TestPackModCompare(t *testing.T) {
	xs := make([]int64, 0, 37)
	for i := range 37 {
		xs = append(xs, int64(i*i)-300)
	}
	for _, d := range []int64{7, -7, 1, 1000, math.MinInt64} {
		for _, op := range []string{"=", "<", "<=", ">", ">="} {
			for _, y := range []int64{-3, 0, 3} {
				bits := make([]byte, (len(xs)+7)/8)
				packModCompare(bits, xs, d, y, op)
				for i, x := range xs {
					r := x % d
					want := map[string]bool{"=": r == y, "<": r < y, "<=": r <= y, ">": r > y, ">=": r >= y}[op]
					if got := bits[i/8]&(1<<(i%8)) != 0; got != want {
						t.Fatalf("(%d %% %d) %s %d = %v, want %v", x, d, op, y, got, want)
					}
				}
			}
		}
	}
}
