package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// hll_sketch_agg(x[, lgConfigK]) and hll_union_agg(sketch[, allowDifferentLgConfigK]):
// Spark's HllSketchAgg and HllUnionAgg, BINARY results never NULL (hll_sketch.go).
//
// hll_sketch_agg adds each INT or BIGINT (hashed as a little-endian long), STRING (its UTF-8
// bytes) or BINARY to a sketch of lgConfigK (default 12, a constant INT in [4, 21]); NULLs,
// empty strings and empty binaries are skipped. hll_union_agg unions sketches in a DataSketches
// Union of the first sketch's lgConfigK; a sketch of another lgConfigK fails with
// HLL_UNION_DIFFERENT_LG_K unless allowDifferentLgConfigK (a BOOLEAN, NULL meaning false), and
// bytes that are no sketch with HLL_INVALID_INPUT_SKETCH_BUFFER. A group without sketches is the
// empty sketch of lgConfigK 12. As in Spark, the errors about lgConfigK come at run time
// (SparkRuntimeException).
//
// Both split around an exchange as Spark splits them: hll_sketch_agg's partial sketches merge
// one after the other, each through a fresh Union of lgConfigK (HllSketchAgg.merge), and
// hll_union_agg's partial unions (NULL for a partition without sketches) in one Union as more
// sketches. The states are sketches, so rows cannot be retracted.

func init() {
	registerAggregate(1, 2, bindHLLSketchAgg, "hll_sketch_agg")
	registerAggregate(1, 2, bindHLLUnionAgg, "hll_union_agg")
}

func bindHLLSketchAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	call := quoteSQL(callString(name, hllShownArgs(args, NewLiteral(int32(hllDefaultLgK), sqltypes.IntegerType))))
	x := args[0]
	switch x.Type().Kind {
	case sqltypes.Integer, sqltypes.Long, sqltypes.Binary, sqltypes.Null:
	case sqltypes.String:
		if !binaryCollation(x.Type()) {
			return nil, unexpectedInputType(call, 0, `("INT" or "BIGINT" or "STRING" or "BINARY")`, x)
		}
	default:
		return nil, unexpectedInputType(call, 0, `("INT" or "BIGINT" or "STRING" or "BINARY")`, x)
	}
	lgK, bindErr := hllDefaultLgK, error(nil)
	if len(args) == 2 {
		k := args[1]
		if kind := k.Type().Kind; kind != sqltypes.Integer && kind != sqltypes.Null {
			return nil, unexpectedInputType(call, 1, `"INT"`, k)
		}
		v, ok := constantOperand(k)
		switch {
		case !ok:
			bindErr = hllKMustBeConstant(name)
		case v == nil:
			lgK = 0 // Spark reads a NULL INT as 0
		default:
			lgK = int(toInt64(v))
		}
	}
	if bindErr == nil && (lgK < hllMinLgK || lgK > hllMaxLgK) {
		bindErr = hllInvalidLgK(name, lgK)
	}
	shown := hllShownArgs(args, NewLiteral(int32(hllDefaultLgK), sqltypes.IntegerType))
	f := &aggFunc{name: name, args: args[:1], display: shown, distinct: distinct, t: sqltypes.BinaryType, opts: opts, noRetract: true,
		newAcc: func(*Context) GroupedAccumulator {
			return &hllSketchAcc{hllSketchGroups: hllSketchGroups{lgK: lgK}, t: x.Type(), err: bindErr}
		}}
	if bindErr == nil {
		f.split = func(self *aggFunc, partial Expr) ([]AggFunc, AggFunc) {
			final := &aggFunc{name: name, args: []Expr{partial}, display: self.display, t: sqltypes.BinaryType, opts: opts,
				newAcc: func(*Context) GroupedAccumulator { return &hllMergeAcc{hllSketchGroups{lgK: lgK}} }}
			return []AggFunc{self}, final
		}
	}
	return f, nil
}

func bindHLLUnionAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	shown := hllShownArgs(args, NewLiteral(false, sqltypes.BooleanType))
	call := quoteSQL(callString(name, shown))
	if k := args[0].Type().Kind; k != sqltypes.Binary && k != sqltypes.Null {
		return nil, unexpectedInputType(call, 0, `"BINARY"`, args[0])
	}
	allow := false
	if len(args) == 2 {
		if k := args[1].Type().Kind; k != sqltypes.Boolean && k != sqltypes.Null {
			return nil, unexpectedInputType(call, 1, `"BOOLEAN"`, args[1])
		}
		v, ok := constantOperand(args[1])
		if !ok {
			return nil, nonFoldable(callString(name, shown), "allowDifferentLgConfigK", `"BOOLEAN"`, args[1])
		}
		allow = v == true
	}
	newAcc := func(partial bool) func(*Context) GroupedAccumulator {
		return func(*Context) GroupedAccumulator { return &hllUnionAcc{name: name, allow: allow, partial: partial} }
	}
	f := &aggFunc{name: name, args: args[:1], display: shown, distinct: distinct, t: sqltypes.BinaryType, opts: opts, noRetract: true,
		newAcc: newAcc(false)}
	f.split = func(self *aggFunc, partial Expr) ([]AggFunc, AggFunc) {
		p := *self
		p.null, p.newAcc, p.split = true, newAcc(true), nil
		final := &aggFunc{name: name, args: []Expr{partial}, display: self.display, t: sqltypes.BinaryType, opts: opts,
			newAcc: newAcc(false)}
		return []AggFunc{&p}, final
	}
	return f, nil
}

// hllShownArgs are the arguments as Spark renders the call: with the optional one's default.
func hllShownArgs(args []Expr, def Expr) []Expr {
	if len(args) == 2 {
		return args
	}
	return []Expr{args[0], def}
}

// hllSketchGroups keeps one sketch of lgK per group, created on the group's first value; a
// group without one gives the empty sketch.
type hllSketchGroups struct {
	lgK    int
	groups []*hllSketch
}

func (a *hllSketchGroups) Grow(n int) { a.groups = growTo(a.groups, n) }

func (a *hllSketchGroups) SizeBytes() int64 { return hllGroupsSize(a.groups, hllSize) }

func (a *hllSketchGroups) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *hllSketchGroups) sketch(g uint32) *hllSketch {
	if a.groups[g] == nil {
		a.groups[g] = newHLLSketch(a.lgK)
	}
	return a.groups[g]
}

func (a *hllSketchGroups) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		if s := a.groups[g]; s != nil {
			out[i] = s.serialize()
		} else {
			out[i] = newHLLSketch(a.lgK).serialize()
		}
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}

// hllSketchAcc is hll_sketch_agg's accumulator over x of type t; err is a binding error Spark
// raises when the aggregate runs.
type hllSketchAcc struct {
	hllSketchGroups
	t   sqltypes.DataType
	err error
}

func (a *hllSketchAcc) Update(groups []uint32, args []arrow.Array) error {
	if a.err != nil {
		return a.err
	}
	x, t := args[0], a.t
	for i, g := range groups {
		switch v := ValueAt(x, i, t).(type) {
		case int32:
			a.sketch(g).updateLong(int64(v))
		case int64:
			a.sketch(g).updateLong(v)
		case string:
			a.sketch(g).updateBytes([]byte(v))
		case []byte:
			a.sketch(g).updateBytes(v)
		}
	}
	return nil
}

func (a *hllSketchAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	if a.err != nil {
		return nil, a.err
	}
	return a.hllSketchGroups.Result(ctx, groups)
}

// hllMergeAcc is hll_sketch_agg's final step: each partial sketch is merged into the group's
// sketch through a Union of lgConfigK, as HllSketchAgg.merge does.
type hllMergeAcc struct{ hllSketchGroups }

func (a *hllMergeAcc) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		b, ok := ValueAt(args[0], i, sqltypes.BinaryType).([]byte)
		if !ok { // NULL
			continue
		}
		in, err := readHLL("hll_sketch_agg", b)
		if err != nil {
			return err
		}
		buf := a.sketch(g)
		u := newHLLUnion(buf.lgK)
		u.update(buf)
		u.update(in)
		a.groups[g] = u.result()
	}
	return nil
}

// hllUnionAcc keeps one Union per group, created with the group's first sketch's lgConfigK. A
// partial accumulator gives NULL for a group without sketches (Spark's empty buffer).
type hllUnionAcc struct {
	name           string
	allow, partial bool
	groups         []*hllUnion
}

func (a *hllUnionAcc) Grow(n int) { a.groups = growTo(a.groups, n) }

func (a *hllUnionAcc) SizeBytes() int64 {
	return hllGroupsSize(a.groups, func(u *hllUnion) int64 { return hllSize(u.gadget) })
}

func (a *hllUnionAcc) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		b, ok := ValueAt(args[0], i, sqltypes.BinaryType).([]byte)
		if !ok { // NULL
			continue
		}
		s, err := readHLL(a.name, b)
		if err != nil {
			return err
		}
		u := a.groups[g]
		if u == nil {
			u = newHLLUnion(s.lgK)
			a.groups[g] = u
		}
		if !a.allow && u.gadget.lgK != s.lgK {
			return hllDifferentLgK(a.name, u.gadget.lgK, s.lgK)
		}
		u.update(s)
	}
	return nil
}

func (a *hllUnionAcc) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *hllUnionAcc) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		switch u := a.groups[g]; {
		case u != nil:
			out[i] = u.result().serialize()
		case !a.partial:
			out[i] = newHLLSketch(hllDefaultLgK).serialize()
		}
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}

func hllSize(s *hllSketch) int64 { return 96 + 4*int64(len(s.coupons)) + int64(len(s.regs)) }

// hllGroupsSize estimates the memory of per-group states, size(x) each.
func hllGroupsSize[T any](groups []*T, size func(*T) int64) int64 {
	n := int64(len(groups)) * 8
	for _, x := range groups {
		if x != nil {
			n += size(x)
		}
	}
	return n
}
