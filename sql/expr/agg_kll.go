package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// kll_sketch_agg_{bigint,float,double}(x [, k]) and kll_merge_agg_{bigint,float,double}(sketch
// [, k]): Spark's KllSketchAgg* and KllMergeAgg* over the sketches of sketch_kll.go. The result is
// the compact sketch, never NULL. bigint takes TINYINT..BIGINT, float FLOAT, double FLOAT or
// DOUBLE (no implicit casts); NULLs (and NaNs, as DataSketches) are skipped. k is a constant INT
// in [8, 65535] (200 by default; a merge without k adopts its first sketch's). Spark serializes
// its aggregation buffer and merges it into a fresh sketch of k in the final aggregation, which
// replays level 0 in reverse; a batch aggregate here does the same, so a sketch of one partition
// has Spark's bytes. Split before an exchange, the partial sketches are merged by a final step
// that starts from a sketch of k (or, for a merge without k, from the first partial), as
// Spark's final aggregation. Rows cannot be retracted.

func init() {
	for _, t := range []string{"bigint", "float", "double"} {
		registerAggregate(1, 2, bindKllAgg, "kll_sketch_agg_"+t, "kll_merge_agg_"+t)
	}
}

// kllAggMode is how one accumulator builds its sketches.
type kllAggMode struct {
	merge      bool // the inputs are sketches (else items)
	fixedK     bool // a merge starts from a sketch of k (else from its first input's k)
	adoptFirst bool // a final step keeps its first partial sketch as the buffer
	remerge    bool // the result is a fresh sketch of k merged with the buffer
}

func bindKllAgg(name string, args []Expr, distinct bool, opts Options) (AggFunc, error) {
	call := quoteSQL(callString(name, args))
	typ := name[strings.LastIndexByte(name, '_')+1:]
	merge := strings.HasPrefix(name, "kll_merge_agg_")
	x := args[0]
	switch xt := x.Type().Kind; {
	case merge:
		if xt != sqltypes.Binary {
			return nil, unexpectedInputType(call, 0, `"BINARY"`, x)
		}
	case typ == "bigint":
		if xt != sqltypes.Byte && xt != sqltypes.Short && xt != sqltypes.Integer && xt != sqltypes.Long {
			return nil, unexpectedInputType(call, 0, `("TINYINT" or "INT" or "BIGINT" or "SMALLINT")`, x)
		}
	case typ == "float":
		if xt != sqltypes.Float {
			return nil, unexpectedInputType(call, 0, `"FLOAT"`, x)
		}
	default:
		if xt != sqltypes.Float && xt != sqltypes.Double {
			return nil, unexpectedInputType(call, 0, `("FLOAT" or "DOUBLE")`, x)
		}
	}
	k, err := kllKArg(name, call, args)
	if err != nil {
		return nil, err
	}
	mode := kllAggMode{merge: merge, fixedK: !merge || len(args) > 1, remerge: !merge || len(args) > 1}
	return newKllAggFunc(name, typ, args, x, k, mode, opts), nil
}

func newKllAggFunc(name, typ string, display []Expr, x Expr, k int, mode kllAggMode, opts Options) *aggFunc {
	xt := x.Type()
	var newAcc func(*Context) GroupedAccumulator
	switch typ {
	case "bigint":
		newAcc = func(*Context) GroupedAccumulator {
			return &kllAcc[int64]{name: name, k: k, mode: mode, t: xt, codec: kllLongs}
		}
	case "float":
		newAcc = func(*Context) GroupedAccumulator {
			return &kllAcc[float32]{name: name, k: k, mode: mode, t: xt, codec: kllFloats}
		}
	default:
		newAcc = func(*Context) GroupedAccumulator {
			return &kllAcc[float64]{name: name, k: k, mode: mode, t: xt, codec: kllDoubles}
		}
	}
	return &aggFunc{name: name, args: []Expr{x}, display: display, t: sqltypes.BinaryType, opts: opts, newAcc: newAcc}
}

// kllKArg reads the optional k: a foldable, non-NULL INT in [8, 65535].
func kllKArg(name, call string, args []Expr) (int, error) {
	if len(args) < 2 {
		return kllDefaultK, nil
	}
	a := args[1]
	if a.Type().Kind != sqltypes.Integer && a.Type().Kind != sqltypes.Null {
		return 0, unexpectedInputType(call, 1, `"INT"`, a)
	}
	v, ok := constantOperand(a)
	if !ok {
		return 0, typeMismatch("NON_FOLDABLE_INPUT", call, "the input k should be a foldable int expression; however, got %s.", a.String()).
			WithParams("inputName", "k", "inputType", "int", "inputExpr", a.String())
	}
	if v == nil {
		return 0, typeMismatch("UNEXPECTED_NULL", call, "The k must not be null.").WithParams("exprName", "k")
	}
	k := int(toInt64(v))
	if k < kllMinK || k > kllMaxK {
		hint := fmt.Sprintf("[KLL_SKETCH_K_OUT_OF_RANGE] For function `%s`, the k parameter must be between %d and %d (inclusive), but got %d. SQLSTATE: 22003", name, kllMinK, kllMaxK, k)
		return 0, typeMismatch("TYPE_CHECK_FAILURE_WITH_HINT", call, "%s.", hint).WithParams("msg", hint, "hint", "")
	}
	return k, nil
}

// kllInvalidBuffer is KLL_INVALID_INPUT_SKETCH_BUFFER.
func kllInvalidBuffer(name string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "KLL_INVALID_INPUT_SKETCH_BUFFER", "22000",
		"Invalid call to `%s`; only valid KLL sketch buffers are supported as inputs (such as those produced by the `kll_sketch_agg` function).", name).
		WithParams("function", "`"+name+"`")
}

// kllAcc keeps one sketch per group.
type kllAcc[T kllItem] struct {
	name     string
	k        int
	mode     kllAggMode
	t        sqltypes.DataType
	codec    kllCodec[T]
	sketches []*kllSketch[T]
}

func (a *kllAcc[T]) Grow(n int) { a.sketches = growTo(a.sketches, n) }

func (a *kllAcc[T]) SizeBytes() int64 {
	n := int64(len(a.sketches)) * 8
	for _, s := range a.sketches {
		if s != nil {
			n += 96 + int64(a.codec.size*len(s.items)+8*len(s.levels))
		}
	}
	return n
}

func (a *kllAcc[T]) Update(groups []uint32, args []arrow.Array) error {
	for i, g := range groups {
		v := ValueAt(args[0], i, a.t)
		if v == nil {
			continue
		}
		if !a.mode.merge {
			item, ok := kllItemOf[T](v)
			if !ok {
				continue
			}
			if a.sketches[g] == nil {
				a.sketches[g] = newKllSketch[T](a.k)
			}
			a.sketches[g].update(item)
			continue
		}
		in, err := a.codec.read(v.([]byte))
		if err != nil {
			return kllInvalidBuffer(a.name)
		}
		switch s := a.sketches[g]; {
		case s != nil:
			s.merge(in)
		case a.mode.adoptFirst:
			a.sketches[g] = in
		default:
			k := in.k
			if a.mode.fixedK {
				k = a.k
			}
			a.sketches[g] = newKllSketch[T](k)
			a.sketches[g].merge(in)
		}
	}
	return nil
}

// kllItemOf converts a non-NULL argument value to the sketch's item type; NaN is skipped.
func kllItemOf[T kllItem](v any) (T, bool) {
	switch x := v.(type) {
	case int8:
		return T(x), true
	case int16:
		return T(x), true
	case int32:
		return T(x), true
	case int64:
		return T(x), true
	case float32:
		return T(x), !math.IsNaN(float64(x))
	case float64:
		return T(x), !math.IsNaN(x)
	}
	return 0, false
}

func (a *kllAcc[T]) Retract([]uint32, []arrow.Array) error { return errInsertOnly }

func (a *kllAcc[T]) Result(ctx *Context, groups []uint32) (arrow.Array, error) {
	out := make([]any, len(groups))
	for i, g := range groups {
		s := a.sketches[g]
		if s == nil {
			s = newKllSketch[T](a.k)
		} else if a.mode.remerge {
			fresh := newKllSketch[T](a.k)
			fresh.merge(s)
			s = fresh
		}
		out[i] = a.codec.bytes(s)
	}
	return BuildArray(ctx.mem(), sqltypes.BinaryType, ctx.tz(), out), nil
}

// kllSplit splits a KLL aggregate before an exchange: the partial builds the buffer without the
// final re-merge, and the final merges the partial sketches as Spark's final aggregation does.
func kllSplit(a *aggFunc, partial Expr) (AggFunc, AggFunc, bool) {
	if !strings.HasPrefix(a.name, "kll_sketch_agg_") && !strings.HasPrefix(a.name, "kll_merge_agg_") {
		return nil, nil, false
	}
	typ := a.name[strings.LastIndexByte(a.name, '_')+1:]
	k, err := kllKArg(a.name, "", a.display)
	if err != nil {
		return nil, nil, false
	}
	merge := strings.HasPrefix(a.name, "kll_merge_agg_")
	fixed := !merge || len(a.display) > 1
	p := newKllAggFunc(a.name, typ, a.display, a.args[0], k, kllAggMode{merge: merge, fixedK: fixed}, a.opts)
	f := newKllAggFunc(a.name, typ, a.display, partial, k, kllAggMode{merge: true, fixedK: fixed, adoptFirst: !fixed}, a.opts)
	return p, f, true
}
