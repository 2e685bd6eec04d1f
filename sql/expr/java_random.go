package expr

// javaRandom is java.util.Random's linear congruential generator (histogram_numeric's tie
// breaks, count_min_sketch's hash functions).
type javaRandom struct{ seed int64 }

const javaRandomMultiplier = 0x5DEECE66D

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaRandomMultiplier) & (1<<48 - 1)}
}

func (r *javaRandom) next(bits uint) int64 {
	r.seed = (r.seed*javaRandomMultiplier + 0xB) & (1<<48 - 1)
	return int64(int32(r.seed >> (48 - bits)))
}

func (r *javaRandom) nextDouble() float64 {
	return float64(r.next(26)<<27+r.next(27)) * (1.0 / (1 << 53))
}

// nextInt is Random.nextInt(bound), bound > 0: uniform in [0, bound), rejecting the draws that
// would bias it.
func (r *javaRandom) nextInt(bound int32) int32 {
	v := int32(r.next(31))
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(v)) >> 31)
	}
	for u := v; ; u = int32(r.next(31)) {
		v = u % bound
		if u-v+m >= 0 { // int32 overflow marks a biased draw, as in Java
			return v
		}
	}
}
