package expr

import (
	"strconv"

	"github.com/weirhq/weir/sparkerr"
)

// The run-time errors of Spark's HLL sketch functions (all SparkRuntimeException).

func hllInvalidLgK(fn string, lgK int) *sparkerr.Error {
	v := strconv.Itoa(lgK)
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "HLL_INVALID_LG_K", "22546",
		"Invalid call to `%s`; the `lgConfigK` value must be between %d and %d, inclusive: %s.", fn, hllMinLgK, hllMaxLgK, v).
		WithParams("function", "`"+fn+"`", "min", strconv.Itoa(hllMinLgK), "max", strconv.Itoa(hllMaxLgK), "value", v)
}

func hllKMustBeConstant(fn string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "HLL_K_MUST_BE_CONSTANT", "42K0E",
		"Invalid call to `%s`; the `K` value must be a constant value, but got a non-constant expression.", fn).
		WithParams("function", "`"+fn+"`")
}

func hllInvalidBuffer(fn string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "HLL_INVALID_INPUT_SKETCH_BUFFER", "22546",
		"Invalid call to `%s`; only valid HLL sketch buffers are supported as inputs (such as those produced by the `hll_sketch_agg` function).", fn).
		WithParams("function", "`"+fn+"`")
}

func hllDifferentLgK(fn string, left, right int) *sparkerr.Error {
	l, r := strconv.Itoa(left), strconv.Itoa(right)
	return sparkerr.Newf(sparkerr.SparkRuntimeException, "HLL_UNION_DIFFERENT_LG_K", "22000",
		"Sketches have different `lgConfigK` values: %s and %s. Set the `allowDifferentLgConfigK` parameter to true to call `%s` with different `lgConfigK` values.", l, r, fn).
		WithParams("function", "`"+fn+"`", "left", l, "right", r)
}

// readHLL deserializes a sketch argument of fn, or fails with HLL_INVALID_INPUT_SKETCH_BUFFER.
// A sketch left by a register merge gets its KxQ sums rebuilt, as DataSketches' heapify does.
func readHLL(fn string, b []byte) (*hllSketch, error) {
	s, err := deserializeHLL(b)
	if err != nil {
		return nil, hllInvalidBuffer(fn).Wrap(err)
	}
	s.rebuildKxQ()
	return s, nil
}
