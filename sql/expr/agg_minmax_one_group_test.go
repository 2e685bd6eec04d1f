package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The one-group min/max (a global aggregate over NULL-free batches) keeps what the
// retractable multiset form keeps: NaN above every number, -0.0 equal to 0.0, extremes, all-NaN
// batches, batches with NULLs mixed in (the per-row path) and empty ones; the seed is printed.
func TestMinMaxOneGroupMatchesRetractable(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 41))
	env := newEnv(t, false)
	defer env.close()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, math.MaxFloat64, -math.MaxFloat64}
	for iter := range 400 {
		ty := []sqltypes.DataType{sqltypes.DoubleType, sqltypes.LongType, sqltypes.IntegerType}[r.IntN(3)]
		name := []string{"min", "max"}[r.IntN(2)]
		f, err := BindAggregate(name, []Expr{col(0, "x", ty)}, false, Options{})
		if err != nil {
			t.Fatal(err)
		}
		plain, fast := f.NewAccumulator(env.ctx), InsertOnly(f.NewAccumulator(env.ctx))
		plain.Grow(1)
		fast.Grow(1)
		special := []int{0, 3, 40}[r.IntN(3)] // one value in `special` is an edge value (0: none)
		allNaN := r.IntN(10) == 0
		for range 1 + r.IntN(3) {
			n := r.IntN(100)
			withNulls := r.IntN(5) == 0
			vals := make([]any, n)
			for i := range vals {
				switch {
				case withNulls && r.IntN(4) == 0:
				case ty.Kind == sqltypes.Double && allNaN:
					vals[i] = math.NaN()
				case ty.Kind == sqltypes.Double && special > 0 && r.IntN(special) == 0:
					vals[i] = specials[r.IntN(len(specials))]
				case ty.Kind == sqltypes.Double:
					vals[i] = r.NormFloat64() * 1e6
				case ty.Kind == sqltypes.Long:
					vals[i] = []int64{math.MinInt64, math.MaxInt64, r.Int64N(2000) - 1000}[r.IntN(3)]
				default:
					vals[i] = []int32{math.MinInt32, math.MaxInt32, int32(r.IntN(2000) - 1000)}[r.IntN(3)]
				}
			}
			b := env.batch([]sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}, vals)
			for _, acc := range []GroupedAccumulator{plain, fast} {
				if err := acc.Update(make([]uint32, n), []arrow.Array{b.Column(0)}); err != nil {
					t.Fatal(err)
				}
			}
			b.Release()
		}
		sameAccResults(t, env, f, fast, plain, []uint32{0}, fmt.Sprintf("seed %d iter %d %s over %s (one group vs retractable)", seed, iter, f, ty.SQL()))
	}
}
