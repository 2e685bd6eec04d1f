package expr

import (
	"math"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// hll_sketch_estimate(sketch) and hll_union(first, second[, allowDifferentLgConfigK]): Spark's
// HllSketchEstimate and HllUnion over the sketches of agg_hll.go, NULL when an argument is
// NULL. The estimate is hllSketch.estimate (coupon estimate, HIP, or the raw HyperLogLog
// estimate once a union merged registers), rounded half up to a BIGINT. hll_union unions both sketches in a Union of the
// smaller lgConfigK; sketches of different lgConfigK fail with HLL_UNION_DIFFERENT_LG_K unless
// allowDifferentLgConfigK, bytes that are no sketch with HLL_INVALID_INPUT_SKETCH_BUFFER.

func init() {
	registerScalar(1, 1, bindHLLEstimate, "hll_sketch_estimate")
	registerScalar(2, 3, bindHLLUnion, "hll_union")
}

func bindHLLEstimate(name string, args []Expr, _ Options) (Expr, error) {
	if k := args[0].Type().Kind; k != sqltypes.Binary && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"BINARY"`, args[0])
	}
	f := strict(name, args, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		s, err := readHLL(name, a[0].([]byte))
		if err != nil {
			return nil, err
		}
		return int64(math.Floor(s.estimate() + 0.5)), nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindHLLUnion(name string, args []Expr, _ Options) (Expr, error) {
	shown := args
	if len(args) == 2 {
		shown = append(args[:2:2], NewLiteral(false, sqltypes.BooleanType))
	}
	call := quoteSQL(callString(name, shown))
	for i, want := range []sqltypes.Kind{sqltypes.Binary, sqltypes.Binary, sqltypes.Boolean} {
		if i < len(shown) && shown[i].Type().Kind != want && shown[i].Type().Kind != sqltypes.Null {
			return nil, unexpectedInputType(call, i, `"`+sqltypes.DataType{Kind: want}.SQL()+`"`, shown[i])
		}
	}
	f := strict(name, shown, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		s1, err := readHLL(name, a[0].([]byte))
		if err != nil {
			return nil, err
		}
		s2, err := readHLL(name, a[1].([]byte))
		if err != nil {
			return nil, err
		}
		if a[2] != true && s1.lgK != s2.lgK {
			return nil, hllDifferentLgK(name, s1.lgK, s2.lgK)
		}
		u := newHLLUnion(min(s1.lgK, s2.lgK))
		u.update(s1)
		u.update(s2)
		return u.result().serialize(), nil
	})
	f.str = callString(name, shown)
	return f, nil
}
