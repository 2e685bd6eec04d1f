package expr

import (
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// A widening decimal cast over an array (the fast path) gives what casting each value does.
func TestDecimalWidenMatchesValueCast(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range []struct{ from, to sqltypes.DataType }{
		{sqltypes.DecimalType(15, 2), sqltypes.DecimalType(16, 2)},
		{sqltypes.DecimalType(15, 2), sqltypes.DecimalType(18, 4)},
		{sqltypes.DecimalType(3, 2), sqltypes.DecimalType(38, 20)},
		{sqltypes.DecimalType(10, 0), sqltypes.DecimalType(12, 2)},
	} {
		vals := make([]any, 500)
		for i := range vals {
			if rng.Intn(10) == 0 {
				continue // NULL
			}
			digits := int64(1)
			for d := int32(0); d < c.from.Precision && d < 18; d++ {
				digits *= 10
			}
			vals[i] = decimal128.FromI64(rng.Int63n(2*digits-1) - (digits - 1))
		}
		in := BuildArray(mem, c.from, "UTC", vals)
		ctx := &Context{Mem: mem}
		fast := fastDecimalWiden(ctx, in, c.from, c.to)
		if fast == nil {
			t.Fatalf("%s → %s: no fast path", c.from, c.to)
		}
		for i, v := range vals {
			got := ValueAt(fast, i, c.to)
			var want any
			if v != nil {
				var err error
				if want, err = castValue(v, c.from, c.to, true, time.UTC); err != nil {
					t.Fatal(err)
				}
			}
			if Compare(got, want, c.to) != 0 {
				t.Fatalf("%s → %s row %d: %v, want %v", c.from, c.to, i, got, want)
			}
		}
		fast.Release()
		in.Release()
	}
	// Narrowing casts (which may overflow or round) are not the fast path's.
	for _, c := range []struct{ from, to sqltypes.DataType }{
		{sqltypes.DecimalType(15, 2), sqltypes.DecimalType(14, 2)},
		{sqltypes.DecimalType(15, 2), sqltypes.DecimalType(15, 1)},
		{sqltypes.DecimalType(15, 2), sqltypes.DecimalType(15, 3)},
	} {
		in := BuildArray(mem, c.from, "UTC", []any{decimal128.FromI64(1)})
		if out := fastDecimalWiden(&Context{Mem: mem}, in, c.from, c.to); out != nil {
			out.Release()
			t.Errorf("%s → %s took the fast path", c.from, c.to)
		}
		in.Release()
	}
}
