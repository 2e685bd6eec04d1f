package expr

import (
	"encoding/binary"
	"fmt"
)

// Checkpointable state (StatefulAccumulator) of the sketch aggregates (theta, KLL, tuple, HLL,
// count-min): one blob per group (empty for a group without a sketch) holding the whole working
// state, not the compact result, so a restored sketch goes on exactly as the saved one would have.

// snapshotBlobs encodes n groups' blobs, each written by each (an empty blob for no state).
func snapshotBlobs(n int, each func(g int, e *StateEncoder)) []byte {
	blobs := make([][]byte, n)
	for g := range blobs {
		var e StateEncoder
		each(g, &e)
		blobs[g] = e.Bytes()
	}
	var e StateEncoder
	e.Blobs(blobs)
	return e.Bytes()
}

// restoreBlobs decodes snapshotBlobs' blobs: grow makes room for them, each reads a non-empty one.
func restoreBlobs(data []byte, grow func(int), each func(g int, d *StateDecoder) error) error {
	outer := NewStateDecoder(data)
	blobs := outer.Blobs()
	if outer.Err != nil {
		return outer.Err
	}
	grow(len(blobs))
	for g, b := range blobs {
		if len(b) == 0 {
			continue
		}
		d := NewStateDecoder(b)
		if err := each(g, d); err != nil {
			return err
		}
		if d.Err != nil {
			return d.Err
		}
	}
	return nil
}

func uint64sToInts(xs []uint64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

func intsToUint64s(xs []int64) []uint64 {
	out := make([]uint64, len(xs))
	for i, x := range xs {
		out[i] = uint64(x)
	}
	return out
}

func encodeThetaUpdate(e *StateEncoder, s *thetaUpdate) {
	e.Int(int64(s.lgNom))
	e.Int(int64(s.lgArr))
	e.Int(boolInt(s.empty))
	e.Int(int64(s.theta))
	e.Ints(uint64sToInts(sortedHashes(s.hashes, thetaMax)))
}

func decodeThetaUpdate(d *StateDecoder) *thetaUpdate {
	s := &thetaUpdate{lgNom: int(d.Int()), lgArr: int(d.Int()), empty: d.Int() == 1, theta: uint64(d.Int())}
	s.setThreshold()
	s.hashes = map[uint64]struct{}{}
	for _, h := range d.Ints() {
		s.hashes[uint64(h)] = struct{}{}
	}
	return s
}

// Snapshot implements StatefulAccumulator.
func (a *thetaAcc) Snapshot() ([]byte, error) {
	n := max(len(a.updates), len(a.unions), len(a.inters))
	return snapshotBlobs(n, func(g int, e *StateEncoder) {
		switch {
		case g < len(a.updates) && a.updates[g] != nil:
			encodeThetaUpdate(e, a.updates[g])
		case g < len(a.unions) && a.unions[g] != nil:
			u := a.unions[g]
			encodeThetaUpdate(e, u.gadget)
			e.Int(int64(u.unionTheta))
			e.Int(boolInt(u.unionEmpty))
		case g < len(a.inters) && a.inters[g] != nil:
			x := a.inters[g]
			e.Int(int64(x.count))
			e.Int(int64(x.theta))
			e.Int(boolInt(x.empty))
			e.Ints(uint64sToInts(sortedHashes(x.hashes, thetaMax)))
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *thetaAcc) Restore(data []byte) error {
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		switch a.name {
		case thetaSketchAgg:
			a.updates[g] = decodeThetaUpdate(d)
		case thetaUnionAgg:
			a.unions[g] = &thetaUnion{gadget: decodeThetaUpdate(d), unionTheta: uint64(d.Int()), unionEmpty: d.Int() == 1}
		default:
			x := &thetaIntersection{count: int(d.Int()), theta: uint64(d.Int()), empty: d.Int() == 1, hashes: map[uint64]struct{}{}}
			for _, h := range d.Ints() {
				x.hashes[uint64(h)] = struct{}{}
			}
			a.inters[g] = x
		}
		return nil
	})
}

// updatableBytes is the KLL sketch's updatable form (serial version 3): all level offsets and
// the whole items array, which read restores exactly.
func (c kllCodec[T]) updatableBytes(s *kllSketch[T]) []byte {
	b := kllHeader(s, 5, 3)
	b = binary.LittleEndian.AppendUint64(b, uint64(s.n))
	b = binary.LittleEndian.AppendUint16(b, uint16(s.minK))
	b = append(b, byte(s.numLevels), 0)
	for _, l := range s.levels {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	b = c.put(c.put(b, s.min), s.max)
	for _, v := range s.items {
		b = c.put(b, v)
	}
	return b
}

// Snapshot implements StatefulAccumulator.
func (a *kllAcc[T]) Snapshot() ([]byte, error) {
	return snapshotBlobs(len(a.sketches), func(g int, e *StateEncoder) {
		if s := a.sketches[g]; s != nil {
			e.Blob(a.codec.updatableBytes(s))
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *kllAcc[T]) Restore(data []byte) error {
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		s, err := a.codec.read(d.Blob())
		if err != nil {
			return fmt.Errorf("expr: decoding accumulator state: %w", err)
		}
		a.sketches[g] = s
		return nil
	})
}

func encodeTupleTable[V tupleValue](e *StateEncoder, table []uint64, sums []tupleSummary[V]) {
	vals, modes := make([]float64, len(sums)), make([]int64, len(sums))
	for i, s := range sums {
		vals[i], modes[i] = float64(s.v), int64(s.mode)
	}
	e.Ints(uint64sToInts(table))
	e.Floats(vals)
	e.Ints(modes)
}

func decodeTupleTable[V tupleValue](d *StateDecoder) ([]uint64, []tupleSummary[V]) {
	table, vals, modes := intsToUint64s(d.Ints()), d.Floats(), d.Ints()
	sums := make([]tupleSummary[V], len(vals))
	for i := range sums {
		if i < len(modes) {
			sums[i] = tupleSummary[V]{V(vals[i]), tupleMode(modes[i])}
		}
	}
	return table, sums
}

func encodeTupleQS[V tupleValue](e *StateEncoder, q *tupleQS[V]) {
	e.Int(int64(q.nom))
	e.Int(int64(q.lg))
	e.Int(int64(q.theta))
	e.Int(boolInt(q.empty))
	encodeTupleTable(e, q.table, q.sums)
}

func decodeTupleQS[V tupleValue](d *StateDecoder) *tupleQS[V] {
	q := &tupleQS[V]{nom: int(d.Int())}
	lg, theta, empty := int(d.Int()), uint64(d.Int()), d.Int() == 1
	q.setTable(lg)
	q.theta, q.empty = theta, empty
	table, sums := decodeTupleTable[V](d)
	if len(table) == len(q.table) && len(sums) == len(q.sums) {
		q.table, q.sums = table, sums
		for _, h := range table {
			if h != 0 {
				q.count++
			}
		}
	}
	return q
}

// Snapshot implements StatefulAccumulator.
func (a *tupleAcc[V]) Snapshot() ([]byte, error) {
	return snapshotBlobs(len(a.qs), func(g int, e *StateEncoder) {
		switch {
		case a.qs[g] != nil:
			encodeTupleQS(e, a.qs[g])
		case a.unions[g] != nil:
			u := a.unions[g]
			encodeTupleQS(e, u.q)
			e.Int(int64(u.unionTheta))
			e.Int(boolInt(u.empty))
		case a.inters[g] != nil:
			x := a.inters[g]
			e.Int(boolInt(x.empty))
			e.Int(int64(x.theta))
			e.Int(boolInt(x.firstCall))
			e.Int(boolInt(x.t != nil))
			if x.t != nil {
				e.Int(int64(x.t.nKeys))
				encodeTupleTable(e, x.t.table, x.t.sums)
			}
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *tupleAcc[V]) Restore(data []byte) error {
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		switch a.kind {
		case tupleBuild:
			a.qs[g] = decodeTupleQS[V](d)
		case tupleUnionKind:
			a.unions[g] = &tupleUnion[V]{q: decodeTupleQS[V](d), unionTheta: uint64(d.Int()), empty: d.Int() == 1, mode: a.mode}
		default:
			x := &tupleIntersection[V]{mode: a.mode, empty: d.Int() == 1, theta: uint64(d.Int()), firstCall: d.Int() == 1}
			if d.Int() == 1 {
				t := &tupleTable[V]{nKeys: int(d.Int()), filled: true}
				t.table, t.sums = decodeTupleTable[V](d)
				for size := len(t.table); size > 1; size >>= 1 {
					t.lg++
				}
				x.t = t
			}
			a.inters[g] = x
		}
		return nil
	})
}

// Snapshot implements StatefulAccumulator: each group's sketch in its serialized form.
func (a *hllSketchGroups) Snapshot() ([]byte, error) {
	return snapshotBlobs(len(a.groups), func(g int, e *StateEncoder) {
		if s := a.groups[g]; s != nil {
			e.Blob(s.serialize())
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *hllSketchGroups) Restore(data []byte) error {
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		s, err := restoreHLL(d.Blob())
		a.groups[g] = s
		return err
	})
}

// Snapshot implements StatefulAccumulator: each group's union as its lgMaxK and its gadget's
// bytes.
func (a *hllUnionAcc) Snapshot() ([]byte, error) {
	return snapshotBlobs(len(a.groups), func(g int, e *StateEncoder) {
		if u := a.groups[g]; u != nil {
			e.Int(int64(u.lgMaxK))
			e.Blob(u.gadget.serialize())
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *hllUnionAcc) Restore(data []byte) error {
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		lgMax := int(d.Int())
		s, err := restoreHLL(d.Blob())
		if err == nil {
			a.groups[g] = &hllUnion{lgMaxK: lgMax, gadget: s}
		}
		return err
	})
}

func restoreHLL(b []byte) (*hllSketch, error) {
	s, err := deserializeHLL(b)
	if err != nil {
		return nil, fmt.Errorf("expr: restoring an HLL sketch: %w", err)
	}
	return s, nil
}

// Snapshot implements StatefulAccumulator: each group's total and counts (nothing for a group
// without rows).
func (a *cmsAcc) Snapshot() ([]byte, error) {
	return snapshotBlobs(len(a.tables), func(g int, e *StateEncoder) {
		if t := a.tables[g]; t != nil {
			e.Int(a.totals[g])
			e.Ints(t)
		}
	}), nil
}

// Restore implements StatefulAccumulator.
func (a *cmsAcc) Restore(data []byte) error {
	size := int(a.shape.depth) * int(a.shape.width)
	return restoreBlobs(data, a.Grow, func(g int, d *StateDecoder) error {
		total, t := d.Int(), d.Ints()
		if d.Err == nil && len(t) != size {
			return fmt.Errorf("expr: restoring count_min_sketch: a table of %d counts, want %d", len(t), size)
		}
		a.totals[g], a.tables[g] = total, t
		return nil
	})
}
