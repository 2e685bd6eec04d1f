package operators

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// selectedRows returns the indexes of the rows where b is true (NULL counts as false), reading
// the value and validity bitmaps eight rows at a time.
func selectedRows(b *array.Boolean) []int64 {
	n := b.Len()
	off := b.Data().Offset()
	if off%8 != 0 {
		idx := make([]int64, 0, n)
		for i := 0; i < n; i++ {
			if b.IsValid(i) && b.Value(i) {
				idx = append(idx, int64(i))
			}
		}
		return idx
	}
	vals := b.Data().Buffers()[1].Bytes()[off/8:]
	var valid []byte
	size := n
	if b.NullN() > 0 {
		valid = b.NullBitmapBytes()[off/8:]
	} else {
		size = bitutil.CountSetBits(vals, 0, n)
	}
	idx := make([]int64, 0, size)
	for i := 0; i < n; i += 8 {
		m := vals[i/8]
		if valid != nil {
			m &= valid[i/8]
		}
		if rest := n - i; rest < 8 {
			m &= byte(1)<<rest - 1
		}
		for m != 0 {
			idx = append(idx, int64(i+bits.TrailingZeros8(m)))
			m &= m - 1
		}
	}
	return idx
}
