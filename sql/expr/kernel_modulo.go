package expr

import "math/bits"

// constRem computes x % d (truncated: the remainder has x's sign, as Java's and Go's %) for a
// divisor d fixed for a whole column, by a multiply-high instead of the CPU's divide: the
// quotient of |x| by |d| is (t + (|x|-t)/2) >> (l-1) with t the high word of m·|x|, l =
// ceil(log2 |d|) and m = floor(2^64·(2^l - |d|)/|d|) + 1 (Granlund and Montgomery's
// unsigned division by invariant integers, in libdivide's branch-free form, exact for every
// 64-bit dividend). A 64-bit divide costs 25–90 cycles a row on the CPUs Weir runs on; this
// costs a multiply and a few adds.
type constRem struct {
	d  uint64 // |divisor|
	m  uint64
	sh uint8 // l - 1
	// zero: |d| is 1, every remainder is 0.
	zero bool
}

// newConstRem prepares x % d; d must not be 0.
func newConstRem(d int64) constRem {
	ad := uint64(d)
	if d < 0 {
		ad = -ad // |MinInt64| = 2^63 as uint64
	}
	if ad == 1 {
		return constRem{d: 1, zero: true}
	}
	l := bits.Len64(ad - 1) // ceil(log2 ad), ≥ 1
	// 2^l - ad < ad, so the 128-by-64 division's quotient fits (1<<64 is 0 in uint64: l = 64
	// cannot happen, ad ≤ 2^63 gives l ≤ 63).
	q, _ := bits.Div64((uint64(1)<<l)-ad, 0, ad)
	return constRem{d: ad, m: q + 1, sh: uint8(l - 1)}
}

// rem is x % d.
func (c *constRem) rem(x int64) int64 {
	s := x >> 63
	a := uint64((x ^ s) - s) // |x|; |MinInt64| = 2^63
	t, _ := bits.Mul64(c.m, a)
	q := (t + (a-t)>>1) >> c.sh
	r := int64(a - q*c.d)
	return (r ^ s) - s
}

// remConst sets out[i] = xs[i] % d for a divisor other than 0.
func remConst[T intNum](out, xs []T, d T) {
	c := newConstRem(int64(d))
	if c.zero {
		clear(out)
		return
	}
	out = out[:len(xs)]
	for i, x := range xs {
		out[i] = T(c.rem(int64(x)))
	}
}

// packModCompare sets bit i of bits when (xs[i] % d) op y, eight rows per byte; op is one
// of = < <= > >= (compareModConst's), d is not 0. "=" is a divisibility test (packModEquals),
// the order comparisons compare the remainder. One loop per operator: a switch per row or
// per byte cost as much as the remainder. (Branches, not SETcc: over range ids the pattern
// of x % 7 = 3 is periodic and predicted; branch-free packing measured slower there.)
func packModCompare[T intNum](bits []byte, xs []T, d, y T, op string) {
	c := newConstRem(int64(d))
	yy := int64(y)
	n := len(xs)
	if c.zero { // every remainder is 0
		if map[string]bool{"=": 0 == yy, "<": 0 < yy, "<=": 0 <= yy, ">": 0 > yy, ">=": 0 >= yy}[op] {
			for i := 0; i < n; i += 8 {
				bits[i>>3] = byte(1<<min(8, n-i) - 1)
			}
		} else {
			clear(bits[:(n+7)/8])
		}
		return
	}
	switch op {
	case "=":
		packModEquals(bits, xs, c.d, yy)
	case "<":
		for i := 0; i < n; i += 8 {
			var b byte
			for j, x := range xs[i:min(i+8, n)] {
				if c.rem(int64(x)) < yy {
					b |= 1 << j
				}
			}
			bits[i>>3] = b
		}
	case "<=":
		for i := 0; i < n; i += 8 {
			var b byte
			for j, x := range xs[i:min(i+8, n)] {
				if c.rem(int64(x)) <= yy {
					b |= 1 << j
				}
			}
			bits[i>>3] = b
		}
	case ">":
		for i := 0; i < n; i += 8 {
			var b byte
			for j, x := range xs[i:min(i+8, n)] {
				if c.rem(int64(x)) > yy {
					b |= 1 << j
				}
			}
			bits[i>>3] = b
		}
	default:
		for i := 0; i < n; i += 8 {
			var b byte
			for j, x := range xs[i:min(i+8, n)] {
				if c.rem(int64(x)) >= yy {
					b |= 1 << j
				}
			}
			bits[i>>3] = b
		}
	}
}
