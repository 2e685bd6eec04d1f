package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// With one group (a global aggregate) sum and avg over doubles, longs and ints take the
// register loops; their results equal the row-at-a-time path's bit for bit (NaN, infinities,
// -0.0, values whose order of addition matters, retractions), and ANSI overflow fails in both;
// the seed is printed.
func TestSumOneGroupMatchesRowPath(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 37))
	env := newEnv(t, true)
	defer env.close()
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e308, -1e308, 1e-300, 0.1, 3}
	for iter := range 300 {
		ty := []sqltypes.DataType{sqltypes.DoubleType, sqltypes.LongType, sqltypes.IntegerType}[r.IntN(3)]
		name := []string{"sum", "avg"}[r.IntN(2)]
		ansi := r.IntN(2) == 0
		f, err := BindAggregate(name, []Expr{col(0, "x", ty)}, false, Options{ANSI: ansi})
		if err != nil {
			t.Fatal(err)
		}
		typed, rows := f.NewAccumulator(env.ctx).(*sumAcc), f.NewAccumulator(env.ctx).(*sumAcc)
		typed.Grow(1)
		rows.Grow(1)
		fields := []sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}
		nullEvery := []int{0, 0, 5}[r.IntN(3)] // mostly NULL-free: the register loops' case
		failed := false
		for range 1 + r.IntN(4) {
			n := r.IntN(300)
			vals, groups := make([]any, n), make([]uint32, n)
			for i := range vals {
				if nullEvery > 0 && r.IntN(nullEvery) == 0 {
					continue
				}
				switch ty.Kind {
				case sqltypes.Double:
					// Mostly finite values whose sum depends on the order of addition;
					// the special values (NaN and infinities absorb the sum) rarely.
					vals[i] = r.NormFloat64() * math.Pow10(r.IntN(40)-20)
					if r.IntN(60) == 0 {
						vals[i] = floats[r.IntN(len(floats))]
					}
				case sqltypes.Long:
					vals[i] = []int64{math.MinInt64 / 4, math.MaxInt64 / 4, math.MaxInt64, r.Int64N(1000) - 500}[r.IntN(4)]
				default:
					vals[i] = []int32{math.MinInt32, math.MaxInt32, int32(r.IntN(1000) - 500)}[r.IntN(3)]
				}
			}
			b := env.batch(fields, vals)
			sign := int64(1)
			if r.IntN(4) == 0 {
				sign = -1
			}
			terr := typed.add(groups, b.Column(0), sign)
			rerr := rows.addValues(groups, b.Column(0), sign)
			b.Release()
			if (terr == nil) != (rerr == nil) {
				t.Fatalf("seed %d iter %d %s over %s ansi=%t: error %v, row path %v", seed, iter, f, ty.SQL(), ansi, terr, rerr)
			}
			if failed = terr != nil; failed {
				break // the query fails: the sums are not read
			}
		}
		if failed {
			continue
		}
		sameAccResults(t, env, f, typed, rows, []uint32{0}, fmt.Sprintf("seed %d iter %d %s over %s ansi=%t", seed, iter, f, ty.SQL(), ansi))
	}
}
