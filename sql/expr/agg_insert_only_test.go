package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// randomAggValue draws a value of t with NULLs, duplicates and edge values (NaN, -0.0, extremes).
func randomAggValue(r *rand.Rand, t sqltypes.DataType) any {
	if r.IntN(8) == 0 {
		return nil
	}
	small := r.IntN(4) != 0 // small domain: many duplicates
	switch t.Kind {
	case sqltypes.Byte:
		return int8(r.IntN(256) - 128)
	case sqltypes.Short:
		return int16(r.IntN(40) - 20)
	case sqltypes.Integer:
		if !small {
			return []int32{math.MinInt32, math.MaxInt32, 0}[r.IntN(3)]
		}
		return int32(r.IntN(40) - 20)
	case sqltypes.Date:
		return int32(r.IntN(40) - 20)
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		if !small {
			return []int64{math.MinInt64, math.MaxInt64, 0, r.Int64()}[r.IntN(4)]
		}
		return int64(r.IntN(40) - 20)
	case sqltypes.Float:
		if !small {
			return []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(-1))}[r.IntN(4)]
		}
		return float32(r.IntN(40)-20) / 4
	case sqltypes.Double:
		if !small {
			return []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1),
				math.Float64frombits(0x7ff8000000000001)}[r.IntN(6)]
		}
		return float64(r.IntN(40)-20) / 4
	case sqltypes.String:
		return string(rune('a' + r.IntN(6)))
	}
	panic("randomAggValue: " + t.SQL())
}

// TestInsertOnlyMatchesRetractable feeds the same random batches (NULLs, NaN, -0.0, extremes;
// several groups) to the insert-only form of an aggregate (InsertOnly: batch aggregation) and
// to its retractable form, and compares the results; the seed is printed.
func TestInsertOnlyMatchesRetractable(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	env := newEnv(t, false)
	defer env.close()
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.DateType,
		sqltypes.LongType, sqltypes.TimestampType, sqltypes.TimestampNTZType, sqltypes.FloatType,
		sqltypes.DoubleType, sqltypes.StringType}
	funcs := []struct {
		name     string
		distinct bool
	}{{"min", false}, {"max", false}, {"count", true}, {"sum", true}, {"avg", true}, {"min", true},
		{"first", true}, {"collect_set", true}}
	typedCases := 0
	for iter := 0; iter < 300; iter++ {
		ty := types[r.IntN(len(types))]
		fn := funcs[r.IntN(len(funcs))]
		if (fn.name == "sum" || fn.name == "avg") && !ty.IsNumeric() {
			continue
		}
		f, err := BindAggregate(fn.name, []Expr{col(0, "x", ty)}, fn.distinct, Options{})
		if err != nil {
			t.Fatalf("bind %s(%s): %v", fn.name, ty.SQL(), err)
		}
		ngroups := 1 + r.IntN(5)
		plain, fast := f.NewAccumulator(env.ctx), InsertOnly(f.NewAccumulator(env.ctx))
		plain.Grow(ngroups)
		fast.Grow(ngroups)
		fields := []sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}
		for batch := 0; batch < 1+r.IntN(3); batch++ {
			n := r.IntN(200)
			vals, groups := make([]any, n), make([]uint32, n)
			for i := range vals {
				vals[i], groups[i] = randomAggValue(r, ty), uint32(r.IntN(ngroups))
			}
			b := env.batch(fields, vals)
			// A slice at an offset exercises the raw-buffer reads.
			lo := 0
			if n > 2 {
				lo = r.IntN(n / 2)
			}
			s := b.NewSlice(int64(lo), int64(n))
			b.Release()
			args := []arrow.Array{s.Column(0)}
			for _, acc := range []GroupedAccumulator{plain, fast} {
				if err := acc.Update(groups[lo:], args); err != nil {
					t.Fatalf("seed %d iter %d %s: %v", seed, iter, f, err)
				}
			}
			s.Release()
		}
		ids := make([]uint32, ngroups)
		for i := range ids {
			ids[i] = uint32(i)
		}
		sameAccResults(t, env, f, fast, plain, ids, fmt.Sprintf("seed %d iter %d %s over %s (insert-only vs retractable)", seed, iter, f, ty.SQL()))
		switch fast.(type) {
		case *fixedDistinctAcc, *numMinMaxAcc[int32], *numMinMaxAcc[int64], *numMinMaxAcc[float64]:
			typedCases++
			if err := fast.Retract(nil, nil); err == nil {
				t.Fatalf("%s over %s: insert-only Retract succeeded", f, ty.SQL())
			}
		}
	}
	if typedCases == 0 {
		t.Fatalf("seed %d: no insert-only typed accumulator exercised", seed)
	}
}

// sameAggValues compares results by their rendering (NaN equals NaN, also inside lists; -0.0
// and 0.0 differ).
func sameAggValues(a, b []any) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

// TestSumTypedPathsMatchRowPath feeds random batches (NULLs, extremes, retractions) to sum and
// avg over decimals of precision <= 18 and avg over integers through their typed paths and
// through the row-at-a-time path (sumAcc.addValues), and compares the results; the seed is
// printed.
func TestSumTypedPathsMatchRowPath(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	env := newEnv(t, true)
	defer env.close()
	for iter := 0; iter < 200; iter++ {
		var ty sqltypes.DataType
		switch r.IntN(3) {
		case 0:
			ty = sqltypes.IntegerType
		case 1:
			ty = sqltypes.LongType
		default:
			p := 1 + r.IntN(18)
			ty = sqltypes.DataType{Kind: sqltypes.Decimal, Precision: int32(p), Scale: int32(r.IntN(p + 1))}
		}
		name := []string{"sum", "avg", "try_sum", "try_avg"}[r.IntN(4)]
		if ty.Kind != sqltypes.Decimal && (name == "sum" || name == "try_sum") {
			name = "avg"
		}
		f, err := BindAggregate(name, []Expr{col(0, "x", ty)}, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		ngroups := 1 + r.IntN(4)
		typed, rows := f.NewAccumulator(env.ctx).(*sumAcc), f.NewAccumulator(env.ctx).(*sumAcc)
		typed.Grow(ngroups)
		rows.Grow(ngroups)
		fields := []sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}
		for range 1 + r.IntN(4) {
			n := r.IntN(300)
			vals, groups := make([]any, n), make([]uint32, n)
			for i := range vals {
				groups[i] = uint32(r.IntN(ngroups))
				if r.IntN(8) == 0 {
					continue
				}
				switch ty.Kind {
				case sqltypes.Integer:
					vals[i] = []int32{math.MinInt32, math.MaxInt32, int32(r.IntN(1000) - 500)}[r.IntN(3)]
				case sqltypes.Long:
					vals[i] = []int64{math.MinInt64 / 4, math.MaxInt64 / 4, r.Int64N(1000) - 500}[r.IntN(3)]
				default:
					limit := int64(math.Pow10(int(ty.Precision)))
					u := r.Int64N(limit)
					if r.IntN(4) == 0 {
						u = limit - 1
					}
					if r.IntN(2) == 0 {
						u = -u
					}
					vals[i] = decimal128.FromI64(u)
				}
			}
			b := env.batch(fields, vals)
			sign := int64(1)
			if r.IntN(4) == 0 {
				sign = -1
			}
			if err := typed.add(groups, b.Column(0), sign); err != nil {
				t.Fatal(err)
			}
			if err := rows.addValues(groups, b.Column(0), sign); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		ids := make([]uint32, ngroups)
		for i := range ids {
			ids[i] = uint32(i)
		}
		sameAccResults(t, env, f, typed, rows, ids, fmt.Sprintf("seed %d iter %d %s over %s", seed, iter, f, ty.SQL()))
	}
}

// sameAccResults fails t unless the typed and the reference (row-path, retractable)
// accumulators give the same results (or both an error) for groups ids.
func sameAccResults(t *testing.T, env *testEnv, f AggFunc, typed, rows GroupedAccumulator, ids []uint32, what string) {
	t.Helper()
	want, werr := rows.Result(env.ctx, ids)
	got, gerr := typed.Result(env.ctx, ids)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: typed error %v, row path error %v", what, gerr, werr)
	}
	if werr != nil {
		return
	}
	w, g := valuesOf(want, f.Type()), valuesOf(got, f.Type())
	want.Release()
	got.Release()
	if !sameAggValues(w, g) {
		t.Fatalf("%s: typed %v, row path %v", what, g, w)
	}
}
