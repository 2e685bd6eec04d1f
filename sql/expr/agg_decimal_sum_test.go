package expr

import (
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Summing decimal arrays per group (addDecimals' 192-bit partial sums) gives the exact sums,
// with values near the largest of their precision (36 and 38: Q1's decimal(38,6) products) so
// that one batch's sum per group passes 2^127, positive and negative.
func TestSumDecimalsPerGroupIsExact(t *testing.T) {
	for _, p := range []int32{36, 38} {
		sumDecimalsPerGroupIsExact(t, p)
	}
}

func sumDecimalsPerGroupIsExact(t *testing.T, precision int32) {
	seed := time.Now().UnixNano()
	t.Logf("precision %d seed %d", precision, seed)
	rng := rand.New(rand.NewSource(seed))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in, out := sqltypes.DecimalType(precision, 2), sqltypes.DecimalType(38, 2)
	const groupsN = 3
	acc := newSumAcc(in, out, false, false)
	acc.Grow(groupsN)
	want := make([]*big.Int, groupsN)
	for g := range want {
		want[g] = new(big.Int)
	}
	max36 := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	max36.Sub(max36, big.NewInt(1))
	for batch := 0; batch < 10; batch++ {
		n := 4000
		vals := make([]any, n)
		groups := make([]uint32, n)
		for i := range vals {
			groups[i] = uint32(rng.Intn(groupsN))
			if rng.Intn(8) == 0 {
				continue
			}
			v := new(big.Int).Rand(rng, max36)
			if rng.Intn(10) == 0 || precision == 38 && batch%2 == 1 {
				v.Neg(v)
			}
			if rng.Intn(2) == 0 {
				v.SetInt64(rng.Int63n(1000) - 500)
			}
			vals[i] = decimal128.FromBigInt(v)
		}
		sign := int64(1)
		if batch%5 == 4 {
			sign = -1
		}
		arr := BuildArray(mem, in, "UTC", vals)
		if err := acc.add(groups, arr, sign); err != nil {
			t.Fatal(err)
		}
		arr.Release()
		for i, v := range vals {
			if v == nil {
				continue
			}
			b := v.(decimal128.Num).BigInt()
			if sign < 0 {
				b.Neg(b)
			}
			want[groups[i]].Add(want[groups[i]], b)
		}
	}
	for g := range want {
		got := acc.decs[g]
		if got == nil {
			got = new(big.Int)
		}
		if got.Cmp(want[g]) != 0 {
			t.Fatalf("group %d: sum %s, want %s", g, got, want[g])
		}
	}
}
