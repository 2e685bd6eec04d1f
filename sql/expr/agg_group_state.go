package expr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
)

// GroupStateAccumulator is an optional GroupedAccumulator extension for accumulators whose
// groups can leave memory one by one and come back (a streaming aggregate's spill): EncodeGroup
// appends group g's state to buf; LoadGroup replaces group g's state (g below Grow's size) by
// one EncodeGroup wrote, from an accumulator of the same function. count, sum, avg, min, max,
// first, last, collect_list, collect_set, the boolean and the moment aggregates implement it.
type GroupStateAccumulator interface {
	EncodeGroup(buf []byte, g uint32) ([]byte, error)
	LoadGroup(g uint32, state []byte) error
}

// EncodeGroupState appends group g's state of acc to buf, or fails with UNSUPPORTED_FEATURE
// when f's accumulator cannot move its groups.
func EncodeGroupState(f AggFunc, acc GroupedAccumulator, buf []byte, g uint32) ([]byte, error) {
	s, ok := acc.(GroupStateAccumulator)
	if !ok {
		return nil, sparkerr.Unsupported("spilling the streaming state of aggregate %s is not supported by Weir", f.String())
	}
	return s.EncodeGroup(buf, g)
}

// LoadGroupState replaces group g's state of acc by one EncodeGroupState wrote.
func LoadGroupState(f AggFunc, acc GroupedAccumulator, g uint32, state []byte) error {
	s, ok := acc.(GroupStateAccumulator)
	if !ok {
		return sparkerr.Unsupported("spilling the streaming state of aggregate %s is not supported by Weir", f.String())
	}
	return s.LoadGroup(g, state)
}

// CheckGroupState fails with UNSUPPORTED_FEATURE when an accumulator of f cannot move its
// groups (a streaming aggregate of f could not spill): checked when a query with a state
// memory budget starts, rather than when its state first outgrows the budget.
func CheckGroupState(ctx *Context, f AggFunc) error {
	if _, ok := f.NewAccumulator(ctx).(GroupStateAccumulator); !ok {
		return sparkerr.Unsupported("spilling the streaming state of aggregate %s is not supported by Weir", f.String())
	}
	return nil
}

// groupState reads fixed-size fields of a group's encoded state.
type groupState struct {
	buf []byte
	err error
}

func (d *groupState) u64() uint64 {
	if len(d.buf) < 8 {
		d.err = fmt.Errorf("expr: decoding a group's state: %d bytes left, want 8", len(d.buf))
		d.buf = nil
		return 0
	}
	v := binary.LittleEndian.Uint64(d.buf)
	d.buf = d.buf[8:]
	return v
}

func (d *groupState) int() int64 { return int64(d.u64()) }

func (d *groupState) float() float64 { return math.Float64frombits(d.u64()) }

func (d *groupState) done() error {
	if d.err == nil && len(d.buf) != 0 {
		d.err = fmt.Errorf("expr: decoding a group's state: %d bytes left over", len(d.buf))
	}
	return d.err
}

func appendInt(buf []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(buf, uint64(v)) }

func appendFloat(buf []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// EncodeGroup implements GroupStateAccumulator.
func (c *countAcc) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	return appendInt(buf, c.counts[g]), nil
}

// LoadGroup implements GroupStateAccumulator.
func (c *countAcc) LoadGroup(g uint32, state []byte) error {
	d := groupState{buf: state}
	c.counts[g] = d.int()
	return d.done()
}

// EncodeGroup implements GroupStateAccumulator: the row count, the overflow flag, then the
// sum of the accumulator's kind (an integer, a float, or a decimal as its decimal text).
func (s *sumAcc) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	buf = appendInt(buf, s.n[g])
	buf = appendInt(buf, boolInt(s.overflow[g]))
	switch {
	case s.ints != nil:
		buf = appendInt(buf, s.ints[g])
	case s.floats != nil:
		buf = appendFloat(buf, s.floats[g])
	case s.decs != nil:
		if s.decs[g] != nil {
			buf = append(buf, s.decs[g].Text(10)...)
		}
	}
	return buf, nil
}

// LoadGroup implements GroupStateAccumulator.
func (s *sumAcc) LoadGroup(g uint32, state []byte) error {
	d := groupState{buf: state}
	s.n[g] = d.int()
	s.overflow[g] = d.int() != 0
	switch {
	case s.ints != nil:
		s.ints[g] = d.int()
	case s.floats != nil:
		s.floats[g] = d.float()
	case s.decs != nil:
		s.decs[g] = nil
		if len(d.buf) > 0 {
			v, ok := new(big.Int).SetString(string(d.buf), 10)
			if !ok {
				return fmt.Errorf("expr: decoding a group's state: bad decimal sum %q", d.buf)
			}
			s.decs[g] = v
		}
		d.buf = nil
	}
	return d.done()
}

// numBits is v's 64 bits (floats by their IEEE bits).
func numBits[T fastNum](v T) uint64 {
	if f, ok := any(v).(float64); ok {
		return math.Float64bits(f)
	}
	return uint64(int64(v))
}

// fromBits inverts numBits.
func fromBits[T fastNum](b uint64) T {
	var zero T
	if _, ok := any(zero).(float64); ok {
		return T(math.Float64frombits(b))
	}
	return T(int64(b))
}

// EncodeGroup implements GroupStateAccumulator: best (and whether set), the NaN count, then
// the value multiset as value/count pairs.
func (a *numMinMaxAcc[T]) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	buf = binary.LittleEndian.AppendUint64(buf, numBits(a.best[g]))
	buf = appendInt(buf, boolInt(a.has[g]))
	buf = appendInt(buf, int64(a.nans[g]))
	for v, c := range a.counts[g] {
		buf = binary.LittleEndian.AppendUint64(buf, numBits(v))
		buf = appendInt(buf, int64(c))
	}
	return buf, nil
}

// LoadGroup implements GroupStateAccumulator.
func (a *numMinMaxAcc[T]) LoadGroup(g uint32, state []byte) error {
	d := groupState{buf: state}
	a.best[g] = fromBits[T](d.u64())
	a.has[g] = d.int() != 0
	a.nans[g] = int32(d.int())
	a.size -= int64(len(a.counts[g])) * 16
	a.counts[g] = nil
	for len(d.buf) > 0 && d.err == nil {
		v, c := fromBits[T](d.u64()), int32(d.int())
		if a.counts[g] == nil {
			a.counts[g] = map[T]int32{}
		}
		a.counts[g][v] = c
	}
	a.size += int64(len(a.counts[g])) * 16
	return d.done()
}

// EncodeGroup implements GroupStateAccumulator: the values that rebuild the group when fed to
// Update in order, as an Arrow IPC stream of one column (nothing for an empty group).
func (a *valuesAcc) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	vg := a.groups[g]
	if vg == nil {
		return buf, nil
	}
	var vals []any
	if a.kind == valuesMinMax {
		for k, c := range vg.counts {
			for range c {
				vals = append(vals, vg.reps[k])
			}
		}
	} else {
		for _, e := range vg.entries {
			if e.alive {
				vals = append(vals, e.v)
			}
		}
	}
	if len(vals) == 0 {
		return buf, nil
	}
	va := BuildArray(memory.DefaultAllocator, a.t, "UTC", vals)
	defer va.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: va.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{va}, int64(len(vals)))
	defer rec.Release()
	b := bytes.NewBuffer(buf)
	w := ipc.NewWriter(b, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("expr: encoding a group's state: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("expr: encoding a group's state: %w", err)
	}
	return b.Bytes(), nil
}

// LoadGroup implements GroupStateAccumulator.
func (a *valuesAcc) LoadGroup(g uint32, state []byte) error {
	if vg := a.groups[g]; vg != nil {
		if a.kind == valuesMinMax {
			for _, c := range vg.counts {
				a.size -= 16 * int64(c)
			}
		} else {
			a.size -= 16 * int64(len(vg.entries)-vg.dead)
		}
		a.groups[g] = nil
	}
	if len(state) == 0 {
		return nil
	}
	r, err := ipc.NewReader(bytes.NewReader(state))
	if err != nil {
		return fmt.Errorf("expr: decoding a group's state: %w", err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		gs := make([]uint32, rec.NumRows())
		for i := range gs {
			gs[i] = g
		}
		if err := a.Update(gs, []arrow.Array{rec.Column(0)}); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("expr: decoding a group's state: %w", err)
	}
	return nil
}

// EncodeGroup implements GroupStateAccumulator.
func (b *boolCountAcc) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	return appendInt(appendInt(buf, b.trues[g]), b.fals[g]), nil
}

// LoadGroup implements GroupStateAccumulator.
func (b *boolCountAcc) LoadGroup(g uint32, state []byte) error {
	d := groupState{buf: state}
	b.trues[g], b.fals[g] = d.int(), d.int()
	return d.done()
}

// EncodeGroup implements GroupStateAccumulator.
func (m *momentsAcc) EncodeGroup(buf []byte, g uint32) ([]byte, error) {
	return appendFloat(appendFloat(appendFloat(buf, m.n[g]), m.mean[g]), m.m2[g]), nil
}

// LoadGroup implements GroupStateAccumulator.
func (m *momentsAcc) LoadGroup(g uint32, state []byte) error {
	d := groupState{buf: state}
	m.n[g], m.mean[g], m.m2[g] = d.float(), d.float(), d.float()
	return d.done()
}

// Len is the number of bytes not read yet (a reader can tell whether optional trailing fields
// follow).
func (d *StateDecoder) Len() int { return len(d.buf) }
