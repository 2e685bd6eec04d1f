package expr

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestBindFilteredAggregate: agg(x, …) FILTER (WHERE c) as Spark 4.2 answers it: approx_top_k
// does not count the filtered rows as NULLs, and constant arguments stay constants.
func TestBindFilteredAggregate(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fields := []sqltypes.Field{{Name: "col", Type: sqltypes.IntegerType, Nullable: true}, {Name: "c", Type: sqltypes.BooleanType, Nullable: true}}
	xs := []any{int32(1), int32(2), int32(2), int32(3), nil}
	cond := []any{false, true, true, true, nil} // col > 1
	run := func(name string, args ...Expr) any {
		f, err := BindFilteredAggregate(name, append([]Expr{col(0, "col", sqltypes.IntegerType)}, args...), false,
			col(1, "c", sqltypes.BooleanType), Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		return runAccumulator(t, env, f, fields, xs, cond)
	}
	// select approx_top_k(col, 2) filter (where col > 1) from values (1),(2),(2),(3),(null) as t(col)
	if got := fmt.Sprint(run("approx_top_k", NewLiteral(int32(2), sqltypes.IntegerType))); got != "[[2 2] [3 1]]" {
		t.Errorf("approx_top_k FILTER = %s", got)
	}
	// select hex(hll_sketch_agg(col, 5) filter (where col > 1)) from values (1),(2),(2),(3),(null) as t(col)
	b, _ := run("hll_sketch_agg", NewLiteral(int32(5), sqltypes.IntegerType)).([]byte)
	if got := strings.ToUpper(hex.EncodeToString(b)); got != "0201070503000208862FF90D75816607"+strings.Repeat("00", 24) {
		t.Errorf("hll_sketch_agg(col, 5) FILTER = %s", got)
	}
}
