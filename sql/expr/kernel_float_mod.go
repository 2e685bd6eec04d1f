package expr

import "math"

// fmod is math.Mod(x, y) (Java's double %: the sign of x, exact), computed by an integer
// remainder when x and y are integers of magnitude below 2^53, where the conversions are exact:
// math.Mod's bit-by-bit reduction took four fifths of a stream's `CAST(value AS DOUBLE) % 3.0`.
// A zero remainder keeps x's sign (-6.0 % 3.0 is -0.0). Everything else is math.Mod.
func fmod(x, y float64) float64 {
	const lim = 1 << 53
	if x > -lim && x < lim && y > -lim && y < lim && y != 0 {
		xi, yi := int64(x), int64(y)
		if float64(xi) == x && float64(yi) == y {
			if r := xi % yi; r != 0 {
				return float64(r)
			}
			return math.Copysign(0, x)
		}
	}
	return math.Mod(x, y)
}
