package expr

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// tri is a three-valued boolean: false, true or NULL.
type tri int8

const (
	triFalse tri = iota
	triTrue
	triNull
)

func triOf(v any) tri {
	switch v {
	case nil:
		return triNull
	case true:
		return triTrue
	}
	return triFalse
}

// logicCase is a random boolean expression with its row-by-row definition: want returns a
// row's value, or fails (an ANSI division by zero on a row whose value is needed).
type logicCase struct {
	e    Expr
	want func(row int) (tri, bool)
}

// TestLogicKernelsMatchRowSemantics checks the bitmap AND / OR / NOT / IS [NOT] NULL / isnan
// kernels over random trees of sliced boolean columns, literals and an ANSI-raising leaf
// (10 / y > 1) against three-valued logic evaluated lazily row by row, left to right (so a
// raising leaf raises only on the rows whose value is needed); the seed is printed.
func TestLogicKernelsMatchRowSemantics(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 21))
	boolT := sqltypes.BooleanType
	for iter := 0; iter < 1500; iter++ {
		ansi := r.IntN(2) == 0
		opts := Options{ANSI: ansi}
		env := newEnv(t, ansi)
		n := 1 + r.IntN(70)
		cols := make([][]any, 5)
		for k := range cols {
			cols[k] = make([]any, n+3)
		}
		// Biased columns, so that batches wholly decided by one side occur.
		bias := []int{r.IntN(4), r.IntN(4), r.IntN(4)}
		for i := 0; i < n+3; i++ {
			for k := 0; k < 3; k++ {
				switch x := r.IntN(8); {
				case x == 0 && bias[k] != 3:
					cols[k][i] = nil
				case bias[k] == 1:
					cols[k][i] = false
				case bias[k] == 2:
					cols[k][i] = true
				default:
					cols[k][i] = r.IntN(2) == 0
				}
			}
			switch r.IntN(6) {
			case 0:
				cols[3][i] = math.NaN()
			case 1:
			default:
				cols[3][i] = r.Float64()
			}
			switch r.IntN(10) {
			case 0:
			case 1:
				cols[4][i] = int64(0)
			default:
				cols[4][i] = r.Int64N(30) - 10
			}
		}
		fields := []sqltypes.Field{{Name: "b0", Type: boolT, Nullable: true}, {Name: "b1", Type: boolT, Nullable: true},
			{Name: "b2", Type: boolT, Nullable: true}, {Name: "d", Type: sqltypes.DoubleType, Nullable: true},
			{Name: "y", Type: sqltypes.LongType, Nullable: true}}
		full := env.batch(fields, cols...)
		b := full.NewSlice(2, int64(n+2))
		full.Release()
		at := func(k, row int) any { return cols[k][row+2] }

		var gen func(depth int) logicCase
		gen = func(depth int) logicCase {
			if depth == 0 || r.IntN(4) == 0 {
				switch r.IntN(7) {
				case 0:
					v := []any{true, false, nil}[r.IntN(3)]
					return logicCase{NewLiteral(v, boolT), func(int) (tri, bool) { return triOf(v), true }}
				case 1:
					k := r.IntN(3)
					kind := []string{"null", "notnull"}[r.IntN(2)]
					return logicCase{&nullTest{kind: kind, child: col(k, "b", boolT)}, func(row int) (tri, bool) {
						if (at(k, row) == nil) == (kind == "null") {
							return triTrue, true
						}
						return triFalse, true
					}}
				case 2:
					return logicCase{&nullTest{kind: "nan", child: col(3, "d", sqltypes.DoubleType)}, func(row int) (tri, bool) {
						if f, ok := at(3, row).(float64); ok && math.IsNaN(f) {
							return triTrue, true
						}
						return triFalse, true
					}}
				case 3:
					div := mustBind(t, "/", opts, NewLiteral(int64(10), sqltypes.LongType), col(4, "y", sqltypes.LongType))
					e := mustBind(t, ">", opts, div, NewLiteral(1.0, sqltypes.DoubleType))
					return logicCase{e, func(row int) (tri, bool) {
						y, ok := at(4, row).(int64)
						switch {
						case !ok:
							return triNull, true
						case y == 0 && ansi:
							return 0, false
						case y == 0:
							return triNull, true
						case 10/float64(y) > 1:
							return triTrue, true
						}
						return triFalse, true
					}}
				}
				k := r.IntN(3)
				return logicCase{col(k, "b", boolT), func(row int) (tri, bool) { return triOf(at(k, row)), true }}
			}
			switch r.IntN(5) {
			case 0:
				c := gen(depth - 1)
				return logicCase{&notExpr{child: c.e}, func(row int) (tri, bool) {
					v, ok := c.want(row)
					if v != triNull {
						v = 1 - v
					}
					return v, ok
				}}
			case 1:
				c := gen(depth - 1)
				kind := []string{"null", "notnull"}[r.IntN(2)]
				return logicCase{&nullTest{kind: kind, child: c.e}, func(row int) (tri, bool) {
					v, ok := c.want(row)
					if (v == triNull) == (kind == "null") {
						return triTrue, ok
					}
					return triFalse, ok
				}}
			}
			and := r.IntN(2) == 0
			lc, rc := gen(depth-1), gen(depth-1)
			return logicCase{&boolLogic{and: and, left: lc.e, right: rc.e}, func(row int) (tri, bool) {
				lv, ok := lc.want(row)
				if !ok {
					return 0, false
				}
				if (and && lv == triFalse) || (!and && lv == triTrue) {
					return lv, true
				}
				rv, ok := rc.want(row)
				if !ok {
					return 0, false
				}
				switch {
				case and && rv == triFalse, !and && rv == triTrue:
					return rv, true
				case lv == triNull || rv == triNull:
					return triNull, true
				}
				return lv, true
			}}
		}
		c := gen(1 + r.IntN(4))
		got, err := env.eval(c.e, b)
		wantErr := false
		for i := 0; i < n; i++ {
			if _, ok := c.want(i); !ok {
				wantErr = true
			}
		}
		if (err != nil) != wantErr {
			t.Fatalf("seed %d iter %d %s ansi=%v: error %v, want an error: %v", seed, iter, c.e, ansi, err, wantErr)
		}
		for i := 0; err == nil && i < n; i++ {
			w, _ := c.want(i)
			if triOf(got[i]) != w {
				t.Fatalf("seed %d iter %d %s ansi=%v row %d (b=%v %v %v d=%v y=%v): got %v, want %v", seed, iter, c.e, ansi, i,
					at(0, i), at(1, i), at(2, i), at(3, i), at(4, i), got[i], w)
			}
		}
		b.Release()
		env.close()
	}
}

// TestConstantFunctionOncePerBatch: a function over constants (date '1994-01-01' + interval
// '1' year, make_date) has the row-wise value on every row of a batch, raises its ANSI error
// over a non-empty batch, and raises nothing over an empty one.
func TestConstantFunctionOncePerBatch(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	opts := Options{ANSI: true}
	b := env.emptyBatch(5)
	defer b.Release()
	intLit := func(v int32) Expr { return NewLiteral(v, sqltypes.IntegerType) }
	e := mustBind(t, "date_add", opts, NewLiteral(int32(8766), sqltypes.DateType), intLit(365))
	got, err := env.eval(e, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != int32(9131) {
			t.Fatalf("%s row %d: got %v, want 9131", e, i, v)
		}
	}
	bad := mustBind(t, "make_date", opts, intLit(1994), intLit(13), intLit(1))
	if !batchConstant(bad) {
		t.Fatalf("%s is not batch-constant", bad)
	}
	if _, err := env.eval(bad, b); err == nil {
		t.Fatalf("%s over 5 rows: want an ANSI error", bad)
	}
	empty := env.emptyBatch(0)
	defer empty.Release()
	if _, err := env.eval(bad, empty); err != nil {
		t.Fatalf("%s over no rows: %v", bad, err)
	}
}
