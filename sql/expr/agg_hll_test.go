package expr

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// runHLLSplit runs name(x[, extra]) split as the planner splits it: the partial aggregate over
// each part's ids (one group), then the final one over the partials in part order, as Spark's
// final aggregation merges the partial buffers of partitions 0, 1, … .
func runHLLSplit(t *testing.T, env *testEnv, name string, x sqltypes.DataType, extra []Expr, parts ...[]any) []byte {
	t.Helper()
	f, err := BindAggregate(name, append([]Expr{col(0, "x", x)}, extra...), false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	partials, final, ok := SplitAggregate(f, 0)
	if !ok || len(partials) != 1 {
		t.Fatalf("%s does not split", f)
	}
	var bufs []any
	for _, p := range parts {
		r := runAccumulator(t, env, partials[0], []sqltypes.Field{{Name: "x", Type: x, Nullable: true}}, p)
		bufs = append(bufs, r)
	}
	b, _ := runAccumulator(t, env, final, []sqltypes.Field{{Name: "_partial0", Type: sqltypes.BinaryType, Nullable: true}}, bufs).([]byte)
	return b
}

func idRange(lo, hi int64) []any {
	out := make([]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestHLLSketchAggSplit checks hll_sketch_agg's partial and final steps against Spark 4.2 over
// range(lo, hi, 1, n), whose n partitions hold consecutive equal slices of the ids.
func TestHLLSketchAggSplit(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	lg8 := []Expr{NewLiteral(int32(8), sqltypes.IntegerType)}
	for _, c := range []struct {
		spark string
		extra []Expr
		parts [][]any
		want  string // hex, or the SHA-256 of the bytes
	}{
		{"select sha2(hll_sketch_agg(id), 256) from range(0, 30000, 1, 4)", nil,
			[][]any{idRange(0, 7500), idRange(7500, 15000), idRange(15000, 22500), idRange(22500, 30000)},
			"73b0f1b0d648ecd0acd01dad0c6afa426c4b03ef3ce0a3f08142f16703264313"},
		{"select sha2(hll_sketch_agg(id, 8), 256) from range(0, 30000, 1, 4)", lg8,
			[][]any{idRange(0, 7500), idRange(7500, 15000), idRange(15000, 22500), idRange(22500, 30000)},
			"522b9fd3d9e685337a994ef3e3f783f8dcf14f23e28716282abacfaaeaa79c80"},
		// Three Sets merged into one that becomes HLL.
		{"select hex(hll_sketch_agg(id, 8)) from range(0, 30, 1, 3)", lg8,
			[][]any{idRange(0, 10), idRange(10, 20), idRange(20, 30)},
			"0A0107080000000A9E9F233828563E4000000000C0B46D400000000000000000E30000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000010000000000000000030101000000000000000000000000000000010000000000000000000000000000000000000300000000000000000000000000000000000000000100000000000001000000000002010000000001000000000300000000000000000000000000000000000000000000000600000000000000000000000000000004000400000000000000030000000000000000010001010001000100000100000700000001000000000000000001000000000000000000000000000000000000000100000000000001000000000002000000"},
		// Three Lists merged into a Set.
		{"select hex(hll_sketch_agg(id, 8)) from range(0, 12, 1, 3)", lg8,
			[][]any{idRange(0, 4), idRange(4, 8), idRange(8, 12)},
			"03010708050000090C0000000000000081BC5D0600000000000000000000000000000000862FF90D00000000000000000000000000000000CBD7C20400000000B05B46120000000000000000C1E9170500000000D21673070000000034A2610E75816607F671F206000000000000000000000000FC2D420A7B65E6082BF2FB06000000000000000000000000"},
	} {
		b := runHLLSplit(t, env, "hll_sketch_agg", sqltypes.LongType, c.extra, c.parts...)
		if len(c.want) == 64 {
			if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != c.want {
				t.Errorf("%s:\n got sha %x\nwant %s", c.spark, sum, c.want)
			}
			continue
		}
		want, _ := hex.DecodeString(c.want)
		if d, ok := hllSameBytes(b, want); !ok {
			t.Errorf("%s:\n got %X\nwant %s (HIP relative difference %.3g)", c.spark, b, c.want, d)
		}
	}
}

// TestHLLUnionAggSplit: a partition without sketches gives a NULL partial, which the final
// union skips (Spark's empty buffer), so the union keeps the lgConfigK of the first sketch.
func TestHLLUnionAggSplit(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	// select hex(hll_union_agg(s)) from values (X'…'): the sketch of 1, 2, 3 (lgConfigK 12).
	s123 := "0201070C030003082BF2FB06862FF90D758166070000000000000000000000000000000000000000"
	in, _ := hex.DecodeString(s123)
	b := runHLLSplit(t, env, "hll_union_agg", sqltypes.BinaryType, nil, []any{nil}, []any{in}, []any{})
	if got := strings.ToUpper(hex.EncodeToString(b)); got != s123 {
		t.Errorf("union of one sketch = %s", got)
	}
	// No sketch at all: the empty sketch of lgConfigK 12, as Spark's hll_union_agg(NULL).
	b = runHLLSplit(t, env, "hll_union_agg", sqltypes.BinaryType, nil, []any{nil})
	if got := strings.ToUpper(hex.EncodeToString(b)); got != "0201070C03040008"+strings.Repeat("00", 32) {
		t.Errorf("union of none = %s", got)
	}
}

// TestHLLSketchAggErrors: lgConfigK errors come when the aggregate runs, as Spark's
// (SparkRuntimeException), even over no rows.
func TestHLLSketchAggErrors(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	x := col(0, "x", sqltypes.LongType)
	for _, c := range []struct {
		k     Expr
		class string
	}{
		{NewLiteral(int32(3), sqltypes.IntegerType), "HLL_INVALID_LG_K"},
		{NewLiteral(int32(22), sqltypes.IntegerType), "HLL_INVALID_LG_K"},
		{NewLiteral(nil, sqltypes.IntegerType), "HLL_INVALID_LG_K"},
		{col(1, "k", sqltypes.IntegerType), "HLL_K_MUST_BE_CONSTANT"},
	} {
		f, err := BindAggregate("hll_sketch_agg", []Expr{x, c.k}, false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		acc := f.NewAccumulator(env.ctx)
		acc.Grow(1)
		_, err = acc.Result(env.ctx, []uint32{0})
		if e, ok := sparkerr.As(err); !ok || e.Class != c.class || e.JavaClass != sparkerr.SparkRuntimeException {
			t.Errorf("hll_sketch_agg(x, %s): %v, want %s", c.k, err, c.class)
		}
	}
	for _, c := range []struct {
		args []Expr
		want string
	}{
		{[]Expr{col(0, "x", sqltypes.DoubleType)}, `The first parameter requires the ("INT" or "BIGINT" or "STRING" or "BINARY") type, however "x" has the type "DOUBLE".`},
		{[]Expr{x, NewLiteral(int64(5), sqltypes.LongType)}, `The second parameter requires the "INT" type, however "5" has the type "BIGINT".`},
	} {
		_, err := BindAggregate("hll_sketch_agg", c.args, false, Options{ANSI: true})
		if e, ok := sparkerr.As(err); !ok || e.Class != "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE" || !strings.Contains(e.Message, c.want) {
			t.Errorf("hll_sketch_agg%v: %v", c.args, err)
		}
	}
}
