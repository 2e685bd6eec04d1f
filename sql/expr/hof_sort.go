package expr

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sparkerr"
)

// evalSort is array_sort(arr, (left, right) -> int): each row's elements ordered stably by the
// comparator (negative: left first). Every pair of a row's elements is compared in one
// vectorized evaluation of the comparator, then the row is sorted by those results.
func (h *hof) evalSort(ctx *Context, batch arrow.RecordBatch, arrs []any, out []any) error {
	var rows []int
	var lefts, rights []any
	for r, a := range arrs {
		if a == nil {
			continue
		}
		in := a.([]any)
		for i, x := range in {
			for j, y := range in {
				if i != j {
					rows = append(rows, r)
					lefts, rights = append(lefts, x), append(rights, y)
				}
			}
		}
	}
	res, err := h.evalLambda(ctx, h.lambdas[0], batch, rows, [][]any{lefts, rights})
	if err != nil {
		return err
	}
	k := 0
	for r, a := range arrs {
		if a == nil {
			continue
		}
		in := a.([]any)
		n := len(in)
		// cmp[i*n+j] compares element i with element j; the diagonal is not evaluated.
		cmp := make([]any, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				if res[k] == nil {
					return comparatorReturnsNull(in[i], in[j], h)
				}
				cmp[i*n+j] = res[k]
				k++
			}
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return idx[i] != idx[j] && toInt64(cmp[idx[i]*n+idx[j]]) < 0 })
		sorted := make([]any, n)
		for i, j := range idx {
			sorted[i] = in[j]
		}
		out[r] = sorted
	}
	return nil
}

// comparatorReturnsNull is Spark's COMPARATOR_RETURNS_NULL.
func comparatorReturnsNull(x, y any, h *hof) error {
	t := *h.args[0].Type().Elem
	a, b := renderSQLValue(x, t), renderSQLValue(y, t)
	return sparkerr.New(sparkerr.SparkRuntimeException, "COMPARATOR_RETURNS_NULL", "22004",
		"The comparator has returned a NULL for a comparison between "+a+" and "+b+
			". It should return a positive integer for \"greater than\", 0 for \"equal\" and a negative integer for \"less than\". To revert to deprecated behavior where NULL is treated as 0 (equal), you must set \"spark.sql.legacy.allowNullComparisonResultInArraySort\" to \"true\".").
		WithParams("firstValue", a, "secondValue", b)
}
