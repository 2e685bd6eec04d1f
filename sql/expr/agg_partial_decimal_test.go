package expr

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Decimal sum and avg split into partials over random partitions and a final step give what the
// unsplit aggregate gives over all the rows: values, NULLs (empty groups, legacy overflow) and
// ANSI errors. Trials whose partial sums can overflow (precision > 28) keep every value of the
// same sign, so that a partial's overflow means the total's (with mixed signs Spark's partial
// overflow is NULL where an exact total might fit; that case is Spark's, not tested here).
func TestSplitDecimalSumMatchesUnsplit(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	outcomes := map[string]int{}
	for trial := 0; trial < 300; trial++ {
		outcomes[splitDecimalTrial(t, rng, trial)]++
	}
	t.Logf("outcomes: %v", outcomes)
}

// splitDecimalTrial runs one random trial and names its outcome.
func splitDecimalTrial(t *testing.T, rng *rand.Rand, trial int) string {
	precisions := []int32{1, 5, 15, 28, 30, 36, 38}
	p := precisions[rng.Intn(len(precisions))]
	s := int32(rng.Intn(int(min(p, 8)) + 1))
	ansi := rng.Intn(2) == 0
	name := []string{"sum", "avg", "mean"}[rng.Intn(3)]
	in := sqltypes.DecimalType(p, s)
	groupsN, partsN := 1+rng.Intn(5), 1+rng.Intn(4)
	rowsN := rng.Intn(400)
	mixedSigns := p+10 <= 38
	neg := rng.Intn(2) == 0
	limit := pow10(p) // |v| < 10^p
	vals := make([]any, rowsN)
	groups := make([]uint32, rowsN)
	parts := make([]int, rowsN)
	for i := range vals {
		groups[i], parts[i] = uint32(rng.Intn(groupsN)), rng.Intn(partsN)
		if rng.Intn(6) == 0 {
			continue
		}
		v := new(big.Int).Rand(rng, limit)
		if rng.Intn(3) == 0 {
			v.Rand(rng, big.NewInt(1000))
			v.Mod(v, limit)
		}
		if mixedSigns && rng.Intn(2) == 0 || !mixedSigns && neg {
			v.Neg(v)
		}
		vals[i] = decimal128.FromBigInt(v)
	}
	desc := fmt.Sprintf("trial %d: %s(decimal(%d,%d)) ansi=%v, %d rows, %d groups, %d partitions", trial, name, p, s, ansi, rowsN, groupsN, partsN)

	env := newEnv(t, ansi)
	defer env.close()
	opts := Options{ANSI: ansi}
	fields := []sqltypes.Field{{Name: "x", Type: in, Nullable: true}}
	f, err := BindAggregate(name, []Expr{col(0, "x", in)}, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	allGroups := make([]uint32, groupsN)
	for g := range allGroups {
		allGroups[g] = uint32(g)
	}
	want, wantErr := aggregateOnce(env, f, fields, [][]any{vals}, groups, allGroups)

	partials, final, ok := SplitAggregate(f, 0)
	if !ok {
		t.Fatalf("%s: does not split", desc)
	}
	if !final.Type().Equal(f.Type()) {
		t.Fatalf("%s: final type %s, want %s", desc, final.Type().SQL(), f.Type().SQL())
	}
	// Each partition's partial aggregates, one row per group, become the final's input rows.
	partialCols := make([][]any, len(partials))
	var finalGroups []uint32
	for part := 0; part < partsN; part++ {
		var pv []any
		var pg []uint32
		for i := range vals {
			if parts[i] == part {
				pv, pg = append(pv, vals[i]), append(pg, groups[i])
			}
		}
		for k, pf := range partials {
			out, err := aggregateOnce(env, pf, fields, [][]any{pv}, pg, allGroups)
			if err != nil {
				t.Fatalf("%s: partial %s: %v", desc, pf, err)
			}
			partialCols[k] = append(partialCols[k], out...)
		}
		finalGroups = append(finalGroups, allGroups...)
	}
	var partialFields []sqltypes.Field
	for k, pf := range partials {
		partialFields = append(partialFields, sqltypes.Field{Name: fmt.Sprintf("_partial%d", k), Type: pf.Type(), Nullable: true})
	}
	got, gotErr := aggregateOnce(env, final, partialFields, partialCols, finalGroups, allGroups)

	if wantErr != nil || gotErr != nil {
		var we, ge *sparkerr.Error
		if !errors.As(wantErr, &we) || !errors.As(gotErr, &ge) {
			t.Fatalf("%s: unsplit error %v, split error %v", desc, wantErr, gotErr)
		}
		// A partial's overflow leaves the total unknown: Spark's "Overflow in sum of decimals".
		if ge.Class == "ARITHMETIC_OVERFLOW" && we.Class == "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION" {
			return "partial overflow error"
		}
		if ge.Error() != we.Error() {
			t.Fatalf("%s: unsplit error %v, split error %v", desc, wantErr, gotErr)
		}
		return "same error"
	}
	outcome := "values"
	for g := range want {
		if fmt.Sprint(want[g]) != fmt.Sprint(got[g]) {
			t.Fatalf("%s: group %d: unsplit %v, split %v", desc, g, want[g], got[g])
		}
		if want[g] == nil && outcome == "values" {
			outcome = "values with NULLs"
		}
	}
	return outcome
}

// aggregateOnce runs f over one batch of cols with the given row groups and returns its
// results for resultGroups as Go values.
func aggregateOnce(env *testEnv, f AggFunc, fields []sqltypes.Field, cols [][]any, groups, resultGroups []uint32) ([]any, error) {
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(len(resultGroups))
	if len(groups) > 0 {
		b := env.batch(fields, cols...)
		arrs, err := evalAll(env.ctx, f.Args(), b)
		b.Release()
		if err != nil {
			return nil, err
		}
		err = acc.Update(groups, arrs)
		releaseAll(arrs)
		if err != nil {
			return nil, err
		}
	}
	res, err := acc.Result(env.ctx, resultGroups)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	return goValues(res, f.Type()), nil
}

func goValues(a arrow.Array, t sqltypes.DataType) []any {
	out := make([]any, a.Len())
	for i := range out {
		out[i] = ValueAt(a, i, t)
	}
	return out
}
