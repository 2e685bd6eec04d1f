package expr

import (
	"math"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// width_bucket(value, min, max, n): the bucket of value among n equal-width buckets between
// min and max (0 below, n+1 above; max < min counts downwards), as Spark's WidthBucket; NULL
// for n <= 0, min = max, or a NaN or infinite bound.

func init() {
	registerScalar(4, 4, bindWidthBucket, "width_bucket")
}

func bindWidthBucket(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.DoubleType, sqltypes.DoubleType, sqltypes.DoubleType, sqltypes.LongType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, cs, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		v, lo, hi, n := a[0].(float64), a[1].(float64), a[2].(float64), toInt64(a[3])
		if n <= 0 || n == math.MaxInt64 || math.IsNaN(v) || lo == hi || math.IsNaN(lo) || math.IsInf(lo, 0) ||
			math.IsNaN(hi) || math.IsInf(hi, 0) {
			return nil, nil
		}
		lower, upper := math.Min(lo, hi), math.Max(lo, hi)
		if lo < hi {
			switch {
			case v < lower:
				return int64(0), nil
			case v >= upper:
				return n + 1, nil
			}
			return int64(float64(n)*(v-lower)/(upper-lower)) + 1, nil
		}
		switch {
		case v > upper:
			return int64(0), nil
		case v <= lower:
			return n + 1, nil
		}
		return int64(float64(n)*(upper-v)/(upper-lower)) + 1, nil
	})
	f.str = callString(name, args)
	return f, nil
}
