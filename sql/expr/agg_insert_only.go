package expr

import (
	"github.com/weirhq/weir/sparkerr"
)

// insertOnlyAccumulator is implemented by accumulators with a cheaper form when no row will
// ever be retracted: min/max without their value multiset, DISTINCT over a typed hash set.
type insertOnlyAccumulator interface {
	insertOnlyAccumulator() GroupedAccumulator
}

// InsertOnly returns acc, or a cheaper accumulator of the same function whose Retract fails,
// for an aggregate whose input never retracts (a batch aggregate). Call it on a fresh
// accumulator, before Grow. Results are the same as acc's for the same updates. The insert-only
// form keeps no checkpointable or spillable state beyond what the function's result needs.
func InsertOnly(acc GroupedAccumulator) GroupedAccumulator {
	if a, ok := acc.(insertOnlyAccumulator); ok {
		return a.insertOnlyAccumulator()
	}
	return acc
}

// Retracts reports whether f's accumulators can retract rows. Those keeping only a running
// value cannot (the HLL, top-k, bitmap, frequent-items, vector and histogram_numeric aggregates):
// a sliding window frame recomputes them instead.
func Retracts(f AggFunc) bool {
	a, ok := f.(*aggFunc)
	return !ok || !a.noRetract
}

// errInsertOnly is Retract on an insert-only accumulator: the planner never feeds one
// retractions, so reaching it is a bug.
var errInsertOnly = sparkerr.Internal("expr: retraction fed to an insert-only (batch) accumulator")

// ErrInsertOnly is the error Retract returns for an accumulator that keeps only a running value
// and cannot take rows back (the sketch aggregates, histogram_numeric, ...): a window frame that
// slides over such an aggregate recomputes it instead (errors.Is).
var ErrInsertOnly error = errInsertOnly
