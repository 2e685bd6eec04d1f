package expr

import "math"

// fmodLimit bounds the operands fmod and constFmod take as integers: below 2^53 every integer
// is a double and the conversions are exact.
const fmodLimit = 1 << 53

// fmod is math.Mod(x, y) (Java's double %: the sign of x, exact), computed by an integer
// remainder when x and y are integers of magnitude below 2^53: math.Mod's bit-by-bit
// reduction took four fifths of a stream's `CAST(value AS DOUBLE) % 3.0`. A zero remainder
// keeps x's sign (-6.0 % 3.0 is -0.0). Everything else is math.Mod.
func fmod(x, y float64) float64 {
	if y > -fmodLimit && y < fmodLimit && y != 0 {
		if yi := int64(y); float64(yi) == y {
			if xi, ok := fmodInteger(x); ok {
				return fmodResult(x, xi%yi)
			}
		}
	}
	return math.Mod(x, y)
}

// fmodInteger returns x as an integer when it is one below 2^53.
func fmodInteger(x float64) (int64, bool) {
	xi := int64(x)
	return xi, x > -fmodLimit && x < fmodLimit && float64(xi) == x
}

// fmodResult is the double of the integer remainder r of x: a zero keeps x's sign.
func fmodResult(x float64, r int64) float64 {
	if r != 0 {
		return float64(r)
	}
	return math.Copysign(0, x)
}

// constFmod is math.Mod(x, c) for one divisor c: an integral c below 2^53 divides integral
// x by constRem's multiply (no 64-bit divide), as fmod would; any other c is math.Mod.
type constFmod struct {
	c   float64
	rem constRem
	int bool
}

func newConstFmod(c float64) constFmod {
	f := constFmod{c: c}
	if c > -fmodLimit && c < fmodLimit && c != 0 && float64(int64(c)) == c {
		f.rem, f.int = newConstRem(int64(c)), true
	}
	return f
}

// mod is math.Mod(x, f.c).
func (f *constFmod) mod(x float64) float64 {
	if f.int {
		if xi, ok := fmodInteger(x); ok {
			var r int64
			if !f.rem.zero { // |c| = 1: every remainder is 0
				r = f.rem.rem(xi)
			}
			return fmodResult(x, r)
		}
	}
	return math.Mod(x, f.c)
}
