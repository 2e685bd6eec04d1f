package operators

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeFixed gives what compute.Take gives, for whole and sliced columns of every width.
func TestTakeFixedMatchesCompute(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 40
	var cols []arrow.Array
	i64 := array.NewInt64Builder(mem)
	ts := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	i32 := array.NewInt32Builder(mem)
	i16 := array.NewInt16Builder(mem)
	i8 := array.NewInt8Builder(mem)
	f64 := array.NewFloat64Builder(mem)
	bl := array.NewBooleanBuilder(mem)
	for i := range n {
		i64.Append(int64(i) * 1_000_000_007)
		ts.Append(arrow.Timestamp(i * 1000))
		i32.Append(int32(-i))
		i16.Append(int16(i * 3))
		i8.Append(int8(i))
		f64.Append(float64(i) / 3)
		bl.Append(i%3 == 1)
	}
	falses := array.NewBooleanBuilder(mem)
	falses.AppendValues(make([]bool, n), nil)
	for _, b := range []array.Builder{i64, ts, i32, i16, i8, f64, bl, falses} {
		cols = append(cols, b.NewArray())
		b.Release()
	}
	cols = append(cols, array.MakeArrayOfNull(mem, arrow.BinaryTypes.Binary, n))
	defer releaseAll(cols)
	ctx := exec.WithAllocator(context.Background(), mem)
	for _, c := range cols {
		for _, sl := range [][2]int64{{0, n}, {3, 37}, {8, 9}} {
			s := array.NewSlice(c, sl[0], sl[1])
			m := int(sl[1] - sl[0])
			idx := []int64{int64(m - 1), 0}
			for j := 0; j < m; j += 3 {
				idx = append(idx, int64(j))
			}
			got := takeFixed(mem, s, idx, maxIndex(idx))
			if got == nil {
				t.Fatalf("%s: not taken", s.DataType())
			}
			ix := indexArray(mem, idx, nil)
			want, err := compute.TakeArray(ctx, s, ix)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) {
				t.Fatalf("%s %v: got %v, want %v", s.DataType(), sl, got, want)
			}
			got.Release()
			want.Release()
			ix.Release()
			s.Release()
		}
		// An index out of range is left to compute.Take (which reports it).
		if got := takeFixed(mem, c, []int64{n}, maxIndex([]int64{n})); got != nil {
			t.Fatalf("%s: out-of-range index taken", c.DataType())
		}
	}
}
