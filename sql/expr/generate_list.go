package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/weirhq/weir/sparkerr"
)

// explodeList is the vectorized explode / posexplode of an array: the output rows come from
// the list's offsets and the elements from one take of its values, without reading any element
// as a Go value. An outer generator takes a NULL index for a NULL or empty array.
func explodeList(ctx *Context, list *array.List, pos, outer bool) ([]int, []arrow.Array, error) {
	n := list.Len()
	rows := make([]int, 0, list.ListValues().Len())
	idx := array.NewInt64Builder(ctx.mem())
	defer idx.Release()
	var posB *array.Int32Builder
	if pos {
		posB = array.NewInt32Builder(ctx.mem())
		defer posB.Release()
	}
	for r := 0; r < n; r++ {
		start, end := int64(0), int64(0)
		if list.IsValid(r) {
			start, end = list.ValueOffsets(r)
		}
		if start == end {
			if outer {
				rows = append(rows, r)
				idx.AppendNull()
				if pos {
					posB.AppendNull()
				}
			}
			continue
		}
		for i := start; i < end; i++ {
			rows = append(rows, r)
			idx.Append(i)
			if pos {
				posB.Append(int32(i - start))
			}
		}
	}
	ix := idx.NewArray()
	defer ix.Release()
	tctx := exec.WithAllocator(context.Background(), ctx.mem())
	elems, err := compute.TakeArray(tctx, list.ListValues(), ix)
	if err != nil {
		return nil, nil, sparkerr.Internal("explode: %v", err).Wrap(err)
	}
	if !pos {
		return rows, []arrow.Array{elems}, nil
	}
	return rows, []arrow.Array{posB.NewArray(), elems}, nil
}
