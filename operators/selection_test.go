package operators

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSelectedRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// Row i is true when i%3 != 0, NULL when i%7 == 0.
	const n = 45
	bld := array.NewBooleanBuilder(mem)
	defer bld.Release()
	for i := range n {
		if i%7 == 0 {
			bld.AppendNull()
			continue
		}
		bld.Append(i%3 != 0)
	}
	whole := bld.NewBooleanArray()
	defer whole.Release()
	for _, tc := range []struct{ lo, hi int }{{0, n}, {0, 0}, {0, 5}, {8, 45}, {3, 30}, {16, 17}} {
		s := array.NewSlice(whole, int64(tc.lo), int64(tc.hi)).(*array.Boolean)
		var want []int64
		for i := tc.lo; i < tc.hi; i++ {
			if i%7 != 0 && i%3 != 0 {
				want = append(want, int64(i-tc.lo))
			}
		}
		if got := selectedRows(s); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("rows [%d, %d): got %v, want %v", tc.lo, tc.hi, got, want)
		}
		s.Release()
	}
}
