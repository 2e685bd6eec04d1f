package operators

import (
	"errors"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// evalFunc computes one window function for every sorted row.
func (w *windowOp) evalFunc(f *logical.WindowFunc, rows *windowRows, user arrow.RecordBatch) (arrow.Array, error) {
	switch f.Kind {
	case logical.WindowRowNumber, logical.WindowRank, logical.WindowDenseRank, logical.WindowNTile:
		return w.rankInts(f, rows), nil
	case logical.WindowPercentRank, logical.WindowCumeDist:
		return w.rankFloats(f, rows), nil
	case logical.WindowAggregate:
		return w.aggregate(f, rows, user)
	}
	return w.valueAt(f, rows, user)
}

func (w *windowOp) rankInts(f *logical.WindowFunc, rows *windowRows) arrow.Array {
	vs := make([]int32, rows.n)
	dense := int32(0)
	for i := 0; i < rows.n; i++ {
		s := rows.partStart[i]
		switch f.Kind {
		case logical.WindowRowNumber:
			vs[i] = int32(i - s + 1)
		case logical.WindowRank:
			vs[i] = int32(rows.peerStart[i] - s + 1)
		case logical.WindowDenseRank:
			if i == s {
				dense = 0
			}
			if rows.peerStart[i] == i {
				dense++
			}
			vs[i] = dense
		case logical.WindowNTile:
			vs[i] = ntile(int64(i-s), int64(rows.partEnd[i]-s), f.Offset)
		}
	}
	b := array.NewInt32Builder(w.env.Mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// ntile is the bucket (1-based) of row r of n among k buckets, as Spark's NTile: the first
// n%k buckets hold one row more.
func ntile(r, n, k int64) int32 {
	size, rem := n/k, n%k
	if r < rem*(size+1) {
		return int32(r/(size+1) + 1)
	}
	return int32(rem + (r-rem*(size+1))/size + 1)
}

func (w *windowOp) rankFloats(f *logical.WindowFunc, rows *windowRows) arrow.Array {
	vs := make([]float64, rows.n)
	for i := 0; i < rows.n; i++ {
		s, n := rows.partStart[i], rows.partEnd[i]-rows.partStart[i]
		if f.Kind == logical.WindowCumeDist {
			vs[i] = float64(rows.peerEnd[i]-s) / float64(n)
		} else if n > 1 {
			vs[i] = float64(rows.peerStart[i]-s) / float64(n-1)
		}
	}
	b := array.NewFloat64Builder(w.env.Mem)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

// valueAt computes lag, lead, nth_value, first and last: each row's value is another row's
// (a take), or the default (lag, lead) or NULL.
func (w *windowOp) valueAt(f *logical.WindowFunc, rows *windowRows, user arrow.RecordBatch) (arrow.Array, error) {
	es := []expr.Expr{f.Value}
	if f.Default != nil {
		es = append(es, f.Default)
	}
	vals, err := evalUser(w.ctx, es, user)
	if err != nil {
		return nil, err
	}
	defer releaseAll(vals)
	value := vals[0]
	n := rows.n
	// nonNull lists the rows whose value is not NULL; before[i] counts those before row i.
	var nonNull []int
	var before []int
	if f.IgnoreNulls {
		before = make([]int, n+1)
		for i := 0; i < n; i++ {
			before[i] = len(nonNull)
			if value.IsValid(i) {
				nonNull = append(nonNull, i)
			}
		}
		before[n] = len(nonNull)
	}
	idx := make([]int64, n)
	valid := make([]bool, n)
	frames := newFrameCursor(f.Frame, rows)
	for i := 0; i < n; i++ {
		s, e := rows.partStart[i], rows.partEnd[i]
		j := -1
		switch f.Kind {
		case logical.WindowOffset:
			switch {
			case !f.IgnoreNulls:
				if t := i + int(f.Offset); t >= s && t < e {
					j = i + int(f.Offset)
				}
			case f.Offset > 0:
				if k := before[i+1] + int(f.Offset) - 1; k < len(nonNull) && nonNull[k] < e {
					j = nonNull[k]
				}
			case f.Offset < 0:
				if k := before[i] + int(f.Offset); k >= 0 && nonNull[k] >= s {
					j = nonNull[k]
				}
			default:
				j = i
			}
			if j < 0 {
				idx[i], valid[i] = int64(n+i), true // the default
				continue
			}
		default:
			lo, hi := frames.frame(i)
			j = frameValue(f, lo, hi, nonNull, before)
		}
		if j >= 0 {
			idx[i], valid[i] = int64(j), true
		}
	}
	src := value
	if f.Kind == logical.WindowOffset {
		c, err := array.Concatenate([]arrow.Array{value, vals[1]}, w.env.Mem)
		if err != nil {
			return nil, sparkerr.Internal("concatenate: %v", err).Wrap(err)
		}
		defer c.Release()
		src = c
	}
	out, err := take(w.env.Mem, []arrow.Array{src}, idx, valid)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// frameValue is the row nth_value, first or last reads in frame [lo, hi), or -1.
func frameValue(f *logical.WindowFunc, lo, hi int, nonNull, before []int) int {
	if lo >= hi {
		return -1
	}
	switch f.Kind {
	case logical.WindowNthValue:
		if !f.IgnoreNulls {
			if j := lo + int(f.Offset) - 1; j < hi {
				return j
			}
			return -1
		}
		if k := before[lo] + int(f.Offset) - 1; k < len(nonNull) && nonNull[k] < hi {
			return nonNull[k]
		}
	case logical.WindowFirst:
		if !f.IgnoreNulls {
			return lo
		}
		if k := before[lo]; k < len(nonNull) && nonNull[k] < hi {
			return nonNull[k]
		}
	case logical.WindowLast:
		if !f.IgnoreNulls {
			return hi - 1
		}
		if k := before[hi] - 1; k >= 0 && nonNull[k] >= lo {
			return nonNull[k]
		}
	}
	return -1
}

// recomputeMax is the largest frame a sliding aggregate over floating-point values recomputes
// from scratch rather than retracting leaving rows: recomputing keeps Spark's summation order
// (its sliding frame recomputes every frame), so small frames give Spark's exact doubles; larger
// ones retract, O(n) instead of O(n·frame), at the price of rounding differences.
const recomputeMax = 64

// aggregate computes an aggregate over each row's frame with one accumulator (group 0) whose
// frame slides forward; rows sharing a frame share its result.
func (w *windowOp) aggregate(f *logical.WindowFunc, rows *windowRows, user arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalUser(w.ctx, f.Agg.Args(), user)
	if err != nil {
		return nil, err
	}
	defer releaseAll(args)
	floating := false
	for _, a := range f.Agg.Args() {
		if k := a.Type().Kind; k == sqltypes.Float || k == sqltypes.Double {
			floating = true
		}
	}
	s := &slider{ctx: w.ctx, fn: f.Agg, args: args, zeros: make([]uint32, rows.n), floating: floating,
		copyState: smallState[f.Agg.Name()]}
	defer s.release()
	frames := newFrameCursor(f.Frame, rows)
	resIdx := make([]int64, rows.n)
	prevLo, prevHi, prevPart := -1, -1, -1
	for i := 0; i < rows.n; i++ {
		lo, hi := frames.frame(i)
		if lo >= hi {
			lo, hi = rows.partStart[i], rows.partStart[i]
		}
		if lo == prevLo && hi == prevHi && rows.partStart[i] == prevPart {
			resIdx[i] = s.count - 1
			continue
		}
		if err := s.moveTo(lo, hi); err != nil {
			return nil, err
		}
		if err := s.result(); err != nil {
			return nil, err
		}
		resIdx[i] = s.count - 1
		prevLo, prevHi, prevPart = lo, hi, rows.partStart[i]
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	all, err := array.Concatenate(s.results, w.env.Mem)
	if err != nil {
		return nil, sparkerr.Internal("concatenate: %v", err).Wrap(err)
	}
	defer all.Release()
	out, err := take(w.env.Mem, []arrow.Array{all}, resIdx, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// smallState are the aggregates whose group state is a few numbers, so that copying it is
// cheaper than asking for a result (see slider.copyState).
var smallState = map[string]bool{
	"count": true, "sum": true, "avg": true, "mean": true, "count_if": true,
	"bool_and": true, "every": true, "bool_or": true, "some": true, "any": true,
	"stddev": true, "std": true, "stddev_samp": true, "stddev_pop": true,
	"variance": true, "var_samp": true, "var_pop": true,
}

// resultSlots is how many frame states a copying slider collects before asking for their
// results at once.
const resultSlots = 1024

// slider is an accumulator over the rows [lo, hi) of the sorted input, in group 0. Each frame's
// result is either asked for at once (a one-value array) or, with copyState, the state of group
// 0 is copied into a result slot (groups 1..resultSlots) and the slots' results are asked for
// together: one array per resultSlots frames instead of one per frame.
type slider struct {
	ctx       *expr.Context
	fn        expr.AggFunc
	args      []arrow.Array
	zeros     []uint32
	floating  bool
	copyState bool
	acc       expr.GroupedAccumulator
	lo, hi    int
	results   []arrow.Array
	// count is how many frame results were taken; pending the slots filled since the last
	// flush.
	count   int64
	pending []uint32
	buf     []byte
	// insertOnly is set once the aggregate refused a retraction (expr.ErrInsertOnly).
	insertOnly bool
}

func (s *slider) reset(at int) error {
	if err := s.flush(); err != nil {
		return err
	}
	s.acc = s.fn.NewAccumulator(s.ctx)
	if _, ok := s.acc.(expr.GroupStateAccumulator); !ok {
		s.copyState = false
	}
	if s.copyState {
		s.acc.Grow(1 + resultSlots)
	} else {
		s.acc.Grow(1)
	}
	s.lo, s.hi = at, at
	return nil
}

// apply adds (or retracts) rows [from, to).
func (s *slider) apply(from, to int, retract bool) error {
	if from >= to {
		return nil
	}
	part := make([]arrow.Array, len(s.args))
	for i, a := range s.args {
		part[i] = array.NewSlice(a, int64(from), int64(to))
	}
	defer releaseAll(part)
	if retract {
		return s.acc.Retract(s.zeros[:to-from], part)
	}
	return s.acc.Update(s.zeros[:to-from], part)
}

// moveTo makes the accumulator hold rows [lo, hi): forward moves add the rows entering and
// retract those leaving; anything else (a new partition, a jump, a small floating-point frame, a
// frame leaving rows behind for an aggregate that cannot retract them) starts afresh.
func (s *slider) moveTo(lo, hi int) error {
	fresh := s.acc == nil || lo < s.lo || hi < s.hi || lo > s.hi || s.insertOnly && lo > s.lo
	if !fresh && lo > s.lo && (s.floating && hi-lo <= recomputeMax || !expr.Retracts(s.fn)) {
		fresh = true
	}
	if fresh {
		if err := s.reset(lo); err != nil {
			return err
		}
	}
	if err := s.apply(s.hi, hi, false); err != nil {
		return err
	}
	if err := s.apply(s.lo, lo, true); err != nil {
		if !errors.Is(err, expr.ErrInsertOnly) {
			return err
		}
		// An aggregate that cannot take rows back (a sketch, histogram_numeric) recomputes
		// its frames from scratch from now on.
		s.insertOnly = true
		if err := s.reset(lo); err != nil {
			return err
		}
		if err := s.apply(lo, hi, false); err != nil {
			return err
		}
	}
	s.lo, s.hi = lo, hi
	return nil
}

// result takes the current frame's result.
func (s *slider) result() error {
	s.count++
	if s.copyState {
		g := s.acc.(expr.GroupStateAccumulator)
		var err error
		if s.buf, err = g.EncodeGroup(s.buf[:0], 0); err != nil {
			return err
		}
		slot := uint32(1 + len(s.pending))
		if err := g.LoadGroup(slot, s.buf); err != nil {
			return err
		}
		s.pending = append(s.pending, slot)
		if len(s.pending) == resultSlots {
			return s.flush()
		}
		return nil
	}
	r, err := s.acc.Result(s.ctx, s.zeros[:1])
	if err != nil {
		return err
	}
	s.results = append(s.results, r)
	return nil
}

// flush asks for the results of the filled slots.
func (s *slider) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	r, err := s.acc.Result(s.ctx, s.pending)
	if err != nil {
		return err
	}
	s.results = append(s.results, r)
	s.pending = s.pending[:0]
	return nil
}

func (s *slider) release() { releaseAll(s.results); s.results = nil }

// frameCursor computes each row's frame [lo, hi) within its partition.
type frameCursor struct {
	f    logical.Frame
	rows *windowRows
	// keys are the RANGE order key's values in the sort direction (negated when descending),
	// for offset bounds; nulls marks NULL keys.
	ikeys []int64
	fkeys []float64
	nulls []bool
}

func newFrameCursor(f logical.Frame, rows *windowRows) *frameCursor {
	c := &frameCursor{f: f, rows: rows}
	if !f.Rows && (f.Lower.Kind == logical.OffsetBound || f.Upper.Kind == logical.OffsetBound) && len(rows.order) == 1 {
		c.loadKeys(rows.order[0])
	}
	return c
}

func (c *frameCursor) loadKeys(a arrow.Array) {
	n := a.Len()
	c.nulls = make([]bool, n)
	_, isFloat := c.f.Lower.Value.(float64)
	if !isFloat {
		_, isFloat = c.f.Upper.Value.(float64)
	}
	if isFloat {
		c.fkeys = make([]float64, n)
	} else {
		c.ikeys = make([]int64, n)
	}
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			c.nulls[i] = true
			continue
		}
		if isFloat {
			c.fkeys[i] = rangeKeyFloat(a, i)
		} else {
			c.ikeys[i] = rangeKeyInt(a, i)
		}
	}
}

// frame is row i's frame, clamped to its partition (lo ≥ hi: empty).
func (c *frameCursor) frame(i int) (int, int) {
	s, e := c.rows.partStart[i], c.rows.partEnd[i]
	lo := c.bound(c.f.Lower, i, s, e, true)
	hi := c.bound(c.f.Upper, i, s, e, false)
	return lo, hi
}

func (c *frameCursor) bound(b logical.FrameBound, i, s, e int, lower bool) int {
	switch b.Kind {
	case logical.UnboundedPreceding:
		return s
	case logical.UnboundedFollowing:
		return e
	case logical.CurrentRow:
		if c.f.Rows {
			if lower {
				return i
			}
			return i + 1
		}
		if lower {
			return c.rows.peerStart[i]
		}
		return c.rows.peerEnd[i]
	}
	if c.f.Rows {
		t := i + int(b.Rows)
		if !lower {
			t++
		}
		return min(max(t, s), e)
	}
	return c.rangeBound(b, i, s, e, lower)
}

// rangeBound finds the first row (lower) or the row after the last (upper) whose key is within
// the offset of row i's key, in the sort direction. A NULL key's frame is its peers (the NULL
// rows); NULL rows are never within an offset of a non-NULL key.
func (c *frameCursor) rangeBound(b logical.FrameBound, i, s, e int, lower bool) int {
	if c.nulls == nil {
		// Checked by the analyzer: a RANGE offset needs exactly one order key.
		return i
	}
	if c.nulls[i] {
		if lower {
			return c.rows.peerStart[i]
		}
		return c.rows.peerEnd[i]
	}
	// The non-NULL rows of the partition form one sorted run.
	ns, ne := s, e
	for ns < e && c.nulls[ns] {
		ns++
	}
	for ne > ns && c.nulls[ne-1] {
		ne--
	}
	desc := len(c.rows.order) == 1 && c.descending()
	var pos int
	if c.fkeys != nil {
		off, _ := b.Value.(float64)
		target := c.fkeys[i] + off
		if desc {
			target = c.fkeys[i] - off
		}
		pos = ns + sort.Search(ne-ns, func(k int) bool {
			v := c.fkeys[ns+k]
			if desc {
				if lower {
					return v <= target
				}
				return v < target
			}
			if lower {
				return v >= target
			}
			return v > target
		})
	} else {
		target := c.intTarget(b, i, desc)
		pos = ns + sort.Search(ne-ns, func(k int) bool {
			v := c.ikeys[ns+k]
			if desc {
				if lower {
					return v <= target
				}
				return v < target
			}
			if lower {
				return v >= target
			}
			return v > target
		})
	}
	return pos
}

func (c *frameCursor) descending() bool { return c.rows.desc }

// intTarget is row i's key moved by an integral offset (against the sort direction when
// descending): plain units, or calendar months over a date or timestamp key.
func (c *frameCursor) intTarget(b logical.FrameBound, i int, desc bool) int64 {
	if m, ok := b.Value.(logical.MonthsOffset); ok {
		n := int(m)
		if desc {
			n = -n
		}
		switch t := c.rows.keyType; t.Kind {
		case sqltypes.Date:
			return int64(expr.AddMonths(int32(c.ikeys[i]), t, n, c.rows.loc).(int32))
		default:
			return expr.AddMonths(c.ikeys[i], t, n, c.rows.loc).(int64)
		}
	}
	off, _ := b.Value.(int64)
	if desc {
		return c.ikeys[i] - off
	}
	return c.ikeys[i] + off
}

// rangeKeyInt reads an integral RANGE order key: integers, days of a date, microseconds of a
// timestamp or day-time interval, months of a year-month interval.
func rangeKeyInt(a arrow.Array, i int) int64 {
	switch x := a.(type) {
	case *array.Date32:
		return int64(x.Value(i))
	case *array.Timestamp:
		return int64(x.Value(i))
	case *array.Duration:
		return int64(x.Value(i))
	case *array.MonthInterval:
		return int64(x.Value(i))
	}
	return intValue(a, i)
}

// rangeKeyFloat reads a floating-point or decimal RANGE order key as a float64.
func rangeKeyFloat(a arrow.Array, i int) float64 {
	switch x := a.(type) {
	case *array.Decimal128:
		return x.Value(i).ToFloat64(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		return float64(intValue(a, i))
	}
	return floatValue(a, i)
}
