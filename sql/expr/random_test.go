package expr

import (
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// rowWise evaluates e's top-level operator through the generic row-wise path, for comparison
// with the vectorized kernels.
func rowWise(t *testing.T, env *testEnv, e Expr, b arrow.RecordBatch) ([]any, error) {
	t.Helper()
	switch x := e.(type) {
	case *arith:
		cols, err := evalAll(env.ctx, x.Children(), b)
		if err != nil {
			return nil, err
		}
		defer releaseAll(cols)
		a, err := x.evalRows(env.ctx, cols[0], cols[1])
		if err != nil {
			return nil, err
		}
		defer a.Release()
		return valuesOf(a, x.Type()), nil
	case *comparison:
		cols, err := evalAll(env.ctx, x.Children(), b)
		if err != nil {
			return nil, err
		}
		defer releaseAll(cols)
		a := x.evalRows(env.ctx, cols[0], cols[1])
		defer a.Release()
		return valuesOf(a, x.Type()), nil
	}
	t.Fatalf("no row-wise path for %T", e)
	return nil, nil
}

func randomValue(r *rand.Rand, t sqltypes.DataType) any {
	if r.IntN(6) == 0 {
		return nil
	}
	switch t.Kind {
	case sqltypes.Integer:
		switch r.IntN(8) {
		case 0:
			return int32(math.MaxInt32 - r.Int32N(3))
		case 1:
			return int32(math.MinInt32 + r.Int32N(3))
		case 2:
			return int32(0)
		}
		return r.Int32N(2000) - 1000
	case sqltypes.Long:
		switch r.IntN(8) {
		case 0:
			return int64(math.MaxInt64 - r.Int64N(3))
		case 1:
			return int64(math.MinInt64 + r.Int64N(3))
		case 2:
			return int64(0)
		}
		return r.Int64N(1<<40) - 1<<39
	default:
		switch r.IntN(10) {
		case 0:
			return math.NaN()
		case 1:
			return 0.0
		case 2:
			return math.Inf(1 - 2*r.IntN(2))
		}
		return (r.Float64() - 0.5) * 1000
	}
}

func sameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok {
			return fa == fb || (math.IsNaN(fa) && math.IsNaN(fb))
		}
	}
	return a == b
}

// TestFastPathsMatchRowWise compares the vectorized arithmetic and comparison kernels with the
// row-wise fallback on random data (ANSI and legacy); the seed is printed for reproduction.
func TestFastPathsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	types := []sqltypes.DataType{sqltypes.IntegerType, sqltypes.LongType, sqltypes.DoubleType}
	ops := []string{"+", "-", "*", "/", "%", "==", "<", "<=", ">", ">="}
	for iter := 0; iter < 200; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		ty := types[r.IntN(len(types))]
		n := 1 + r.IntN(64)
		xs, ys := make([]any, n), make([]any, n)
		for i := range xs {
			xs[i], ys[i] = randomValue(r, ty), randomValue(r, ty)
		}
		fields := []sqltypes.Field{{Name: "x", Type: ty, Nullable: true}, {Name: "y", Type: ty, Nullable: true}}
		b := env.batch(fields, xs, ys)
		op := ops[r.IntN(len(ops))]
		e := mustBind(t, op, Options{ANSI: ansi}, col(0, "x", ty), col(1, "y", ty))
		fast, ferr := env.eval(e, b)
		slow, serr := rowWise(t, env, e, b)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("seed %d iter %d %s %s ansi=%v: fast err %v, row-wise err %v", seed, iter, e, ty, ansi, ferr, serr)
		}
		if ferr == nil {
			for i := range fast {
				if !sameValue(fast[i], slow[i]) {
					t.Fatalf("seed %d iter %d %s %s ansi=%v row %d (x=%v y=%v): fast %v, row-wise %v",
						seed, iter, e, ty, ansi, i, xs[i], ys[i], fast[i], slow[i])
				}
			}
		}
		b.Release()
		env.close()
	}
}

// TestHashAndRowsEqual checks that equal rows hash equally across arrays and NULL = NULL.
func TestHashAndRowsEqual(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fields := []sqltypes.Field{
		{Name: "a", Type: sqltypes.LongType, Nullable: true},
		{Name: "b", Type: sqltypes.StringType, Nullable: true},
		{Name: "c", Type: sqltypes.DoubleType, Nullable: true},
		{Name: "d", Type: sqltypes.DecimalType(10, 2), Nullable: true},
	}
	d := NewLiteral(int64(150), sqltypes.DecimalType(10, 2)).(*Literal).Value
	b1 := env.batch(fields, []any{int64(1), nil, int64(1)}, []any{"x", "y", "x"}, []any{0.0, math.NaN(), 0.0}, []any{d, nil, d})
	b2 := env.batch(fields, []any{nil, int64(1)}, []any{"y", "x"}, []any{math.NaN(), math.Copysign(0, -1)}, []any{nil, d})
	defer b1.Release()
	defer b2.Release()
	h1, h2 := make([]uint64, 3), make([]uint64, 2)
	HashColumns(b1.Columns(), 7, h1)
	HashColumns(b2.Columns(), 7, h2)
	if h1[0] != h1[2] || h1[0] != h2[1] || h1[1] != h2[0] || h1[0] == h1[1] {
		t.Fatalf("hashes %v %v", h1, h2)
	}
	if !RowsEqual(b1.Columns(), 0, b2.Columns(), 1) || !RowsEqual(b1.Columns(), 1, b2.Columns(), 0) || RowsEqual(b1.Columns(), 0, b1.Columns(), 1) {
		t.Fatal("RowsEqual mismatch")
	}
}

// TestValueRoundTrip builds arrays of nested types from Go values and reads them back.
func TestValueRoundTrip(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	st := sqltypes.StructType(sqltypes.Field{Name: "a", Type: sqltypes.IntegerType, Nullable: true},
		sqltypes.Field{Name: "b", Type: sqltypes.ArrayType(sqltypes.StringType, true), Nullable: true})
	mt := sqltypes.MapType(sqltypes.StringType, sqltypes.LongType, true)
	cases := []struct {
		t    sqltypes.DataType
		vals []any
	}{
		{st, []any{[]any{int32(1), []any{"x", nil}}, nil, []any{nil, []any{}}}},
		{mt, []any{&sqltypes.MapValue{Keys: []any{"k"}, Values: []any{int64(2)}}, nil}},
		{sqltypes.DateType, []any{int32(19000), nil}},
		{sqltypes.TimestampType, []any{int64(1), nil}},
		{sqltypes.BinaryType, []any{[]byte("ab"), nil}},
		{sqltypes.DayTimeIntervalType(0, 3), []any{int64(5), nil}},
	}
	for _, c := range cases {
		a := BuildArray(env.mem, c.t, "UTC", c.vals)
		got := valuesOf(a, c.t)
		a.Release()
		for i := range got {
			if keyString(got[i], c.t) != keyString(c.vals[i], c.t) {
				t.Errorf("%s row %d: got %v want %v", c.t, i, got[i], c.vals[i])
			}
		}
	}
}

// TestMinMaxKernelMatchesGeneric runs random updates and retractions through the typed min/max
// kernel and the generic multiset accumulator and compares results; the seed is printed.
func TestMinMaxKernelMatchesGeneric(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for iter := 0; iter < 100; iter++ {
		env := newEnv(t, true)
		ty := []sqltypes.DataType{sqltypes.IntegerType, sqltypes.LongType, sqltypes.DoubleType}[r.IntN(3)]
		isMax := r.IntN(2) == 0
		fast, slow := newMinMaxAcc(ty, isMax), newValuesAcc(valuesMinMax, ty, isMax, false)
		fast.Grow(4)
		slow.Grow(4)
		var live [][2]any // (group, value) rows added and not yet retracted
		for step := 0; step < 6; step++ {
			n := 1 + r.IntN(20)
			vals := make([]any, n)
			groups := make([]uint32, n)
			retract := step > 0 && r.IntN(3) == 0 && len(live) >= n
			for i := range vals {
				if retract {
					j := r.IntN(len(live))
					groups[i], vals[i] = live[j][0].(uint32), live[j][1]
					live = append(live[:j], live[j+1:]...)
				} else {
					groups[i], vals[i] = uint32(r.IntN(4)), randomValue(r, ty)
					live = append(live, [2]any{groups[i], vals[i]})
				}
			}
			arr := BuildArray(env.mem, ty, "UTC", vals)
			for _, acc := range []GroupedAccumulator{fast, slow} {
				var err error
				if retract {
					err = acc.Retract(groups, []arrow.Array{arr})
				} else {
					err = acc.Update(groups, []arrow.Array{arr})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			arr.Release()
			ids := []uint32{0, 1, 2, 3}
			fa, _ := fast.Result(env.ctx, ids)
			sa, _ := slow.Result(env.ctx, ids)
			fv, sv := valuesOf(fa, ty), valuesOf(sa, ty)
			fa.Release()
			sa.Release()
			for g := range fv {
				if !sameValue(fv[g], sv[g]) {
					t.Fatalf("seed %d iter %d step %d %s max=%v group %d: kernel %v, generic %v", seed, iter, step, ty, isMax, g, fv[g], sv[g])
				}
			}
		}
		env.close()
	}
}

// TestDecimalKernelMatchesExact compares the native decimal kernels (+, -, *, integer→decimal
// cast) with the exact big.Int row path on random values; the seed is printed.
func TestDecimalKernelMatchesExact(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	for iter := 0; iter < 200; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		p1, p2 := 1+r.Int32N(20), 1+r.Int32N(20)
		s1, s2 := r.Int32N(p1+1), r.Int32N(p2+1)
		t1, t2 := sqltypes.DecimalType(p1, s1), sqltypes.DecimalType(p2, s2)
		n := 1 + r.IntN(30)
		xs, ys := make([]any, n), make([]any, n)
		for i := range xs {
			xs[i], ys[i] = randUnscaled(r, p1), randUnscaled(r, p2)
		}
		fields := []sqltypes.Field{{Name: "x", Type: t1, Nullable: true}, {Name: "y", Type: t2, Nullable: true}}
		b := env.batch(fields, xs, ys)
		op := []string{"+", "-", "*"}[r.IntN(3)]
		e := mustBind(t, op, Options{ANSI: ansi}, col(0, "x", t1), col(1, "y", t2))
		fast, ferr := env.eval(e, b)
		slow, serr := rowWise(t, env, e, b)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("seed %d iter %d %s %s %s: kernel err %v, exact err %v", seed, iter, e, t1, t2, ferr, serr)
		}
		for i := range fast {
			if ferr == nil && keyString(fast[i], e.Type()) != keyString(slow[i], e.Type()) {
				t.Fatalf("seed %d iter %d %s (%s %s) row %d: kernel %v, exact %v", seed, iter, e, t1, t2, i, fast[i], slow[i])
			}
		}
		b.Release()
		// integer → decimal cast
		it := sqltypes.LongType
		ivals := make([]any, n)
		for i := range ivals {
			if r.IntN(6) > 0 {
				ivals[i] = r.Int64N(1<<40) - 1<<39
			}
		}
		ib := env.batch([]sqltypes.Field{{Name: "i", Type: it, Nullable: true}}, ivals)
		to := sqltypes.DecimalType(1+r.Int32N(38), 0)
		to.Scale = r.Int32N(min(to.Precision, 19) + 1)
		c, err := NewCast(col(0, "i", it), to, 0, Options{ANSI: ansi})
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := env.eval(c, ib)
		for i, v := range ivals {
			want, werr := castValue(v, it, to, ansi, time.UTC)
			if v == nil {
				want, werr = nil, nil
			}
			if gerr != nil {
				if werr == nil && !ansi {
					t.Fatalf("seed %d cast: unexpected error %v", seed, gerr)
				}
				break
			}
			if werr != nil && ansi {
				t.Fatalf("seed %d cast row %d: expected error %v, got %v", seed, i, werr, got[i])
			}
			if werr == nil && keyString(got[i], to) != keyString(want, to) {
				t.Fatalf("seed %d cast %v to %s: got %v want %v", seed, v, to, got[i], want)
			}
		}
		ib.Release()
		env.close()
	}
}

func randUnscaled(r *rand.Rand, p int32) any {
	if r.IntN(8) == 0 {
		return nil
	}
	d := min(p, 18)
	v := r.Int64N(int64(math.Pow10(int(d))))
	if r.IntN(2) == 0 {
		v = -v
	}
	return decimal128.FromI64(v)
}
