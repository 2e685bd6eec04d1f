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

// x % 7 = 3 (a divisibility test) against x % 7 <= 3 (the remainder compared) over range ids.
func BenchmarkPackModEquals(b *testing.B) {
	xs := make([]int64, 8192)
	for i := range xs {
		xs[i] = int64(i) + 1<<30
	}
	bits := make([]byte, len(xs)/8)
	for _, op := range []string{"=", "<="} {
		b.Run(op, func(b *testing.B) {
			for b.Loop() {
				packModCompare(bits, xs, 7, 3, op)
			}
		})
	}
}

// packModEquals (the divisibility test behind "=") equals Go's x % d == y on edge and random
// dividends, divisors (odd, even, powers of two, MinInt64) and targets, for both widths and
// ragged tails; the seed is printed.
func TestPackModEqualsMatchesRemainder(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 29))
	edges := []int64{0, 1, -1, 2, -2, 3, -3, 7, -7, 8, 1000, 1 << 31, -(1 << 31), math.MaxInt32, math.MinInt32,
		1 << 62, -(1 << 62), math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	divisors := []int64{2, -2, 3, 7, -7, 8, 64, 1000, -1000, 1 << 31, math.MaxInt32, math.MinInt32,
		1 << 62, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 100 {
		divisors = append(divisors, r.Int64N(2000)-1000, int64(r.Uint64()), int64(r.Uint64()>>r.IntN(64)),
			int64(1)<<r.IntN(63)*int64(r.IntN(9)+1))
	}
	for trial := range 400 {
		d := divisors[trial%len(divisors)]
		if d == 0 || d == 1 || d == -1 {
			continue
		}
		n := 1 + r.IntN(70)
		xs := make([]int64, n)
		for i := range xs {
			switch r.IntN(4) {
			case 0:
				xs[i] = edges[r.IntN(len(edges))]
			case 1:
				xs[i] = int64(r.Uint64())
			case 2:
				xs[i] = d*(r.Int64N(2001)-1000) + r.Int64N(7) - 3 // near multiples
			default:
				xs[i] = r.Int64N(1<<20) - 1<<19
			}
		}
		ys := []int64{0, 1, -1, xs[0] % d, d - 1, -(d - 1), r.Int64N(21) - 10}
		if d != math.MinInt64 {
			ys = append(ys, d, -d)
		}
		for _, y := range ys {
			bits := make([]byte, (n+7)/8)
			packModCompare(bits, xs, d, y, "=")
			for i, x := range xs {
				if got, want := bits[i/8]&(1<<(i%8)) != 0, x%d == y; got != want {
					t.Fatalf("seed %d: (%d %% %d = %d) = %v, want %v", seed, x, d, y, got, want)
				}
			}
			d32, y32 := int32(d), int32(y)
			if int64(d32) != d || int64(y32) != y || d32 == -1 {
				continue
			}
			xs32 := make([]int32, n)
			for i, x := range xs {
				xs32[i] = int32(x)
			}
			packModCompare(bits, xs32, d32, y32, "=")
			for i, x := range xs32 {
				if got, want := bits[i/8]&(1<<(i%8)) != 0, x%d32 == y32; got != want {
					t.Fatalf("seed %d: int (%d %% %d = %d) = %v, want %v", seed, x, d32, y32, got, want)
				}
			}
		}
	}
}
