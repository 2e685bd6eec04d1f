package operators

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestJoinTableMatchesNestedLoop compares joinTable's pairs, and fixedJoinTable's for integer
// keys (indexed directly or hashed, all pairs or each left row's first), with every (left,
// right) pair whose keys are equal by rowsEqual (NULL keys never matching), in the same order,
// on random keys (one or two columns, with NULLs and duplicates); the seed is printed.
func TestJoinTableMatchesNestedLoop(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	types := []sqltypes.DataType{sqltypes.LongType, sqltypes.IntegerType, sqltypes.DateType, sqltypes.DoubleType, sqltypes.StringType}
	fixedSeen := map[bool]bool{}
	defer func() {
		if !fixedSeen[true] || !fixedSeen[false] {
			t.Errorf("fixedJoinTable tried directly indexed %v, hashed %v; want both", fixedSeen[true], fixedSeen[false])
		}
	}()
	for iter := 0; iter < 400; iter++ {
		// Key values come from 12 small ones or 12 spread over the whole range (hashed, not
		// indexed directly).
		pool := make([]int64, 12)
		for i := range pool {
			pool[i] = int64(i)
			if iter%2 == 1 {
				pool[i] = int64(r.Uint64())
			}
		}
		ts := []sqltypes.DataType{types[r.IntN(len(types))]}
		if r.IntN(3) == 0 {
			ts = append(ts, types[r.IntN(len(types))])
		}
		side := func(n int) []arrow.Array {
			cols := make([]arrow.Array, len(ts))
			for c, ty := range ts {
				vals := make([]any, n)
				for i := range vals {
					if ty.Kind == sqltypes.Double {
						vals[i] = randomSortValue(r, ty)
						continue
					}
					if r.IntN(8) == 0 {
						continue
					}
					v := pool[r.IntN(12)]
					switch ty.Kind {
					case sqltypes.Long:
						vals[i] = v
					case sqltypes.Integer, sqltypes.Date:
						vals[i] = int32(v)
					case sqltypes.String:
						vals[i] = string(rune('a' + v%12))
					}
				}
				cols[c] = expr.BuildArray(mem, ty, "UTC", vals)
			}
			return cols
		}
		left, right := side(r.IntN(80)), side(r.IntN(80))
		hash := func(cols []arrow.Array) []uint64 {
			hs := make([]uint64, cols[0].Len())
			hashColumns(cols, 0, hs)
			return hs
		}
		tab := newJoinTable(right, hash(right))
		li, ri := tab.probe(left, hash(left), nil, nil)
		var wl, wr []int64
		for i := 0; i < left[0].Len(); i++ {
			for k := 0; k < right[0].Len(); k++ {
				if !anyNull(left, i) && !anyNull(right, k) && rowsEqual(left, i, right, k) {
					wl, wr = append(wl, int64(i)), append(wr, int64(k))
				}
			}
		}
		if !slices.Equal(li, wl) || !slices.Equal(ri, wr) {
			t.Fatalf("seed %d iter %d keys %v: pairs %v %v, want %v %v", seed, iter, ts, li, ri, wl, wr)
		}
		if fixed, ok := newFixedJoinTable(right); ok {
			fl, fr, ok := fixed.probe(left, false, nil, nil)
			if !ok || !slices.Equal(fl, wl) || !slices.Equal(fr, wr) {
				t.Fatalf("seed %d iter %d keys %v direct %v: fixed pairs %v %v, want %v %v", seed, iter, ts, fixed.direct, fl, fr, wl, wr)
			}
			var firstL, firstR []int64
			for k := range wl {
				if k == 0 || wl[k] != wl[k-1] {
					firstL, firstR = append(firstL, wl[k]), append(firstR, wr[k])
				}
			}
			fl, fr, _ = fixed.probe(left, true, nil, nil)
			if !slices.Equal(fl, firstL) || !slices.Equal(fr, firstR) {
				t.Fatalf("seed %d iter %d keys %v: first pairs %v %v, want %v %v", seed, iter, ts, fl, fr, firstL, firstR)
			}
			fixedSeen[fixed.direct] = true
		}
		releaseAll(left)
		releaseAll(right)
	}
}
