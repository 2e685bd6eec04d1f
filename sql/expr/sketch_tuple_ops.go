package expr

import (
	"encoding/binary"
	"errors"
	"math"
)

// Tuple sketch serialization (the compact sketch of serial version 3) and the stateless
// intersection and difference, after DataSketches' tuple CompactSketch, Intersection and AnotB.

const (
	tupleFamily      = 9
	tupleTypeCompact = 1
	tupleFlagEmpty   = 1 << 2
)

// tupleCodec reads and writes one summary type.
type tupleCodec[V tupleValue] struct {
	size int
	put  func(b []byte, v V) []byte
	get  func(b []byte) V
}

var (
	tupleDoubles = tupleCodec[float64]{9,
		func(b []byte, v float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) },
		func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }}
	tupleInts = tupleCodec[int32]{5,
		func(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) },
		func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }}
)

// bytes is CompactSketch.toByteArray: one preamble long when empty or one exact entry, two
// with the count, three with theta too; then each hash followed by its summary.
func (tc tupleCodec[V]) bytes(c *tupleCompact[V]) []byte {
	n := len(c.hashes)
	single := n == 1 && !c.estimationMode()
	preLongs := byte(2)
	switch {
	case c.empty || single:
		preLongs = 1
	case c.estimationMode():
		preLongs = 3
	}
	flags := byte(1<<1 | 1<<3) // read-only, compact
	if c.empty {
		flags |= tupleFlagEmpty
	}
	b := []byte{preLongs, 3, tupleFamily, tupleTypeCompact, 0, flags}
	b = binary.LittleEndian.AppendUint16(b, thetaSeedHash)
	if !c.empty && !single {
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		b = binary.LittleEndian.AppendUint32(b, 0)
		if c.estimationMode() {
			b = binary.LittleEndian.AppendUint64(b, c.theta)
		}
	}
	for i, h := range c.hashes {
		b = binary.LittleEndian.AppendUint64(b, h)
		b = append(tc.put(b, c.sums[i].v), byte(c.sums[i].mode))
	}
	return b
}

// read parses a compact tuple sketch of serial version 2 or 3.
func (tc tupleCodec[V]) read(b []byte) (*tupleCompact[V], error) {
	if len(b) < 8 || b[2] != tupleFamily || b[0] < 1 || b[0] > 3 || b[1] < 2 || b[1] > 3 || b[3] != tupleTypeCompact {
		return nil, errTupleCorrupt
	}
	preLongs := int(b[0])
	c := &tupleCompact[V]{theta: thetaMax, empty: b[5]&tupleFlagEmpty != 0}
	off, n := 8, 0
	if !c.empty {
		n = 1
		if preLongs > 1 {
			if len(b) < 8*preLongs {
				return nil, errTupleCorrupt
			}
			n = int(binary.LittleEndian.Uint32(b[8:]))
			off = 16
			if preLongs > 2 {
				c.theta = binary.LittleEndian.Uint64(b[16:])
				off = 24
			}
		}
	}
	if n < 0 || len(b) < off+n*(8+tc.size) {
		return nil, errTupleCorrupt
	}
	for i := 0; i < n; i++ {
		mode := b[off+8+tc.size-1]
		if mode > byte(tupleAlwaysOne) {
			return nil, errTupleCorrupt
		}
		c.hashes = append(c.hashes, binary.LittleEndian.Uint64(b[off:]))
		c.sums = append(c.sums, tupleSummary[V]{tc.get(b[off+8:]), tupleMode(mode)})
		off += 8 + tc.size
	}
	return c, nil
}

// tupleTable is the intersection's HashTables: entries in a table sized for them.
type tupleTable[V tupleValue] struct {
	lg     int
	table  []uint64
	sums   []tupleSummary[V]
	nKeys  int
	filled bool
}

func newTupleTable[V tupleValue](hashes []uint64, sums []tupleSummary[V]) *tupleTable[V] {
	size := 16
	for need := int(math.Ceil(float64(len(hashes)) / 0.75)); size < need; size *= 2 {
	}
	t := &tupleTable[V]{table: make([]uint64, size), sums: make([]tupleSummary[V], size), nKeys: len(hashes), filled: true}
	for size > 1 {
		size >>= 1
		t.lg++
	}
	for i, h := range hashes {
		j, _ := tupleProbe(t.table, t.lg, h)
		t.table[j], t.sums[j] = h, sums[i]
	}
	return t
}

var errTupleUniversal = errors.New("getResult() with no intervening intersections is not a legal result.")

// tupleIntersection is DataSketches' tuple Intersection.
type tupleIntersection[V tupleValue] struct {
	mode      tupleMode
	empty     bool
	theta     uint64
	t         *tupleTable[V]
	firstCall bool
}

func newTupleIntersection[V tupleValue](mode tupleMode) *tupleIntersection[V] {
	return &tupleIntersection[V]{mode: mode, theta: thetaMax, firstCall: true}
}

// add intersects a sketch: hashes and summaries, or (t != nil) a theta sketch's hashes all
// carrying summary s.
func (x *tupleIntersection[V]) add(hashes []uint64, sums []tupleSummary[V], emptyIn bool, thetaIn uint64, s *tupleSummary[V]) {
	first := x.firstCall
	x.firstCall = false
	if x.empty || emptyIn {
		x.empty, x.theta, x.t = true, thetaMax, nil
		return
	}
	x.theta = min(x.theta, thetaIn)
	if len(hashes) == 0 {
		x.t = nil
		return
	}
	if first {
		if s != nil {
			sums = make([]tupleSummary[V], len(hashes))
			for i := range sums {
				sums[i] = *s
			}
		}
		x.t = newTupleTable(hashes, sums)
		return
	}
	if x.t == nil || x.t.nKeys == 0 {
		return
	}
	bound := x.theta
	if s != nil {
		bound = thetaIn // DataSketches bounds a theta sketch's hashes by its own theta
	}
	var mh []uint64
	var ms []tupleSummary[V]
	for i, h := range hashes {
		if h >= bound {
			continue
		}
		j, found := tupleProbe(x.t.table, x.t.lg, h)
		if !found {
			continue
		}
		var other tupleSummary[V]
		if s != nil {
			other = *s
		} else {
			other = sums[i]
		}
		mh, ms = append(mh, h), append(ms, x.t.sums[j].combine(other, x.mode))
	}
	x.t = newTupleTable(mh, ms)
}

func (x *tupleIntersection[V]) result() (*tupleCompact[V], error) {
	if x.firstCall {
		return nil, errTupleUniversal
	}
	c := &tupleCompact[V]{theta: x.theta, empty: x.empty}
	if x.t == nil {
		return c, nil
	}
	for i, h := range x.t.table {
		if h != 0 && h <= x.theta {
			c.hashes, c.sums = append(c.hashes, h), append(c.sums, x.t.sums[i])
		}
	}
	return c, nil
}

// tupleState is SetOperationCornerCases' state of a sketch: 5 empty, 6 exact, 2 estimating,
// 0 degenerate (no entries below a theta < 1); 4 (no entries, theta 1, not empty) is illegal.
func tupleState(empty bool, n int, theta uint64) int {
	s := 0
	if theta == thetaMax {
		s |= 4
	}
	if n > 0 {
		s |= 2
	}
	if empty {
		s |= 1
	}
	return s
}

// tupleANotB is AnotB.aNotB: a's entries (in a's order) whose hashes b does not hold.
func tupleANotB[V tupleValue](a *tupleCompact[V], bHashes []uint64, bEmpty bool, bTheta uint64) (*tupleCompact[V], error) {
	thA, thB := a.thetaLong(), bTheta
	if bEmpty {
		thB = thetaMax
	}
	sa, sb := tupleState(a.empty, len(a.hashes), thA), tupleState(bEmpty, len(bHashes), thB)
	if sa == 4 || sb == 4 {
		return nil, errTupleCorrupt
	}
	minTheta := min(thA, thB)
	switch {
	case sa == 5:
		return &tupleCompact[V]{theta: thetaMax, empty: true}, nil
	case sa == 0 && (sb == 5 || sb == 6):
		return &tupleCompact[V]{theta: thA}, nil
	case sa == 0:
		return &tupleCompact[V]{theta: minTheta}, nil
	case sb == 5:
		return a, nil
	}
	inB := make(map[uint64]struct{}, len(bHashes))
	for _, h := range bHashes {
		if h < minTheta {
			inB[h] = struct{}{}
		}
	}
	out := &tupleCompact[V]{theta: minTheta}
	for i, h := range a.hashes {
		if _, ok := inB[h]; !ok && h != 0 && h < minTheta {
			out.hashes, out.sums = append(out.hashes, h), append(out.sums, a.sums[i])
		}
	}
	if sb != 0 && len(out.hashes) == 0 { // a full difference left nothing
		out.empty = minTheta == thetaMax
	}
	return out, nil
}
