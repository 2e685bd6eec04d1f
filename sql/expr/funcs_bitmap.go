package expr

import (
	"math/bits"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// Bitmap functions (Spark's BitmapExpressionUtils): a bitmap is a BINARY of bitmapBytes bytes
// whose bit i (byte i/8, bit i%8 from the least significant) is set when position i is in it.
// bitmap_bucket_number and bitmap_bit_position split a BIGINT into a bucket and a position in
// it; bitmap_count counts the set bits of any BINARY. The aggregates building bitmaps are in
// agg_bitmap.go.

const (
	bitmapBytes = 4096
	bitmapBits  = bitmapBytes * 8
)

func init() {
	registerScalar(1, 1, bindBitmapPosition, "bitmap_bucket_number", "bitmap_bit_position")
	registerScalar(1, 1, bindBitmapCount, "bitmap_count")
}

// bindBitmapPosition: a value v > 0 is in bucket 1 + (v-1)/32768 at position (v-1)%32768; other
// values are in bucket v/32768 at position (-v)%32768 (Java's truncating division and
// remainder, so MinInt64 is at position 0).
func bindBitmapPosition(name string, args []Expr, opts Options) (Expr, error) {
	x, err := bitmapLongArg(name, args, opts)
	if err != nil {
		return nil, err
	}
	bucket := name == "bitmap_bucket_number"
	f := strict(name, []Expr{x}, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		v := a[0].(int64)
		switch {
		case bucket && v > 0:
			return 1 + (v-1)/bitmapBits, nil
		case bucket:
			return v / bitmapBits, nil
		case v > 0:
			return (v - 1) % bitmapBits, nil
		}
		p := (-v) % bitmapBits
		if p < 0 {
			p = -p
		}
		return p, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bindBitmapCount counts the set bits of a BINARY (no implicit cast, as Spark).
func bindBitmapCount(name string, args []Expr, _ Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.Binary {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"BINARY"`, args[0])
	}
	f := strict(name, args, sqltypes.LongType, func(_ *Context, a []any) (any, error) {
		n := 0
		for _, b := range a[0].([]byte) {
			n += bits.OnesCount8(b)
		}
		return int64(n), nil
	})
	f.str = callString(name, args)
	return f, nil
}

// bitmapLongArg casts a bitmap function's argument to BIGINT: strings, integers and, unlike
// most integer arguments, any number (truncated; an overflow is CAST_OVERFLOW), as Spark's
// implicit casts for these functions do.
func bitmapLongArg(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().IsNumeric() {
		return implicitCast(args[0], sqltypes.LongType, opts)
	}
	return coerceArg(name, args, 0, sqltypes.LongType, opts)
}
