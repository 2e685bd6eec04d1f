package expr

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// growTo extends s to n elements.
func growTo[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// countAcc is count(args…): rows where every argument is non-null.
type countAcc struct{ counts []int64 }

// CountsEveryRow reports whether f counts every input row whatever its arguments hold:
// count(*) (bound as count(1)) or count of other non-NULL literals, not DISTINCT. Its
// accumulator's Update and Retract then take no argument arrays (nil), so an operator need not
// build a column of the constant for every batch.
func CountsEveryRow(f AggFunc) bool {
	a, ok := f.(*aggFunc)
	if !ok || a.name != "count" || a.distinct {
		return false
	}
	for _, e := range a.args {
		if l, ok := e.(*Literal); !ok || l.Value == nil {
			return false
		}
	}
	return true
}

func (c *countAcc) Grow(n int)       { c.counts = growTo(c.counts, n) }
func (c *countAcc) SizeBytes() int64 { return int64(len(c.counts)) * 8 }

func (c *countAcc) add(groups []uint32, args []arrow.Array, d int64) error {
	anyNull := false
	for _, a := range args {
		if a.NullN() > 0 {
			anyNull = true
		}
	}
	if !anyNull && len(c.counts) == 1 {
		c.counts[0] += d * int64(len(groups)) // one group (a global count): every id is 0
		return nil
	}
	if !anyNull {
		for _, g := range groups {
			c.counts[g] += d
		}
		return nil
	}
rows:
	for i, g := range groups {
		for _, a := range args {
			if isNullAt(a, i) {
				continue rows
			}
		}
		c.counts[g] += d
	}
	return nil
}

func (c *countAcc) Update(groups []uint32, args []arrow.Array) error  { return c.add(groups, args, 1) }
func (c *countAcc) Retract(groups []uint32, args []arrow.Array) error { return c.add(groups, args, -1) }

func (c *countAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]int64, len(groups))
	for i, g := range groups {
		out[i] = c.counts[g]
	}
	return buildNumeric(ctx.mem(), out, nil), nil
}

// sumAcc is sum and avg: per-group sum and non-null count, so retraction subtracts.
type sumAcc struct {
	in, t   sqltypes.DataType
	ansi    bool
	avg     bool
	avgType sqltypes.DataType
	// try (try_sum/try_avg) turns overflow into a NULL result for the group.
	try      bool
	overflow []bool
	n        []int64
	ints     []int64
	floats   []float64
	decs     []*big.Int
	// pend and dirty hold addDecimals' per-group 192-bit partial sums within one batch.
	pend  []sum192
	dirty []bool
}

func newSumAcc(in, t sqltypes.DataType, ansi, avg bool) *sumAcc {
	return &sumAcc{in: in, t: t, ansi: ansi, avg: avg}
}

func (s *sumAcc) Grow(n int) {
	s.n = growTo(s.n, n)
	s.overflow = growTo(s.overflow, n)
	switch s.t.Kind {
	case sqltypes.Long, sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		s.ints = growTo(s.ints, n)
	case sqltypes.Decimal:
		s.decs = growTo(s.decs, n)
	default:
		s.floats = growTo(s.floats, n)
	}
}

func (s *sumAcc) SizeBytes() int64 { return int64(len(s.n)) * 24 }

func (s *sumAcc) Update(groups []uint32, args []arrow.Array) error { return s.add(groups, args[0], 1) }
func (s *sumAcc) Retract(groups []uint32, args []arrow.Array) error {
	return s.add(groups, args[0], -1)
}

func (s *sumAcc) add(groups []uint32, a arrow.Array, sign int64) error {
	switch x := a.(type) {
	case *array.Int64:
		if s.t.Kind == sqltypes.Double {
			addFloats(s, groups, x, x.Int64Values(), sign)
			return nil
		}
		if s.ints != nil || s.t.Kind == sqltypes.Long {
			vals := x.Int64Values()
			if x.NullN() == 0 && !s.try {
				return s.addIntsNoNull(groups, vals, sign)
			}
			for i, g := range groups {
				if x.IsNull(i) {
					continue
				}
				if err := s.addInt(g, sign*vals[i]); err != nil {
					return err
				}
				s.n[g] += sign
			}
			return nil
		}
	case *array.Float64:
		if s.t.Kind == sqltypes.Double {
			vals := x.Float64Values()
			noNull := x.NullN() == 0
			if noNull && len(s.n) == 1 {
				sumFloatsOneGroup(s, vals[:len(groups)], sign)
				return nil
			}
			for i, g := range groups {
				if noNull || x.IsValid(i) {
					s.floats[g] += float64(sign) * vals[i]
					s.n[g] += sign
				}
			}
			return nil
		}
	case *array.Decimal128:
		if s.t.Kind == sqltypes.Decimal && s.in.Kind == sqltypes.Decimal {
			s.addDecimals(groups, x, sign)
			return nil
		}
	case *array.Int32:
		if s.t.Kind == sqltypes.Double {
			addFloats(s, groups, x, x.Int32Values(), sign)
			return nil
		}
		if s.t.Kind == sqltypes.Long {
			vals := x.Int32Values()
			for i, g := range groups {
				if x.IsNull(i) {
					continue
				}
				if err := s.addInt(g, sign*int64(vals[i])); err != nil {
					return err
				}
				s.n[g] += sign
			}
			return nil
		}
	}
	return s.addValues(groups, a, sign)
}

// addValues is the row-at-a-time path through Go values: any input layout (and the oracle of
// the typed paths in tests).
func (s *sumAcc) addValues(groups []uint32, a arrow.Array, sign int64) error {
	for i, g := range groups {
		v := ValueAt(a, i, s.in)
		if v == nil {
			continue
		}
		s.n[g] += sign
		switch s.t.Kind {
		case sqltypes.Long, sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
			if err := s.addInt(g, sign*toInt64(v)); err != nil {
				return err
			}
		case sqltypes.Decimal:
			b := v.(decimal128.Num).BigInt()
			if sign < 0 {
				b.Neg(b)
			}
			if s.decs[g] == nil {
				s.decs[g] = new(big.Int)
			}
			s.decs[g].Add(s.decs[g], b)
		default:
			f, _ := castAsDouble(v, s.in)
			s.floats[g] += float64(sign) * f
		}
	}
	return nil
}

// addFloats adds integers to double sums (avg over integers), as the generic path's cast does.
func addFloats[T int32 | int64](s *sumAcc, groups []uint32, a arrow.Array, vals []T, sign int64) {
	noNull := a.NullN() == 0
	if noNull && len(s.n) == 1 {
		sumFloatsOneGroup(s, vals[:len(groups)], sign)
		return
	}
	for i, g := range groups {
		if noNull || a.IsValid(i) {
			s.floats[g] += float64(sign) * float64(vals[i])
			s.n[g] += sign
		}
	}
}

// sum192 is a signed 192-bit integer (two's complement over lo, mid, hi): a sum of 128-bit
// decimal unscaled values (|v| < 10^38 < 2^127) overflows it only after 2^64 of them.
type sum192 struct {
	lo, mid uint64
	hi      int64
}

func (a *sum192) add(v decimal128.Num) {
	vh := v.HighBits()
	lo, c := bits.Add64(a.lo, v.LowBits(), 0)
	mid, c2 := bits.Add64(a.mid, uint64(vh), c)
	a.lo, a.mid = lo, mid
	a.hi += vh>>63 + int64(c2) // v sign-extended into the top word, plus the carry
}

// addTo adds a to b.
func (a sum192) addTo(b *big.Int) {
	var t, w big.Int
	t.SetInt64(a.hi)
	t.Lsh(&t, 64)
	t.Add(&t, w.SetUint64(a.mid))
	t.Lsh(&t, 64)
	t.Add(&t, w.SetUint64(a.lo))
	b.Add(b, &t)
}

// addDecimals adds a batch of decimals (any precision up to 38) to their groups' sums: per
// group in a 192-bit integer through the batch, then once into the group's big.Int, rather
// than a big.Int per value.
func (s *sumAcc) addDecimals(groups []uint32, x *array.Decimal128, sign int64) {
	s.pend = growTo(s.pend, len(s.decs))
	s.dirty = growTo(s.dirty, len(s.decs))
	var touched []uint32
	noNull := x.NullN() == 0
	vals := x.Values()
	for i, g := range groups {
		if !noNull && x.IsNull(i) {
			continue
		}
		v := vals[i]
		if sign < 0 {
			v = v.Negate()
		}
		if !s.dirty[g] {
			s.dirty[g] = true
			touched = append(touched, g)
		}
		s.pend[g].add(v)
		s.n[g] += sign
	}
	for _, g := range touched {
		if s.decs[g] == nil {
			s.decs[g] = new(big.Int)
		}
		s.pend[g].addTo(s.decs[g])
		s.pend[g] = sum192{}
		s.dirty[g] = false
	}
}

// addIntsNoNull is addInt over a column without NULLs for a sum without try's per-group
// overflow flags: one loop without a branch per row; the sign bits of (old^r)&(v^r) collect
// whether any addition overflowed (then ANSI sum fails, as addInt would at that row; legacy
// sums and averages wrap, as addInt does).
func (s *sumAcc) addIntsNoNull(groups []uint32, vals []int64, sign int64) error {
	ints, n := s.ints, s.n
	vals = vals[:len(groups)]
	if len(n) == 1 {
		return sumIntsOneGroup(s, vals, sign)
	}
	var ovf int64
	for i, g := range groups {
		old := ints[g]
		v := sign * vals[i]
		r := old + v
		ovf |= (old ^ r) & (v ^ r)
		ints[g] = r
		n[g] += sign
	}
	if ovf < 0 && s.ansi && !s.avg {
		return intOverflow(sqltypes.Long, "+")
	}
	return nil
}

func (s *sumAcc) addInt(g uint32, v int64) error {
	old := s.ints[g]
	r := old + v
	if (old >= 0) == (v >= 0) && (r >= 0) != (old >= 0) {
		if s.try {
			s.overflow[g] = true
		} else if s.ansi && !s.avg {
			return intOverflow(sqltypes.Long, "+")
		}
	}
	s.ints[g] = r
	return nil
}

func (s *sumAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	rt := s.t
	if s.avg {
		rt = s.avgType
	}
	out := make([]any, len(groups))
	for i, g := range groups {
		if s.n[g] <= 0 || s.overflow[g] {
			continue
		}
		switch s.t.Kind {
		case sqltypes.Long:
			if s.avg {
				out[i] = float64(s.ints[g]) / float64(s.n[g])
			} else {
				out[i] = s.ints[g]
			}
		case sqltypes.DayTimeInterval:
			if s.avg {
				out[i] = s.ints[g] / s.n[g]
			} else {
				out[i] = s.ints[g]
			}
		case sqltypes.YearMonthInterval:
			if s.avg {
				out[i] = int32(s.ints[g] / s.n[g])
			} else {
				out[i] = int32(s.ints[g])
			}
		case sqltypes.Decimal:
			v, ok, err := decimalSumResult(orZero(s.decs[g]), s.n[g], s.t, rt, s.avg, s.ansi && !s.try)
			if err != nil {
				return nil, err
			}
			if ok {
				out[i] = v
			}
		default:
			if s.avg {
				out[i] = s.floats[g] / float64(s.n[g])
			} else {
				out[i] = s.floats[g]
			}
		}
	}
	return BuildArray(ctx.mem(), rt, ctx.tz(), out), nil
}

// boolCountAcc counts true and false values: count_if, bool_and, bool_or.
type boolCountAcc struct {
	mode        string
	trues, fals []int64
}

func (b *boolCountAcc) Grow(n int) {
	b.trues, b.fals = growTo(b.trues, n), growTo(b.fals, n)
}
func (b *boolCountAcc) SizeBytes() int64 { return int64(len(b.trues)) * 16 }

func (b *boolCountAcc) add(groups []uint32, a arrow.Array, d int64) error {
	x := a.(*array.Boolean)
	for i, g := range groups {
		if x.IsNull(i) {
			continue
		}
		if x.Value(i) {
			b.trues[g] += d
		} else {
			b.fals[g] += d
		}
	}
	return nil
}

func (b *boolCountAcc) Update(groups []uint32, args []arrow.Array) error {
	return b.add(groups, args[0], 1)
}
func (b *boolCountAcc) Retract(groups []uint32, args []arrow.Array) error {
	return b.add(groups, args[0], -1)
}

func (b *boolCountAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	if b.mode == "count_if" {
		out := make([]int64, len(groups))
		for i, g := range groups {
			out[i] = b.trues[g]
		}
		return buildNumeric(ctx.mem(), out, nil), nil
	}
	vals := make([]bool, len(groups))
	valid := make([]bool, len(groups))
	for i, g := range groups {
		t, f := b.trues[g], b.fals[g]
		valid[i] = t+f > 0
		if b.mode == "and" {
			vals[i] = f == 0
		} else {
			vals[i] = t > 0
		}
	}
	return buildBools(ctx.mem(), vals, valid), nil
}

// momentsAcc keeps count, mean and M2 (Welford) per group, with removal for retraction.
type momentsAcc struct {
	kind string
	n    []float64
	mean []float64
	m2   []float64
}

func (m *momentsAcc) Grow(n int) {
	m.n, m.mean, m.m2 = growTo(m.n, n), growTo(m.mean, n), growTo(m.m2, n)
}
func (m *momentsAcc) SizeBytes() int64 { return int64(len(m.n)) * 24 }

func (m *momentsAcc) Update(groups []uint32, args []arrow.Array) error {
	x := args[0].(*array.Float64)
	vals := x.Float64Values()
	for i, g := range groups {
		if x.IsNull(i) {
			continue
		}
		// Spark's CentralMomentAgg update, for identical rounding.
		v := vals[i]
		newN := m.n[g] + 1
		delta := v - m.mean[g]
		deltaN := delta / newN
		m.mean[g] += deltaN
		m.m2[g] += delta * (delta - deltaN)
		m.n[g] = newN
	}
	return nil
}

func (m *momentsAcc) Retract(groups []uint32, args []arrow.Array) error {
	x := args[0].(*array.Float64)
	vals := x.Float64Values()
	for i, g := range groups {
		if x.IsNull(i) {
			continue
		}
		v := vals[i]
		if m.n[g] <= 1 {
			m.n[g], m.mean[g], m.m2[g] = 0, 0, 0
			continue
		}
		newN := m.n[g]
		m.n[g]--
		m.mean[g] = (m.mean[g]*newN - v) / m.n[g]
		delta := v - m.mean[g]
		m.m2[g] -= delta * (delta - delta/newN)
		if m.m2[g] < 0 {
			m.m2[g] = 0
		}
	}
	return nil
}

func (m *momentsAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]float64, len(groups))
	valid := make([]bool, len(groups))
	for i, g := range groups {
		n := m.n[g]
		switch m.kind {
		case "var_pop", "stddev_pop":
			if n > 0 {
				out[i], valid[i] = m.m2[g]/n, true
			}
		default:
			if n > 1 {
				out[i], valid[i] = m.m2[g]/(n-1), true
			}
		}
		if valid[i] && (m.kind == "stddev_samp" || m.kind == "stddev_pop") {
			out[i] = math.Sqrt(out[i])
		}
	}
	return buildNumeric(ctx.mem(), out, valid), nil
}
