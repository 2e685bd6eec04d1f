package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestInSetChosen checks that IN takes the hash set above InSetThreshold constant values and
// the comparison list otherwise (at or below the threshold, or a non-constant value).
func TestInSetChosen(t *testing.T) {
	x := col(0, "x", sqltypes.LongType)
	list := func(n int) []Expr {
		out := []Expr{x}
		for i := 0; i < n; i++ {
			out = append(out, lit(int32(i), sqltypes.IntegerType))
		}
		return out
	}
	if _, ok := mustBind(t, "in", Options{ANSI: true}, list(InSetThreshold)...).(*inList); !ok {
		t.Errorf("IN over %d values is not a comparison list", InSetThreshold)
	}
	if _, ok := mustBind(t, "in", Options{ANSI: true}, list(InSetThreshold+1)...).(*inSet); !ok {
		t.Errorf("IN over %d values is not a hash set", InSetThreshold+1)
	}
	withColumn := append(list(InSetThreshold+1), col(1, "y", sqltypes.LongType))
	if _, ok := mustBind(t, "in", Options{ANSI: true}, withColumn...).(*inList); !ok {
		t.Errorf("IN over a column is not a comparison list")
	}
}

// TestInSetMatchesInList compares the hash set with the comparison list (Spark's In) on random
// columns and lists of each hashable type, NULLs, NaN and -0.0 included; the seed is printed.
func TestInSetMatchesInList(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.DoubleType, sqltypes.FloatType, sqltypes.StringType, sqltypes.BinaryType,
		sqltypes.DecimalType(10, 2), sqltypes.DateType, sqltypes.TimestampType, sqltypes.BooleanType}
	for iter := 0; iter < 200; iter++ {
		ty := types[r.IntN(len(types))]
		listType := ty
		if r.IntN(3) == 0 {
			// A narrower or wider list type exercises the coercion of either side.
			listType = map[sqltypes.Kind]sqltypes.DataType{sqltypes.Integer: sqltypes.LongType,
				sqltypes.Long: sqltypes.IntegerType, sqltypes.Double: sqltypes.FloatType,
				sqltypes.Float: sqltypes.DoubleType, sqltypes.Byte: sqltypes.ShortType}[ty.Kind]
			if listType.Kind == sqltypes.Null {
				listType = ty
			}
		}
		nulls := r.IntN(2) == 0
		n := InSetThreshold + 1 + r.IntN(40)
		small := r.IntN(2) == 0
		if small {
			n = 1 + r.IntN(InSetThreshold)
		}
		args := []Expr{col(0, "x", ty)}
		for i := 0; i < n; i++ {
			args = append(args, lit(inValue(r, listType, nulls && i == n/2), listType))
		}
		for _, ansi := range []bool{true, false} {
			env := newEnv(t, ansi)
			opts := Options{ANSI: ansi, TimeZone: "UTC"}
			set, err := Bind("in", args, opts)
			if err != nil {
				t.Fatalf("seed %d iter %d: %v", seed, iter, err)
			}
			var in sqltypes.DataType
			switch x := set.(type) {
			case *inSet:
				in = x.in
			case *inList:
				if !small || x.set == nil {
					t.Fatalf("seed %d iter %d %s: %d values bound to a list without a set", seed, iter, ty, n)
				}
				in = x.in
			default:
				t.Fatalf("seed %d iter %d %s: got %T, want a hash set", seed, iter, ty, set)
			}
			cs, _ := castAll(args, in, opts)
			list := &inList{value: cs[0], list: cs[1:], in: in}
			rows := make([]any, 300)
			noNulls := r.IntN(3) == 0
			for i := range rows {
				if r.IntN(3) == 0 {
					// A value of the list, so that matches are frequent.
					v, _ := constantValue(args[1+r.IntN(n)], time.UTC)
					if v != nil && listType.Equal(ty) {
						rows[i] = v
						continue
					}
				}
				rows[i] = inValue(r, ty, !noNulls && r.IntN(10) == 0)
			}
			full := env.batch([]sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}, rows)
			b := full.NewSlice(3, int64(len(rows)-2))
			full.Release()
			rows = rows[3:]
			var lhs, rhs Expr = set, list
			if r.IntN(2) == 0 {
				// NOT IN: NULL where the list holds a NULL and the value is not in it.
				lhs, rhs = Not(set), Not(list)
			}
			got, gerr := env.eval(lhs, b)
			want, werr := env.eval(rhs, b)
			b.Release()
			if (gerr != nil) != (werr != nil) {
				t.Fatalf("seed %d iter %d %s: set error %v, list error %v", seed, iter, ty, gerr, werr)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("seed %d iter %d %s ansi=%v row %d (x=%v): set %v, list %v", seed, iter, ty, ansi, i, rows[i], got[i], want[i])
				}
			}
			env.close()
		}
	}
}

// inValue is a value of t from a small domain (so that values repeat), or nil.
func inValue(r *rand.Rand, t sqltypes.DataType, null bool) any {
	if null {
		return nil
	}
	k := r.IntN(20) - 10
	switch t.Kind {
	case sqltypes.Byte:
		return int8(k)
	case sqltypes.Short:
		return int16(k)
	case sqltypes.Integer:
		return int32(k)
	case sqltypes.Long:
		return int64(k) * 1e10
	case sqltypes.Double, sqltypes.Float:
		f := float64(k) / 4
		switch r.IntN(8) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Copysign(0, -1)
		}
		if t.Kind == sqltypes.Float {
			return float32(f)
		}
		return f
	case sqltypes.String:
		return fmt.Sprintf("s%d", k)
	case sqltypes.Binary:
		return []byte(fmt.Sprintf("b%d", k))
	case sqltypes.Decimal:
		return decimal128.FromI64(int64(k) * 25)
	case sqltypes.Date:
		return int32(19000 + k)
	case sqltypes.Timestamp:
		return int64(k) * 1e6
	case sqltypes.Boolean:
		return k > 0
	}
	panic(t.String())
}
