package expr

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var (
	strT   = sqltypes.StringType
	binT   = sqltypes.BinaryType
	byteT  = sqltypes.ByteType
	shortT = sqltypes.ShortType
	intT32 = sqltypes.IntegerType
	longT  = sqltypes.LongType
)

func cmsArgs(x sqltypes.DataType, eps, confidence float64, seed int64) []Expr {
	return []Expr{col(0, "col", x), NewLiteral(eps, sqltypes.DoubleType), NewLiteral(confidence, sqltypes.DoubleType),
		NewLiteral(seed, sqltypes.LongType)}
}

// TestCountMinSketchMatchesSpark: the sketches Apache Spark 4.2 gives for the queries shown.
func TestCountMinSketchMatchesSpark(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	for _, c := range []struct {
		spark           string
		x               sqltypes.DataType
		eps, confidence float64
		seed            int64
		xs              []any
		want            string
	}{
		{"SELECT hex(count_min_sketch(col, 0.1d, 0.9d, 42)) FROM VALUES ('a'), ('b'), ('a'), (null), ('') AS tab(col)",
			strT, 0.1, 0.9, 42, []any{"a", "b", "a", nil, ""},
			"0000000100000000000000040000000400000014000000005D20CE9A0000000006FF457B000000005773DDF0000000000622E01400000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 0.2d, 0.95d, 7)) FROM VALUES (X'01'), (X'0203'), (X'') AS tab(col)",
			binT, 0.2, 0.95, 7, []any{[]byte{1}, []byte{2, 3}, []byte{}},
			"000000010000000000000003000000050000000A000000005D878BCC0000000051BB9A0C000000005FE4CA2D00000000013B859C000000002C95698400000000000000020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000002000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 0.3d, 0.8d, -5)) FROM VALUES (cast(1 as tinyint)), (cast(-7 as tinyint)) AS tab(col)",
			byteT, 0.3, 0.8, -5, []any{int8(1), int8(-7)},
			"00000001000000000000000200000003000000070000000022787433000000002E84FA21000000002AC38A21000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 0.3d, 0.8d, 5)) FROM VALUES (cast(1 as smallint)), (cast(-300 as smallint)) AS tab(col)",
			shortT, 0.3, 0.8, 5, []any{int16(1), int16(-300)},
			"0000000100000000000000020000000300000007000000005D81ACDF00000000169AE5AC000000000B4C0D22000000000000000000000000000000000000000000000001000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 0.3d, 0.8d, 5)) FROM VALUES (9223372036854775807L), (-9223372036854775808L), (123456789012L) AS tab(col)",
			longT, 0.3, 0.8, 5, []any{int64(math.MaxInt64), int64(math.MinInt64), int64(123456789012)},
			"0000000100000000000000030000000300000007000000005D81ACDF00000000169AE5AC000000000B4C0D22000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000001000000000000000100000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 0.5d, 0.5d, 1)) FROM VALUES (1) AS tab(col) where false",
			intT32, 0.5, 0.5, 1, []any{},
			"0000000100000000000000000000000100000004000000005D8D6AB90000000000000000000000000000000000000000000000000000000000000000"},
		{"SELECT hex(count_min_sketch(col, 1.5d, 0.5d, 1)) FROM VALUES (1) AS tab(col)",
			intT32, 1.5, 0.5, 1, []any{int32(1)},
			"0000000100000000000000010000000100000002000000005D8D6AB900000000000000000000000000000001"},
	} {
		f, err := BindAggregate("count_min_sketch", cmsArgs(c.x, c.eps, c.confidence, c.seed), false, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := runAccumulator(t, env, f, []sqltypes.Field{{Name: "col", Type: c.x, Nullable: true}}, c.xs).([]byte)
		if got := strings.ToUpper(hex.EncodeToString(b)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.spark, got, c.want)
		}
	}
}

// TestCountMinSketchSplit: partial sketches per partition, added up by the final step, as
// Spark over range(0, 5000, 1, 4).
func TestCountMinSketchSplit(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	f, err := BindAggregate("count_min_sketch", cmsArgs(longT, 0.01, 0.999, 11), false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	partials, final, ok := SplitAggregate(f, 0)
	if !ok {
		t.Fatal("count_min_sketch does not split")
	}
	var bufs []any
	for p := int64(0); p < 4; p++ {
		bufs = append(bufs, runAccumulator(t, env, partials[0], []sqltypes.Field{{Name: "col", Type: longT}}, idRange(1250*p, 1250*(p+1))))
	}
	b, _ := runAccumulator(t, env, final, []sqltypes.Field{{Name: "_partial0", Type: binT, Nullable: true}}, bufs).([]byte)
	sum := sha256.Sum256(b)
	// SELECT sha2(count_min_sketch(id, 0.01d, 0.999d, 11), 256) FROM range(0, 5000, 1, 4)
	if got := hex.EncodeToString(sum[:]); got != "a98a039fb7661fd813df339c7f1527c6f11f90ca0c03d7ac776c7aa5c88d037e" {
		t.Errorf("split sketch sha256 %s", got)
	}
}

// TestCountMinSketchErrors: Spark 4.2's analysis errors for the same calls.
func TestCountMinSketchErrors(t *testing.T) {
	x := col(0, "col", intT32)
	d := func(v float64) Expr { return NewLiteral(v, sqltypes.DoubleType) }
	one := NewLiteral(int32(1), intT32)
	for _, c := range []struct {
		args  []Expr
		class string
		msg   string
	}{
		{[]Expr{x, d(0), d(0.5), one}, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
			"The eps must be between (0.0, 1.7976931348623157E308] (current value = 0.0D)."},
		{[]Expr{x, d(0.5), d(1), one}, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
			"The confidence must be between (0.0, 1.0] (current value = 1.0D)."},
		{[]Expr{x, d(0.5), NewLiteral(nil, sqltypes.NullType), one}, "DATATYPE_MISMATCH.UNEXPECTED_NULL", "The confidence must not be null."},
		{[]Expr{x, col(1, "e", sqltypes.DoubleType), d(0.5), one}, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
			"the input `eps` should be a foldable \"DOUBLE\" expression; however, got \"e\"."},
		{[]Expr{x, NewLiteral(float32(0.5), sqltypes.FloatType), d(0.5), one}, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
			"The second parameter requires the \"DOUBLE\" type"},
		{[]Expr{col(0, "col", sqltypes.DoubleType), d(0.5), d(0.5), one}, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
			"The first parameter requires the (\"INTEGRAL\" or \"STRING\" or \"BINARY\") type"},
		{[]Expr{x, d(0.5), d(0.5), NewLiteral(int16(1), sqltypes.ShortType)}, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
			"requires the (\"INT\" or \"BIGINT\") type"},
		{[]Expr{x, d(0.5), d(0.5)}, "REQUIRED_PARAMETER_NOT_FOUND", "the parameter named `seed` is required"},
		{[]Expr{x, d(0.5), d(0.5), one, one}, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "requires 4 parameters but the actual number is 5"},
	} {
		_, err := BindAggregate("count_min_sketch", c.args, false, Options{ANSI: true})
		if e, ok := sparkerr.As(err); !ok || e.Class != c.class || !strings.Contains(e.Message, c.msg) {
			t.Errorf("count_min_sketch%v: %v, want %s %q", c.args, err, c.class, c.msg)
		}
	}
}

func TestJavaRandomNextInt(t *testing.T) {
	// new java.util.Random(1).nextInt(Integer.MAX_VALUE): the hash multiplier of Spark's
	// count_min_sketch(…, 1) (0x5D8D6AB9 in its sketch's bytes).
	if v := newJavaRandom(1).nextInt(math.MaxInt32); v != 0x5D8D6AB9 {
		t.Errorf("nextInt = %#x", v)
	}
}
