package expr

import (
	"encoding/binary"
	"fmt"
)

// Checkpointed state of the sketch aggregates (StatefulAccumulator): each group's sketch in its
// serialized form, as the functions return it.

// Snapshot implements StatefulAccumulator: one blob per group, the sketch's bytes (empty for a
// group without one).
func (a *hllSketchGroups) Snapshot() ([]byte, error) {
	blobs := make([][]byte, len(a.groups))
	for g, s := range a.groups {
		if s != nil {
			blobs[g] = s.serialize()
		}
	}
	var e StateEncoder
	e.Blobs(blobs)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (a *hllSketchGroups) Restore(data []byte) error {
	d := NewStateDecoder(data)
	blobs := d.Blobs()
	if d.Err != nil {
		return d.Err
	}
	groups, err := restoreHLLs(blobs)
	a.groups = restoreSlice(a.groups, groups)
	return err
}

// Snapshot implements StatefulAccumulator: each group's union as its lgMaxK (0 without one) and
// its gadget's bytes.
func (a *hllUnionAcc) Snapshot() ([]byte, error) {
	lgMax := make([]int64, len(a.groups))
	blobs := make([][]byte, len(a.groups))
	for g, u := range a.groups {
		if u != nil {
			lgMax[g], blobs[g] = int64(u.lgMaxK), u.gadget.serialize()
		}
	}
	var e StateEncoder
	e.Ints(lgMax)
	e.Blobs(blobs)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (a *hllUnionAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	lgMax, blobs := d.Ints(), d.Blobs()
	if d.Err != nil {
		return d.Err
	}
	gadgets, err := restoreHLLs(blobs)
	if err != nil {
		return err
	}
	unions := make([]*hllUnion, len(gadgets))
	for g, s := range gadgets {
		if s != nil && g < len(lgMax) {
			unions[g] = &hllUnion{lgMaxK: int(lgMax[g]), gadget: s}
		}
	}
	a.groups = restoreSlice(a.groups, unions)
	return nil
}

func restoreHLLs(blobs [][]byte) ([]*hllSketch, error) {
	out := make([]*hllSketch, len(blobs))
	for g, b := range blobs {
		if len(b) == 0 {
			continue
		}
		s, err := deserializeHLL(b)
		if err != nil {
			return nil, fmt.Errorf("expr: restoring an HLL sketch: %w", err)
		}
		out[g] = s
	}
	return out, nil
}

// Snapshot implements StatefulAccumulator: the groups' total counts, then each group's counts
// (little-endian, row by row; empty for a group without rows).
func (a *cmsAcc) Snapshot() ([]byte, error) {
	blobs := make([][]byte, len(a.tables))
	for g, t := range a.tables {
		if t != nil {
			b := make([]byte, 0, 8*len(t))
			for _, c := range t {
				b = binary.LittleEndian.AppendUint64(b, uint64(c))
			}
			blobs[g] = b
		}
	}
	var e StateEncoder
	e.Ints(a.totals)
	e.Blobs(blobs)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (a *cmsAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	totals, blobs := d.Ints(), d.Blobs()
	if d.Err != nil {
		return d.Err
	}
	size := int(a.shape.depth) * int(a.shape.width)
	tables := make([][]int64, len(blobs))
	for g, b := range blobs {
		if len(b) == 0 {
			continue
		}
		if len(b) != 8*size {
			return fmt.Errorf("expr: restoring count_min_sketch: a table of %d bytes, want %d", len(b), 8*size)
		}
		t := make([]int64, size)
		for j := range t {
			t[j] = int64(binary.LittleEndian.Uint64(b[8*j:]))
		}
		tables[g] = t
	}
	a.totals, a.tables = restoreSlice(a.totals, totals), restoreSlice(a.tables, tables)
	return nil
}
