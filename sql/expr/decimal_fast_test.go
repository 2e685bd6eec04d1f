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

// A product of decimals with more than 38 digits between them whose result keeps scale s1+s2
// (TPC-H Q1's price * (1 - discount) * (1 + tax)) is computed natively when the operands fit
// in 64 bits, and equals the exact row path; a row with a wider operand is computed by the exact
// function inside the same kernel call.
func TestDecimalWideProductMatchesRowPath(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lt, rt := sqltypes.DecimalType(31, 4), sqltypes.DecimalType(16, 2)
	l := &Column{Index: 0, Name: "l", T: lt, Null: true}
	r := &Column{Index: 1, Name: "r", T: rt, Null: true}
	e, err := Bind("*", []Expr{l, r}, Options{ANSI: true, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	a := e.(*arith)
	if a.t.Scale != lt.Scale+rt.Scale {
		t.Fatalf("result type %s: not the case under test", a.t)
	}
	big64 := decimal128.New(1, 0) // 2^64: not an int64
	for _, c := range []struct {
		name   string
		ls, rs []any
		native bool
	}{
		{"int64 operands", []any{decimal128.FromI64(123456789012345), decimal128.FromI64(-5), nil}, []any{decimal128.FromI64(105), decimal128.FromI64(99), decimal128.FromI64(1)}, true},
		{"an operand past int64", []any{big64, decimal128.FromI64(2)}, []any{decimal128.FromI64(3), decimal128.FromI64(4)}, true},
	} {
		la, ra := BuildArray(mem, lt, "UTC", c.ls), BuildArray(mem, rt, "UTC", c.rs)
		ctx := &Context{Mem: mem}
		fast, ok, err := a.decimalFast(ctx, la, ra)
		if err != nil || ok != c.native {
			t.Fatalf("%s: native %v (err %v), want %v", c.name, ok, err, c.native)
		}
		slow, err := a.evalRows(ctx, la, ra)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			for i := 0; i < slow.Len(); i++ {
				if g, w := ValueAt(fast, i, a.t), ValueAt(slow, i, a.t); Compare(g, w, a.t) != 0 {
					t.Errorf("%s row %d: %v, want %v", c.name, i, g, w)
				}
			}
			fast.Release()
		}
		slow.Release()
		la.Release()
		ra.Release()
	}
}
