package operators

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeFixed gives what compute.Take gives, for whole and sliced columns of every width, strings
// and binaries, with and without NULLs.
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
	d128 := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	d256 := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 76, Scale: 0})
	str := array.NewStringBuilder(mem)
	bin := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	ni64 := array.NewInt64Builder(mem)
	nd128 := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 15, Scale: 2})
	nstr := array.NewStringBuilder(mem)
	nbl := array.NewBooleanBuilder(mem)
	for i := range n {
		d128.Append(decimal128.New(int64(i), uint64(i)*7))
		d256.Append(decimal256.New(uint64(i), 1, uint64(i), 3))
		str.Append(strings.Repeat("x", i%5) + strconv.Itoa(i))
		bin.Append([]byte(strconv.Itoa(i * i)))
		if i%4 == 1 {
			ni64.AppendNull()
			nd128.AppendNull()
			nstr.AppendNull()
			nbl.AppendNull()
		} else {
			ni64.Append(int64(i))
			nd128.Append(decimal128.FromI64(int64(-i)))
			nstr.Append("s" + strconv.Itoa(i))
			nbl.Append(false)
		}
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
	for _, b := range []array.Builder{i64, ts, i32, i16, i8, f64, bl, falses, d128, d256, str, bin, ni64, nd128, nstr, nbl} {
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
