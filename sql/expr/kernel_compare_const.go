package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Comparison of a column with a non-NULL constant (= < <= > >=, not <=>) without broadcasting
// the constant into a column: the constant stays in a register and each row is compared with
// it in Spark's order (NaN equals NaN and is above everything). With k not NaN, x > k is
// NOT x <= k and x >= k is NOT x < k even for a NaN x, so one loop of "less and/or equal" with
// an optional inversion covers the five operators; with k NaN every result is "x is NaN" (not
// x <= +Inf), its inverse, or a constant. The values may be read from a narrower type S and converted by T(x)
// in the loop: the fused CAST(integral AS DOUBLE) comparison (kernel_widen.go) uses that.

// compareWithConst compares the column values xs (converted to T) with the constant k, constant
// on the left when constLeft; col is the column's array (for its NULLs).
func compareWithConst[S, T kernNum](ctx *Context, op string, xs []S, k T, constLeft bool, col arrow.Array) arrow.Array {
	if constLeft {
		op = flipComparison(op)
	}
	n := len(xs)
	mem := ctx.mem()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	if k != k {
		// NaN: = and >= hold for NaN rows (those not <= +Inf), < for the others, <= for all,
		// > for none. (Only a float T gets here.)
		inf := T(math.Inf(1))
		switch op {
		case "=", ">=":
			packConst(xs, inf, true, true, 0xff, bits)
		case "<":
			packConst(xs, inf, true, true, 0, bits)
		default:
			fill := byte(0)
			if op == "<=" {
				fill = 0xff
			}
			for i := range bits {
				bits[i] = fill
			}
		}
	} else {
		// x > k is NOT x <= k and x >= k is NOT x < k, a NaN x included.
		lt, eq, inv := op != "=", op == "=" || op == "<=" || op == ">", byte(0)
		if op == ">" || op == ">=" {
			inv = 0xff
		}
		packConst(xs, k, lt, eq, inv, bits)
	}
	if tail := n & 7; tail != 0 {
		bits[n>>3] &= 1<<tail - 1 // an inverted or filled last byte: no bits past the rows
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, andValidity(mem, n, col), buf)
}

// packConst sets bit i when T(xs[i]) < k (if lt) or T(xs[i]) == k (if eq), XOR inv, eight
// rows per byte.
func packConst[S, T kernNum](xs []S, k T, lt, eq bool, inv byte, bits []byte) {
	n := len(xs)
	full := n &^ 7
	for i := 0; i < full; i += 8 {
		v := xs[i : i+8 : i+8]
		var b byte
		for j := 0; j < 8; j++ {
			if y := T(v[j]); (lt && y < k) || (eq && y == k) {
				b |= 1 << j
			}
		}
		bits[i>>3] = b ^ inv
	}
	if full < n {
		var b byte
		for j := full; j < n; j++ {
			if y := T(xs[j]); (lt && y < k) || (eq && y == k) {
				b |= 1 << (j - full)
			}
		}
		bits[full>>3] = b ^ inv
	}
}
