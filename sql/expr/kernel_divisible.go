package expr

import (
	"math"
	"math/bits"
)

// divisibility tests n ≡ 0 (mod d) for a constant d ≥ 2 without a remainder (Granlund and
// Montgomery's test, Hacker's Delight §10-17): with d = d0·2^k, d0 odd and inv its inverse
// modulo 2^64, n is a multiple of d exactly when rotr(n·inv, k) ≤ ⌊(2^64-1)/d⌋. One multiply
// (its low word only) and a rotate a row, where constRem needs a multiply-high, a multiply and
// sign fixes: packModCompare's "=" is x % d = y, the test of x - y.
type divisibility struct {
	inv uint64
	k   int
	lim uint64
}

// newDivisibility prepares the test for |d| ≥ 2 (d as an unsigned magnitude).
func newDivisibility(d uint64) divisibility {
	k := bits.TrailingZeros64(d)
	d0 := d >> k
	inv := d0 // Newton's iteration doubles the correct low bits: 3 → 6 → … → 96 ≥ 64.
	for range 5 {
		inv *= 2 - d0*inv
	}
	return divisibility{inv: inv, k: k, lim: math.MaxUint64 / d}
}

// divides reports d | n.
func (v *divisibility) divides(n uint64) bool {
	return bits.RotateLeft64(n*v.inv, -v.k) <= v.lim
}

// packModEquals sets bit i of bits when xs[i] % d = y (Java's remainder: the sign of the
// dividend, so x % d = x % |d|), d's magnitude ad ≥ 2. A positive y needs x ≥ y and d | x - y,
// a negative y needs x ≤ y and d | y - x, y = 0 needs d | |x| (in each case a = x - y does
// not overflow and |a| is what d must divide); |y| ≥ |d| matches nothing.
func packModEquals[T intNum](bits []byte, xs []T, ad uint64, y int64) {
	n := len(xs)
	uy := uint64(y)
	if y < 0 {
		uy = -uy
	}
	if uy >= ad {
		clear(bits[:(n+7)/8])
		return
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if y > 0 {
		lo = y
	} else if y < 0 {
		hi = y
	}
	v := newDivisibility(ad)
	var b byte
	for i, x := range xs {
		if x := int64(x); x >= lo && x <= hi {
			a := x - y
			m := a >> 63
			if v.divides(uint64((a ^ m) - m)) {
				b |= 1 << (i & 7)
			}
		}
		if i&7 == 7 {
			bits[i>>3] = b
			b = 0
		}
	}
	if n&7 != 0 {
		bits[n>>3] = b
	}
}
