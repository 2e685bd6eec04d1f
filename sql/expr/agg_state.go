package expr

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
)

// StatefulAccumulator is an optional GroupedAccumulator extension for accumulators whose state
// a streaming checkpoint can save: Snapshot serializes every group's state; Restore replaces
// the state by a snapshot's, after Grow made room for the snapshot's groups. count, sum, avg,
// min, max (and first, last, collect_list, collect_set) implement it, as do the theta, KLL,
// tuple, HLL and count-min sketch aggregates (sketch_state.go).
type StatefulAccumulator interface {
	Snapshot() ([]byte, error)
	Restore(data []byte) error
}

// SnapshotAccumulator serializes acc's state, or fails with UNSUPPORTED_FEATURE when acc's
// function keeps no checkpointable state.
func SnapshotAccumulator(f AggFunc, acc GroupedAccumulator) ([]byte, error) {
	s, ok := acc.(StatefulAccumulator)
	if !ok {
		return nil, sparkerr.Unsupported("checkpointing the streaming state of aggregate %s is not supported by Weir", f.String())
	}
	return s.Snapshot()
}

// RestoreAccumulator restores acc from a snapshot SnapshotAccumulator made.
func RestoreAccumulator(f AggFunc, acc GroupedAccumulator, data []byte) error {
	s, ok := acc.(StatefulAccumulator)
	if !ok {
		return sparkerr.Unsupported("restoring the streaming state of aggregate %s is not supported by Weir", f.String())
	}
	return s.Restore(data)
}

func gobBytes(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, fmt.Errorf("expr: encoding accumulator state: %w", err)
	}
	return b.Bytes(), nil
}

func fromGob(data []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(v); err != nil {
		return fmt.Errorf("expr: decoding accumulator state: %w", err)
	}
	return nil
}

// restoreSlice copies a snapshot slice over s, keeping s's length (Grow's) when larger.
func restoreSlice[T any](s, from []T) []T {
	out := make([]T, max(len(s), len(from)))
	copy(out, from)
	return out
}

// Snapshot implements StatefulAccumulator.
func (c *countAcc) Snapshot() ([]byte, error) {
	var e StateEncoder
	e.Ints(c.counts)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (c *countAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	c.counts = restoreSlice(c.counts, d.Ints())
	return d.Err
}

// Snapshot implements StatefulAccumulator: counts, integer sums, float sums, overflow flags,
// then decimal sums as decimal strings ("" for none).
func (s *sumAcc) Snapshot() ([]byte, error) {
	var e StateEncoder
	e.Grow(48 + 8*(len(s.n)+len(s.ints)+len(s.floats)+len(s.decs)) + len(s.overflow))
	e.Ints(s.n)
	e.Ints(s.ints)
	e.Floats(s.floats)
	e.Bools(s.overflow)
	decs := make([][]byte, len(s.decs))
	for i, d := range s.decs {
		if d != nil {
			decs[i] = []byte(d.Text(10))
		}
	}
	e.Blobs(decs)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (s *sumAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	n, ints, floats, overflow, decs := d.Ints(), d.Ints(), d.Floats(), d.Bools(), d.Blobs()
	if d.Err != nil {
		return d.Err
	}
	s.n, s.overflow = restoreSlice(s.n, n), restoreSlice(s.overflow, overflow)
	if s.ints != nil || len(ints) > 0 {
		s.ints = restoreSlice(s.ints, ints)
	}
	if s.floats != nil || len(floats) > 0 {
		s.floats = restoreSlice(s.floats, floats)
	}
	if s.decs != nil || len(decs) > 0 {
		out := make([]*big.Int, max(len(s.decs), len(decs)))
		for i, b := range decs {
			if len(b) == 0 {
				continue
			}
			v, ok := new(big.Int).SetString(string(b), 10)
			if !ok {
				return fmt.Errorf("expr: decoding accumulator state: bad decimal sum %q", b)
			}
			out[i] = v
		}
		s.decs = out
	}
	return nil
}

// minMaxState is numMinMaxAcc's snapshot: per group the value multiset and NaN count.
type minMaxState[T fastNum] struct {
	Best   []T
	Has    []bool
	Counts []map[T]int32
	NaNs   []int32
}

// Snapshot implements StatefulAccumulator.
func (a *numMinMaxAcc[T]) Snapshot() ([]byte, error) {
	st := minMaxState[T]{Best: a.best, Has: a.has, NaNs: a.nans, Counts: make([]map[T]int32, len(a.counts))}
	for i, m := range a.counts {
		if m == nil {
			m = map[T]int32{}
		}
		st.Counts[i] = m
	}
	return gobBytes(st)
}

// Restore implements StatefulAccumulator.
func (a *numMinMaxAcc[T]) Restore(data []byte) error {
	var st minMaxState[T]
	if err := fromGob(data, &st); err != nil {
		return err
	}
	a.best, a.has, a.nans = restoreSlice(a.best, st.Best), restoreSlice(a.has, st.Has), restoreSlice(a.nans, st.NaNs)
	a.counts = restoreSlice(a.counts, st.Counts)
	a.size = 0
	for _, m := range a.counts {
		a.size += int64(len(m)) * 16
	}
	return nil
}

// Snapshot implements StatefulAccumulator: the rows that rebuild the state when fed to Update
// in order (group ids and values, as an Arrow IPC stream).
func (a *valuesAcc) Snapshot() ([]byte, error) {
	var groups []uint32
	var vals []any
	for g, vg := range a.groups {
		if vg == nil {
			continue
		}
		if a.kind == valuesMinMax {
			for k, c := range vg.counts {
				for range c {
					groups = append(groups, uint32(g))
					vals = append(vals, vg.reps[k])
				}
			}
			continue
		}
		for _, e := range vg.entries {
			if e.alive {
				groups = append(groups, uint32(g))
				vals = append(vals, e.v)
			}
		}
	}
	gb := array.NewUint32Builder(memory.DefaultAllocator)
	defer gb.Release()
	gb.AppendValues(groups, nil)
	ga := gb.NewArray()
	defer ga.Release()
	va := BuildArray(memory.DefaultAllocator, a.t, "UTC", vals)
	defer va.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "g", Type: ga.DataType()},
		{Name: "v", Type: va.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{ga, va}, int64(len(groups)))
	defer rec.Release()
	var b bytes.Buffer
	w := ipc.NewWriter(&b, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("expr: encoding accumulator state: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("expr: encoding accumulator state: %w", err)
	}
	return b.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (a *valuesAcc) Restore(data []byte) error {
	n := len(a.groups)
	a.groups, a.size = nil, 0
	a.Grow(n)
	r, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("expr: decoding accumulator state: %w", err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		gs := rec.Column(0).(*array.Uint32).Uint32Values()
		if err := a.Update(gs, []arrow.Array{rec.Column(1)}); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("expr: decoding accumulator state: %w", err)
	}
	return nil
}

// Snapshot implements StatefulAccumulator.
func (b *boolCountAcc) Snapshot() ([]byte, error) {
	var e StateEncoder
	e.Grow(16 + 16*len(b.trues))
	e.Ints(b.trues)
	e.Ints(b.fals)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (b *boolCountAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	trues, fals := d.Ints(), d.Ints()
	b.trues, b.fals = restoreSlice(b.trues, trues), restoreSlice(b.fals, fals)
	return d.Err
}

// Snapshot implements StatefulAccumulator.
func (m *momentsAcc) Snapshot() ([]byte, error) {
	var e StateEncoder
	e.Grow(24 + 24*len(m.n))
	e.Floats(m.n)
	e.Floats(m.mean)
	e.Floats(m.m2)
	return e.Bytes(), nil
}

// Restore implements StatefulAccumulator.
func (m *momentsAcc) Restore(data []byte) error {
	d := NewStateDecoder(data)
	n, mean, m2 := d.Floats(), d.Floats(), d.Floats()
	m.n, m.mean, m.m2 = restoreSlice(m.n, n), restoreSlice(m.mean, mean), restoreSlice(m.m2, m2)
	return d.Err
}
