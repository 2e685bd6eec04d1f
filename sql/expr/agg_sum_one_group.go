package expr

import sqltypes "github.com/weirhq/weir/sql/types"

// A global aggregate has one group, so every row adds into slot 0. The grouped loops add
// through s.floats[g] / s.ints[g]: each row's add then waits for the previous row's store to
// be forwarded to its load (about 9 cycles a row, half of `sum(CAST(id AS DOUBLE) * 0.95)`'s
// aggregate time). With one group the sum runs in a register instead: the same additions in
// the same order, so the same result bit for bit.

// sumFloatsOneGroup adds vals (no NULLs) into the only group of a double sum or average.
func sumFloatsOneGroup[T float64 | int64 | int32](s *sumAcc, vals []T, sign int64) {
	acc, f := s.floats[0], float64(sign)
	for _, v := range vals {
		acc += f * float64(v)
	}
	s.floats[0] = acc
	s.n[0] += sign * int64(len(vals))
}

// sumIntsOneGroup is addIntsNoNull for the only group of a long sum or average.
func sumIntsOneGroup(s *sumAcc, vals []int64, sign int64) error {
	acc := s.ints[0]
	var ovf int64
	for _, v := range vals {
		v *= sign
		r := acc + v
		ovf |= (acc ^ r) & (v ^ r)
		acc = r
	}
	s.ints[0] = acc
	s.n[0] += sign * int64(len(vals))
	if ovf < 0 && s.ansi && !s.avg {
		return intOverflow(sqltypes.Long, "+")
	}
	return nil
}
