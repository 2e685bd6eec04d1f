package expr

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// valuesKind selects what a valuesAcc computes.
type valuesKind uint8

const (
	valuesMinMax valuesKind = iota
	valuesFirst
	valuesLast
	valuesList
	valuesSet
)

// valueKey maps a value to a comparable Go key with Spark's equality (NaN = NaN, -0.0 = 0.0).
func valueKey(v any, t sqltypes.DataType) any {
	switch x := v.(type) {
	case nil, bool, int8, int16, int32, int64, string, decimal128.Num, sqltypes.CalendarIntervalValue:
		return x
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		if x == 0 {
			return float64(0)
		}
		return x
	case float32:
		if math.IsNaN(float64(x)) {
			return "NaN"
		}
		if x == 0 {
			return float32(0)
		}
		return x
	case []byte:
		return "b:" + string(x)
	case sqltypes.VariantValue:
		// Byte equality (keyString would call back here: a variant is neither nested nor scalar).
		return "v:" + strconv.Itoa(len(x.Value)) + ":" + string(x.Value) + string(x.Metadata)
	case sqltypes.GeoValue:
		// Same SRID and same WKB bytes.
		return "g:" + strconv.Itoa(int(x.SRID)) + ":" + string(x.WKB)
	}
	return "c:" + keyString(v, t)
}

// keyString renders nested values unambiguously for keys.
func keyString(v any, t sqltypes.DataType) string {
	if v == nil {
		return "\x00n"
	}
	switch t.Kind {
	case sqltypes.Array:
		s := "["
		for _, e := range v.([]any) {
			s += keyString(e, *t.Elem) + "\x01"
		}
		return s + "]"
	case sqltypes.Struct:
		s := "{"
		for i, e := range v.([]any) {
			s += keyString(e, t.Fields[i].Type) + "\x01"
		}
		return s + "}"
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		s := "<"
		for i := range m.Keys {
			s += keyString(m.Keys[i], *t.Key) + "\x02" + keyString(m.Values[i], *t.Value) + "\x01"
		}
		return s + ">"
	}
	k := valueKey(v, t)
	if s, ok := k.(string); ok {
		return "s" + s
	}
	return valueString(v, t, nil2utc())
}

type seqEntry struct {
	v     any
	alive bool
}

type valueGroup struct {
	counts  map[any]int
	reps    map[any]any
	best    any
	entries []seqEntry
	dead    int
}

// valuesAcc keeps per-group value multisets (min/max) or ordered value lists (first, last,
// collect_list, collect_set), so any row can be retracted.
type valuesAcc struct {
	kind        valuesKind
	t           sqltypes.DataType
	isMax       bool
	ignoreNulls bool
	groups      []*valueGroup
	size        int64
}

func newValuesAcc(kind valuesKind, t sqltypes.DataType, isMax, ignoreNulls bool) *valuesAcc {
	return &valuesAcc{kind: kind, t: t, isMax: isMax, ignoreNulls: ignoreNulls}
}

func (a *valuesAcc) Grow(n int)       { a.groups = growTo(a.groups, n) }
func (a *valuesAcc) SizeBytes() int64 { return a.size + int64(len(a.groups))*8 }

func (a *valuesAcc) group(g uint32) *valueGroup {
	vg := a.groups[g]
	if vg == nil {
		vg = &valueGroup{}
		if a.kind == valuesMinMax {
			vg.counts, vg.reps = map[any]int{}, map[any]any{}
		}
		a.groups[g] = vg
	}
	return vg
}

func (a *valuesAcc) better(x, y any) bool {
	c := Compare(x, y, a.t)
	if a.isMax {
		return c > 0
	}
	return c < 0
}

func (a *valuesAcc) Update(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	for i, g := range groups {
		v := ValueAt(arr, i, a.t)
		if v == nil && (a.ignoreNulls || a.kind == valuesMinMax) {
			continue
		}
		vg := a.group(g)
		a.size += 16
		if a.kind == valuesMinMax {
			k := valueKey(v, a.t)
			if vg.counts[k] == 0 {
				vg.reps[k] = v
			}
			vg.counts[k]++
			if vg.best == nil || a.better(v, vg.best) {
				vg.best = v
			}
			continue
		}
		vg.entries = append(vg.entries, seqEntry{v: v, alive: true})
	}
	return nil
}

func (a *valuesAcc) Retract(groups []uint32, args []arrow.Array) error {
	arr := args[0]
	for i, g := range groups {
		v := ValueAt(arr, i, a.t)
		if v == nil && (a.ignoreNulls || a.kind == valuesMinMax) {
			continue
		}
		vg := a.group(g)
		k := valueKey(v, a.t)
		a.size -= 16
		if a.kind == valuesMinMax {
			c := vg.counts[k] - 1
			if c > 0 {
				vg.counts[k] = c
				continue
			}
			delete(vg.counts, k)
			delete(vg.reps, k)
			if vg.best != nil && valueKey(vg.best, a.t) == k {
				vg.best = nil
				for _, r := range vg.reps {
					if vg.best == nil || a.better(r, vg.best) {
						vg.best = r
					}
				}
			}
			continue
		}
		for j := range vg.entries {
			e := &vg.entries[j]
			if e.alive && valueKey(e.v, a.t) == k {
				e.alive = false
				vg.dead++
				break
			}
		}
		if vg.dead > 32 && vg.dead*2 > len(vg.entries) {
			live := vg.entries[:0]
			for _, e := range vg.entries {
				if e.alive {
					live = append(live, e)
				}
			}
			vg.entries, vg.dead = live, 0
		}
	}
	return nil
}

func (a *valuesAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	rt := a.t
	if a.kind == valuesList || a.kind == valuesSet {
		rt = sqltypes.ArrayType(a.t, false)
	}
	for i, g := range groups {
		vg := a.groups[g]
		switch a.kind {
		case valuesMinMax:
			if vg != nil {
				out[i] = vg.best
			}
		case valuesFirst:
			if vg != nil {
				for _, e := range vg.entries {
					if e.alive {
						out[i] = e.v
						break
					}
				}
			}
		case valuesLast:
			if vg != nil {
				for j := len(vg.entries) - 1; j >= 0; j-- {
					if vg.entries[j].alive {
						out[i] = vg.entries[j].v
						break
					}
				}
			}
		case valuesList, valuesSet:
			list := []any{}
			seen := map[any]bool{}
			if vg != nil {
				for _, e := range vg.entries {
					if !e.alive || e.v == nil {
						continue
					}
					if a.kind == valuesSet {
						k := valueKey(e.v, a.t)
						if seen[k] {
							continue
						}
						seen[k] = true
					}
					list = append(list, e.v)
				}
			}
			out[i] = list
		}
	}
	return BuildArray(ctx.mem(), rt, ctx.tz(), out), nil
}

// distinctAcc deduplicates argument tuples per group: a tuple reaches the inner accumulator
// when its multiplicity goes 0→1 and is retracted from it when it goes 1→0.
type distinctAcc struct {
	inner  GroupedAccumulator
	types  []sqltypes.DataType
	counts []map[any]int
	size   int64
}

func (d *distinctAcc) Grow(n int) {
	d.counts = growTo(d.counts, n)
	d.inner.Grow(n)
}

func (d *distinctAcc) SizeBytes() int64 { return d.size + d.inner.SizeBytes() }

func (d *distinctAcc) tupleKey(args []arrow.Array, i int) (any, []any) {
	vals := make([]any, len(args))
	if len(args) == 1 {
		vals[0] = ValueAt(args[0], i, d.types[0])
		return valueKey(vals[0], d.types[0]), vals
	}
	k := ""
	for j, a := range args {
		vals[j] = ValueAt(a, i, d.types[j])
		k += keyString(vals[j], d.types[j]) + "\x03"
	}
	return k, vals
}

func (d *distinctAcc) apply(groups []uint32, args []arrow.Array, delta int) error {
	var fwdGroups []uint32
	fwd := make([][]any, len(args))
	for i, g := range groups {
		k, vals := d.tupleKey(args, i)
		m := d.counts[g]
		if m == nil {
			m = map[any]int{}
			d.counts[g] = m
		}
		before := m[k]
		after := before + delta
		if after <= 0 {
			delete(m, k)
			d.size -= 32
		} else {
			m[k] = after
			if before == 0 {
				d.size += 32
			}
		}
		if (delta > 0 && before == 0) || (delta < 0 && before == 1) {
			fwdGroups = append(fwdGroups, g)
			for j := range vals {
				fwd[j] = append(fwd[j], vals[j])
			}
		}
	}
	if len(fwdGroups) == 0 {
		return nil
	}
	arrs := make([]arrow.Array, len(args))
	for j := range args {
		arrs[j] = BuildArray(nil, d.types[j], arrowTZ(args[j]), fwd[j])
	}
	defer releaseAll(arrs)
	if delta > 0 {
		return d.inner.Update(fwdGroups, arrs)
	}
	return d.inner.Retract(fwdGroups, arrs)
}

func (d *distinctAcc) Update(groups []uint32, args []arrow.Array) error {
	return d.apply(groups, args, 1)
}
func (d *distinctAcc) Retract(groups []uint32, args []arrow.Array) error {
	return d.apply(groups, args, -1)
}
func (d *distinctAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	return d.inner.Result(ctx, groups)
}

// arrowTZ is the time zone of a timestamp array ("" otherwise).
func arrowTZ(a arrow.Array) string {
	if ts, ok := a.DataType().(*arrow.TimestampType); ok {
		return ts.TimeZone
	}
	return ""
}
