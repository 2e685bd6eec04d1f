package expr

import (
	"fmt"
	"github.com/weirhq/weir/conf"
	"math"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Size limits of the functions whose result size is computed from an argument (repeat, lpad,
// array_repeat, sequence, format_string widths, …). Such a function declares a sizer on its
// rowFunc: before the function allocates anything for a row, the sizer computes the bytes the
// result will take (or fails with Spark's own limit, e.g. COLLECTION_SIZE_LIMIT_EXCEEDED), and
// rowFunc.Eval checks it against the bounds per value and summed over the batch. Only then is
// the value built.

// MaxRoundedArrayLength is Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH (Integer.MAX_VALUE
// - 15): the most elements a Spark array can have, and the most bytes one JVM value can hold.
const MaxRoundedArrayLength = math.MaxInt32 - 15

// ValueBytesOfBudget is Context.MaxValueBytes under a query memory budget of budget bytes (≤ 0:
// unlimited): a quarter of it, so that one value, or one batch of a function's results, leaves
// room for the copies it takes on its way out (Arrow builders, the result batches).
func ValueBytesOfBudget(budget int64) int64 {
	if budget <= 0 {
		return 0
	}
	return max(1, budget/4)
}

// goAnyBytes is what one element of a row-wise []any result costs before it is built into Arrow.
const goAnyBytes = 16

// batchBytesLimit is the most bytes of variable-width data one Arrow string, binary or list array
// holds (32-bit offsets): a batch whose results sum to more cannot be built at all.
const batchBytesLimit = math.MaxInt32

// valueBound is the most bytes one value may take: Spark's per-value ceiling, lowered by
// MaxValueBytes when it is set.
func (c *Context) valueBound() int64 {
	b := int64(MaxRoundedArrayLength)
	if c != nil && c.MaxValueBytes > 0 && c.MaxValueBytes < b {
		b = c.MaxValueBytes
	}
	return b
}

// batchBound is the most bytes the values of one evaluation over a batch may take together.
func (c *Context) batchBound() int64 {
	b := int64(batchBytesLimit)
	if c != nil && c.MaxValueBytes > 0 && c.MaxValueBytes < b {
		b = c.MaxValueBytes
	}
	return b
}

// checkResultBytes is called before fn builds a value of need bytes, when the values already
// built over this batch take used bytes. It fails with Spark's out-of-memory error when the value
// or the batch would pass its bound.
func (c *Context) checkResultBytes(fn string, need, used int64) error {
	configured := c != nil && c.MaxValueBytes > 0
	if vb := c.valueBound(); need > vb {
		return outOfMemory(fn, need, vb, vb, "one value", !configured || vb < c.MaxValueBytes)
	}
	if bb := c.batchBound(); need > bb-used {
		return outOfMemory(fn, need, bb-used, bb, fmt.Sprintf("one batch (%d bytes already taken by its other values)", used),
			!configured || bb < c.MaxValueBytes)
	}
	return nil
}

// checkGeneratedBytes is called before a generator builds rows of need bytes from one batch.
func (c *Context) checkGeneratedBytes(fn string, need int64) error {
	if bb := c.batchBound(); need > bb {
		return outOfMemory(fn, need, bb, bb, "the rows it generates from one batch",
			c == nil || c.MaxValueBytes <= 0 || bb < c.MaxValueBytes)
	}
	return nil
}

// outOfMemory is Spark's sparkerr.SparkOutOfMemoryError UNABLE_TO_ACQUIRE_MEMORY for fn's result of need
// bytes in scope when only got bytes of its limit may still be taken. hard says the limit is
// Spark's or Arrow's own ceiling, which no configuration raises.
func outOfMemory(fn string, need, got, limit int64, scope string, hard bool) *sparkerr.Error {
	msg := fmt.Sprintf("The function `%s` needs %d bytes for %s, over the limit of %d bytes", fn, need, scope, limit)
	if hard {
		msg += " that a value or a batch of values can have."
	} else {
		msg += fmt.Sprintf(" of this query's evaluation; set %s to raise it.", conf.QueryMemoryBudgetKey)
	}
	return sparkerr.UnableToAcquireMemory(need, max(got, 0), msg)
}

// collectionSizeLimit is COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER: fn was asked for count elements,
// more than MaxRoundedArrayLength (QueryExecutionErrors.createArrayWithElementsExceedLimitError).
func collectionSizeLimit(fn string, count int64) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", "54000",
		"Can't create array with %d elements which exceeding the array size limit %d, the value of parameter(s) `count` in the function `%s` is invalid.",
		count, MaxRoundedArrayLength, fn).
		WithParams("numberOfElements", fmt.Sprint(count), "maxRoundedArrayLength", fmt.Sprint(MaxRoundedArrayLength),
			"functionName", sparkerr.Quote(fn), "parameter", "`count`")
}

// javaArithmetic is a plain java.lang.ArithmeticException (Math.multiplyExact's "integer
// overflow", BigDecimal's "Underflow"), which Spark raises without an error class.
func javaArithmetic(msg string) *sparkerr.Error {
	return sparkerr.New(sparkerr.ArithmeticException, "", "", msg)
}

// mulBytes is a*b saturated at math.MaxInt64 (a, b >= 0), for sizes that may not fit.
func mulBytes(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// addBytes is a+b saturated at math.MaxInt64 (a, b >= 0).
func addBytes(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// valueBytes estimates the bytes a Go value of type t takes once built into an Arrow array: its
// fixed width (or data plus a 4-byte offset), recursively for nested values.
func valueBytes(v any, t sqltypes.DataType) int64 {
	switch x := v.(type) {
	case nil:
		return 1
	case string:
		return int64(len(x)) + 4
	case []byte:
		return int64(len(x)) + 4
	case []any:
		n := int64(4)
		switch t.Kind {
		case sqltypes.Array:
			for _, e := range x {
				n = addBytes(n, valueBytes(e, *t.Elem))
			}
		case sqltypes.Struct:
			for i, e := range x {
				if i < len(t.Fields) {
					n = addBytes(n, valueBytes(e, t.Fields[i].Type))
				}
			}
		}
		return n
	case *sqltypes.MapValue:
		n := int64(4)
		for i := range x.Keys {
			n = addBytes(n, valueBytes(x.Keys[i], *t.Key))
			n = addBytes(n, valueBytes(x.Values[i], *t.Value))
		}
		return n
	}
	switch t.Kind {
	case sqltypes.Decimal:
		return 16
	case sqltypes.Boolean, sqltypes.Byte:
		return 1
	case sqltypes.Short:
		return 2
	case sqltypes.Integer, sqltypes.Float, sqltypes.Date, sqltypes.YearMonthInterval:
		return 4
	}
	return 8
}

// withSize sets the sizer of a row-wise function bound by a binder and returns it.
func withSize(e Expr, size func(a []any) (int64, error)) Expr {
	if f, ok := e.(*rowFunc); ok {
		f.size = size
	}
	return e
}
