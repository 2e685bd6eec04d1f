package expr

import (
	"errors"
	"math"
	"math/bits"
	"slices"
)

// Tuple sketches in Apache DataSketches' (Java 6.2) layouts: a theta sketch whose hashes each
// carry a summary, here a double or an int updated by a mode (sum, min, max, alwaysone). Unlike
// the theta sketch, a tuple sketch is serialized in the order of its hash table (open addressing
// with DataSketches' probe strides, grown 8x then rebuilt at 15/16 of 2k), so the table is kept
// here slot for slot as DataSketches keeps it: the same updates in the same order give the same
// bytes.

type tupleValue interface{ ~float64 | ~int32 }

type tupleMode byte

const (
	tupleSum tupleMode = iota
	tupleMin
	tupleMax
	tupleAlwaysOne
)

var tupleModeNames = []string{"sum", "min", "max", "alwaysone"}

var errTupleCorrupt = errors.New("expr: not a valid tuple sketch")

// tupleSummary is DoubleSummary / IntegerSummary: a value and the mode that updates it.
type tupleSummary[V tupleValue] struct {
	v    V
	mode tupleMode
}

func newTupleSummary[V tupleValue](mode tupleMode) tupleSummary[V] {
	var v V
	switch mode {
	case tupleMin, tupleMax:
		v = tupleExtreme[V](mode == tupleMin)
	case tupleAlwaysOne:
		v = 1
	}
	return tupleSummary[V]{v, mode}
}

// tupleExtreme is the largest (or smallest) value of V: the start of a min (max) summary.
func tupleExtreme[V tupleValue](largest bool) V {
	var zero V
	if _, isInt := any(zero).(int32); isInt {
		if largest {
			return V(math.MaxInt32)
		}
		return V(math.MinInt32)
	}
	if largest {
		return V(math.Inf(1))
	}
	return V(math.Inf(-1))
}

func (s *tupleSummary[V]) update(x V) {
	switch s.mode {
	case tupleSum:
		s.v += x
	case tupleMin:
		if x < s.v {
			s.v = x
		}
	case tupleMax:
		if x > s.v {
			s.v = x
		}
	default:
		s.v = 1
	}
}

// combine is the summary set operations' union and intersection: a fresh summary of mode
// updated with a's value, then b's.
func (a tupleSummary[V]) combine(b tupleSummary[V], mode tupleMode) tupleSummary[V] {
	r := newTupleSummary[V](mode)
	r.update(a.v)
	r.update(b.v)
	return r
}

// tupleStride and the probes are DataSketches' HashOperations over a table of 2^lg slots.
func tupleStride(h uint64, lg int) int { return 2*int((h>>lg)&127) + 1 }

// tupleProbe finds h in table, or the empty slot where it goes (found false).
func tupleProbe(table []uint64, lg int, h uint64) (int, bool) {
	mask := len(table) - 1
	stride := tupleStride(h, lg)
	i := int(h) & mask
	for start := i; ; {
		switch table[i] {
		case 0:
			return i, false
		case h:
			return i, true
		}
		if i = (i + stride) & mask; i == start {
			return -1, false
		}
	}
}

// tupleQS is DataSketches' tuple QuickSelectSketch: the hash table and its summaries.
type tupleQS[V tupleValue] struct {
	nom, lg, threshold, count int
	table                     []uint64
	sums                      []tupleSummary[V]
	theta                     uint64
	empty                     bool
}

func newTupleQS[V tupleValue](nom int) *tupleQS[V] {
	nom = 1 << bits.Len(uint(nom-1)) // ceilingPowerOf2
	lgTarget := bits.TrailingZeros(uint(nom * 2))
	lg := 5
	if lgTarget > 5 {
		lg = (lgTarget-5)%3 + 5
	}
	q := &tupleQS[V]{nom: nom, theta: thetaMax, empty: true}
	q.setTable(lg)
	return q
}

func (q *tupleQS[V]) setTable(lg int) {
	q.lg, q.count = lg, 0
	q.table, q.sums = make([]uint64, 1<<lg), make([]tupleSummary[V], 1<<lg)
	if 1<<lg > q.nom {
		q.threshold = int(float64(int(1)<<lg) * 15 / 16)
	} else {
		q.threshold = int(float64(int(1)<<lg) * 0.5)
	}
}

// findOrInsert returns h's slot, inserting it (counted) when absent.
func (q *tupleQS[V]) findOrInsert(h uint64) (int, bool) {
	i, found := tupleProbe(q.table, q.lg, h)
	if !found {
		q.table[i] = h
		q.count++
	}
	return i, !found
}

// update is UpdatableSketch.insertOrIgnore: a new hash gets a fresh summary of mode.
func (q *tupleQS[V]) update(h uint64, v V, mode tupleMode) {
	q.empty = false
	if h >= q.theta {
		return
	}
	i, inserted := q.findOrInsert(h)
	if inserted {
		q.sums[i] = newTupleSummary[V](mode)
	}
	q.sums[i].update(v)
	q.rebuildIfNeeded()
}

// merge is QuickSelectSketch.merge: a union's insert of another sketch's entry.
func (q *tupleQS[V]) merge(h uint64, s tupleSummary[V], mode tupleMode) {
	q.empty = false
	if h == 0 || h >= q.theta {
		return
	}
	i, inserted := q.findOrInsert(h)
	if inserted {
		q.sums[i] = s
	} else {
		q.sums[i] = q.sums[i].combine(s, mode)
	}
	q.rebuildIfNeeded()
}

func (q *tupleQS[V]) rebuildIfNeeded() {
	if q.count <= q.threshold {
		return
	}
	if len(q.table) > q.nom {
		q.theta = tupleSelect(q.table, q.theta, q.nom)
		q.resize(q.lg)
	} else {
		q.resize(q.lg + 3)
	}
}

// tupleSelect is the (k+1)-th smallest hash below theta in table (QuickSelect.select at k).
func tupleSelect(table []uint64, theta uint64, k int) uint64 {
	var hs []uint64
	for _, h := range table {
		if h != 0 && h < theta {
			hs = append(hs, h)
		}
	}
	slices.Sort(hs)
	return hs[k]
}

// resize reinserts the entries below theta, in slot order, into a table of 2^lg slots.
func (q *tupleQS[V]) resize(lg int) {
	oldTable, oldSums := q.table, q.sums
	q.setTable(lg)
	for i, h := range oldTable {
		if h != 0 && h < q.theta {
			j, _ := tupleProbe(q.table, q.lg, h)
			q.table[j], q.sums[j] = h, oldSums[i]
			q.count++
		}
	}
}

// compact lists the entries in slot order.
func (q *tupleQS[V]) compact() *tupleCompact[V] {
	c := &tupleCompact[V]{theta: q.theta, empty: q.empty}
	if q.count == 0 {
		if q.empty {
			c.theta = thetaMax
		}
		return c
	}
	for i, h := range q.table {
		if h != 0 {
			c.hashes, c.sums = append(c.hashes, h), append(c.sums, q.sums[i])
		}
	}
	return c
}

// tupleCompact is a compact tuple sketch: entries in their table order.
type tupleCompact[V tupleValue] struct {
	hashes []uint64
	sums   []tupleSummary[V]
	theta  uint64
	empty  bool
}

func (c *tupleCompact[V]) thetaLong() uint64 {
	if c.empty {
		return thetaMax
	}
	return c.theta
}

func (c *tupleCompact[V]) estimationMode() bool { return c.theta < thetaMax && !c.empty }

func (c *tupleCompact[V]) thetaFraction() float64 { return float64(c.thetaLong()) / float64(thetaMax) }

func (c *tupleCompact[V]) estimate() float64 {
	if !c.estimationMode() {
		return float64(len(c.hashes))
	}
	return float64(len(c.hashes)) / c.thetaFraction()
}

// tupleUnion is DataSketches' tuple Union over a QuickSelect sketch of nom entries.
type tupleUnion[V tupleValue] struct {
	q          *tupleQS[V]
	unionTheta uint64
	empty      bool
	mode       tupleMode
}

func newTupleUnion[V tupleValue](nom int, mode tupleMode) *tupleUnion[V] {
	return &tupleUnion[V]{q: newTupleQS[V](nom), unionTheta: thetaMax, empty: true, mode: mode}
}

func (u *tupleUnion[V]) add(c *tupleCompact[V]) {
	if c.empty {
		return
	}
	u.empty = false
	u.unionTheta = min(c.theta, u.unionTheta)
	for i, h := range c.hashes {
		u.q.merge(h, c.sums[i], u.mode)
	}
	u.unionTheta = min(u.unionTheta, u.q.theta)
}

// addTheta unions a theta sketch whose hashes all carry summary s.
func (u *tupleUnion[V]) addTheta(t *thetaCompact, s tupleSummary[V]) {
	if t.empty {
		return
	}
	u.empty = false
	u.unionTheta = min(t.theta, u.unionTheta)
	for _, h := range t.hashes {
		u.q.merge(h, s, u.mode)
	}
	u.unionTheta = min(u.unionTheta, u.q.theta)
}

func (u *tupleUnion[V]) result() *tupleCompact[V] {
	q := u.q
	if u.empty || u.unionTheta >= q.theta && q.count <= q.nom {
		return q.compact()
	}
	theta := min(u.unionTheta, q.theta)
	n := 0
	for _, h := range q.table {
		if h != 0 && h < theta {
			n++
		}
	}
	if n == 0 {
		return &tupleCompact[V]{theta: theta, empty: u.empty}
	}
	if n > q.nom {
		theta = tupleSelect(q.table, theta, q.nom)
	}
	c := &tupleCompact[V]{theta: theta, empty: u.empty}
	for i, h := range q.table {
		if h != 0 && h < theta {
			c.hashes, c.sums = append(c.hashes, h), append(c.sums, q.sums[i])
		}
	}
	return c
}
