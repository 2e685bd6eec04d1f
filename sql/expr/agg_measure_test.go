package expr

import (
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestMeasureIsUnevaluable: Spark 4.2 answers measure(x)'s schema (x's type) and fails running
// it outside a metric view with INTERNAL_ERROR.
func TestMeasureIsUnevaluable(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	f, err := BindAggregate("measure", []Expr{col(0, "x", sqltypes.IntegerType)}, false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.String() != "measure(x)" || !f.Type().Equal(sqltypes.IntegerType) {
		t.Fatalf("measure(x) = %s: %s", f, f.Type())
	}
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(1)
	if _, err := acc.Result(env.ctx, []uint32{0}); errClass(err) != "INTERNAL_ERROR" {
		t.Errorf("measure(x) over no rows: %v", err)
	}
	b := env.batch([]sqltypes.Field{{Name: "x", Type: sqltypes.IntegerType}}, []any{int32(1)})
	defer b.Release()
	if err := acc.Update([]uint32{0}, b.Columns()); errClass(err) != "INTERNAL_ERROR" {
		t.Errorf("measure(x) over a row: %v", err)
	}
}
