package expr

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// String cast kernels: STRING to TINYINT..BIGINT, FLOAT, DOUBLE and DATE parse each value where
// it lies in the Arrow data buffer with the row path's parsers (parseIntegral, parseDouble,
// parseDate) and write typed values, with no Go value per row. A malformed or out-of-range
// value fails under ANSI (CAST_INVALID_INPUT, for the first such valid row, as the row path)
// and is NULL otherwise. TINYINT..BIGINT to STRING (Java's Long.toString: the decimal digits)
// appends each value's digits straight into the result's data buffer.

// castFromStringKernel returns ok=false when the input is not a plain string array or the
// target has no kernel.
func castFromStringKernel(ctx *Context, c *castExpr, in arrow.Array) (arrow.Array, bool, error) {
	v, ok := viewOf(in)
	if !ok {
		return nil, false, nil
	}
	to := c.to
	switch to.Kind {
	case sqltypes.Byte:
		return parseStrings[int8](ctx, c, in, v, parseIntoInt[int8](to, c.ansi))
	case sqltypes.Short:
		return parseStrings[int16](ctx, c, in, v, parseIntoInt[int16](to, c.ansi))
	case sqltypes.Integer:
		return parseStrings[int32](ctx, c, in, v, parseIntoInt[int32](to, c.ansi))
	case sqltypes.Long:
		return parseStrings[int64](ctx, c, in, v, parseIntoInt[int64](to, c.ansi))
	case sqltypes.Float:
		return parseStrings[float32](ctx, c, in, v, func(s string) (float32, bool) {
			f, ok := parseDouble(s)
			return float32(f), ok
		})
	case sqltypes.Double:
		return parseStrings[float64](ctx, c, in, v, parseDouble)
	case sqltypes.Date:
		return parseStrings[int32](ctx, c, in, v, parseDate)
	}
	return nil, false, nil
}

func parseIntoInt[T int8 | int16 | int32 | int64](to sqltypes.DataType, ansi bool) func(string) (T, bool) {
	lo, hi := integralBounds(to.Kind)
	return func(s string) (T, bool) {
		n, ok := parseIntegral(s, ansi)
		if !ok || n < lo || n > hi {
			return 0, false
		}
		return T(n), true
	}
}

// parseStrings parses every valid row of in with parse.
func parseStrings[T kernNum](ctx *Context, c *castExpr, in arrow.Array, v strView, parse func(string) (T, bool)) (arrow.Array, bool, error) {
	n := in.Len()
	mem := ctx.mem()
	buf, out := kernValues[T](mem, n)
	valid := andValidity(mem, n, in)
	for i := 0; i < n; i++ {
		if !isValidBit(valid, i) {
			out[i] = 0
			continue
		}
		x, ok := parse(v.at(i))
		if !ok {
			if c.ansi {
				buf.Release()
				releaseBuf(valid)
				return nil, true, castInvalidInput(strings.Clone(v.at(i)), sqltypes.StringType, c.to)
			}
			if valid == nil {
				valid = allValid(mem, n)
			}
			bitutil.ClearBit(valid.Bytes(), i)
			x = 0
		}
		out[i] = x
	}
	return makeArray(sqltypes.ToArrow(c.to, ctx.tz()), n, valid, buf), true, nil
}

// intsToStrings is CAST(x AS STRING) of an integral column xs: each valid row's decimal digits
// (strconv.AppendInt, Java's Long.toString), NULL rows empty.
func intsToStrings[S int8 | int16 | int32 | int64](ctx *Context, in arrow.Array, xs []S) arrow.Array {
	n := len(xs)
	mem := ctx.mem()
	valid := andValidity(mem, n, in)
	offBuf, offs := kernValues[int32](mem, n+1)
	size := 0 // the exact data size: the buffer is zeroed when allocated, so none to spare
	for i, x := range xs {
		if isValidBit(valid, i) {
			size += decimalLen(int64(x))
		}
	}
	data := memory.NewResizableBuffer(mem)
	data.Reserve(size)
	out := data.Buf()[:0]
	offs[0] = 0
	for i, x := range xs {
		if isValidBit(valid, i) {
			out = strconv.AppendInt(out, int64(x), 10)
		}
		offs[i+1] = int32(len(out))
	}
	data.ResizeNoShrink(len(out))
	return makeStringArray(n, valid, offBuf, data)
}

// pow10Uint64 holds 10^0 … 10^19.
var pow10Uint64 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decimalLen is the length of strconv.FormatInt(x, 10).
func decimalLen(x int64) int {
	u, sign := uint64(x), 0
	if x < 0 {
		u, sign = -u, 1
	}
	d := (bits.Len64(u) * 1233) >> 12 // ⌊log10 2^bits⌋: the digits of u, or one fewer
	if d < len(pow10Uint64) && u >= pow10Uint64[d] {
		d++
	}
	return max(d, 1) + sign
}
