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

// kernelValue is a random value of t with NULLs and edge values (MIN/MAX, 0, -1, NaN, ±Inf,
// -0.0, decimal extremes).
func kernelValue(r *rand.Rand, t sqltypes.DataType) any {
	if r.IntN(7) == 0 {
		return nil
	}
	intEdge := func(lo, hi int64) int64 {
		switch r.IntN(10) {
		case 0:
			return hi - r.Int64N(3)
		case 1:
			return lo + r.Int64N(3)
		case 2:
			return 0
		case 3:
			return -1
		}
		span := min(hi, 2000)
		return r.Int64N(2*span+1) - span
	}
	switch t.Kind {
	case sqltypes.Byte:
		return int8(intEdge(math.MinInt8, math.MaxInt8))
	case sqltypes.Short:
		return int16(intEdge(math.MinInt16, math.MaxInt16))
	case sqltypes.Integer, sqltypes.Date:
		return int32(intEdge(math.MinInt32, math.MaxInt32))
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return intEdge(math.MinInt64, math.MaxInt64)
	case sqltypes.Decimal:
		if t.Precision > 18 {
			// Wide decimals: up to p digits, or a few, either sign, or the extremes.
			digits := 1 + r.IntN(6)
			if r.IntN(3) == 0 {
				digits = int(t.Precision)
			}
			var v decimal128.Num
			for d := 0; d < digits; d++ {
				v = v.Mul(decimal128.FromI64(10)).Add(decimal128.FromI64(int64(r.IntN(10))))
			}
			if !v.FitsInPrecision(t.Precision) {
				v = decimal128.GetScaleMultiplier(int(t.Precision)).Sub(decimal128.FromI64(1))
			}
			if r.IntN(2) == 0 {
				v = v.Negate()
			}
			return v
		}
		lim := int64(math.Pow10(int(t.Precision)))
		switch r.IntN(8) {
		case 0:
			return decimal128.FromI64(lim - 1 - r.Int64N(2))
		case 1:
			return decimal128.FromI64(-lim + 1 + r.Int64N(2))
		case 2:
			return decimal128.FromI64(0)
		}
		return decimal128.FromI64(r.Int64N(2*min(lim, 100000)-1) - min(lim, 100000) + 1)
	}
	var f float64
	switch r.IntN(12) {
	case 0:
		f = math.NaN()
	case 1:
		f = 0
	case 2:
		f = math.Copysign(0, -1)
	case 3:
		f = math.Inf(1 - 2*r.IntN(2))
	case 4:
		f = math.MaxFloat64
	case 5:
		// Few decimal digits (0.145, -12.5): HALF_UP ties when cast to a decimal.
		f = float64(r.IntN(2_000_001)-1_000_000) / 1000
	default:
		f = (r.Float64() - 0.5) * 1000
	}
	if t.Kind == sqltypes.Float {
		return float32(f)
	}
	return f
}

// kernelOperand is column i, or (one time in four) a literal or a constant subtree.
func kernelOperand(r *rand.Rand, i int, t sqltypes.DataType, opts Options) Expr {
	switch r.IntN(8) {
	case 0:
		return NewLiteral(kernelValue(r, t), t)
	case 1:
		// A constant subtree: CAST(literal AS t) from a string.
		v := kernelValue(r, t)
		if v == nil || t.Kind == sqltypes.Float || t.Kind == sqltypes.Double || t.Kind == sqltypes.Date ||
			t.Kind == sqltypes.Timestamp || t.Kind == sqltypes.TimestampNTZ {
			return NewLiteral(v, t)
		}
		c, err := NewCast(NewLiteral(keyString(v, t), sqltypes.StringType), t, 0, opts)
		if err != nil {
			panic(err)
		}
		return c
	}
	return col(i, "c", t)
}

// TestTypedKernelsMatchRowWise compares every typed arithmetic and comparison kernel with the
// row-wise oracle over random columns (sliced, so Arrow offsets are exercised), literals and
// constant subtrees, ANSI and legacy; the seed is printed.
func TestTypedKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DateType, sqltypes.TimestampType,
		sqltypes.DecimalType(5, 2), sqltypes.DecimalType(9, 0), sqltypes.DecimalType(18, 6), sqltypes.DecimalType(3, 3),
		sqltypes.DecimalType(30, 4), sqltypes.DecimalType(38, 10)}
	arithOps := []string{"+", "-", "*", "/", "%", "pmod", "div", "try_add", "try_subtract", "try_multiply", "try_mod", "try_divide"}
	cmpOps := []string{"==", "<=>", "<", "<=", ">", ">="}
	checked := 0
	for iter := 0; iter < 3000; iter++ {
		ansi := r.IntN(2) == 0
		opts := Options{ANSI: ansi}
		env := newEnv(t, ansi)
		lt := types[r.IntN(len(types))]
		rt := lt
		if lt.Kind == sqltypes.Decimal {
			rt = types[8+r.IntN(6)]
		}
		var op string
		if r.IntN(2) == 0 && lt.Kind != sqltypes.Date && lt.Kind != sqltypes.Timestamp {
			op = arithOps[r.IntN(len(arithOps))]
		} else {
			op = cmpOps[r.IntN(len(cmpOps))]
			rt = lt
		}
		n := 1 + r.IntN(40)
		xs, ys := make([]any, n+3), make([]any, n+3)
		for i := range xs {
			xs[i], ys[i] = kernelValue(r, lt), kernelValue(r, rt)
		}
		fields := []sqltypes.Field{{Name: "x", Type: lt, Nullable: true}, {Name: "y", Type: rt, Nullable: true}}
		full := env.batch(fields, xs, ys)
		b := full.NewSlice(2, int64(n+2))
		full.Release()
		e, err := Bind(op, []Expr{kernelOperand(r, 0, lt, opts), kernelOperand(r, 1, rt, opts)}, opts)
		if err != nil {
			b.Release()
			env.close()
			continue
		}
		if rn, ok := e.(*renamed); ok {
			e = rn.Expr // try_add etc.
		}
		_, isArith := e.(*arith)
		_, isCmp := e.(*comparison)
		if !isArith && !isCmp {
			b.Release()
			env.close()
			continue
		}
		fast, ferr := env.eval(e, b)
		slow, serr := rowWise(t, env, e, b)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("seed %d iter %d %s (%s, %s) ansi=%v: kernel err %v, row-wise err %v", seed, iter, e, lt, rt, ansi, ferr, serr)
		}
		for i := range fast {
			if ferr == nil && exactKey(fast[i]) != exactKey(slow[i]) {
				t.Fatalf("seed %d iter %d %s (%s, %s) ansi=%v row %d (x=%v y=%v): kernel %v, row-wise %v",
					seed, iter, e, lt, rt, ansi, i, xs[i+2], ys[i+2], fast[i], slow[i])
			}
		}
		checked++
		b.Release()
		env.close()
	}
	if checked < 1000 {
		t.Fatalf("only %d of 3000 random expressions were checked", checked)
	}
}

// TestCastKernelsMatchRowWise compares the typed numeric, decimal and integral-to-string cast
// kernels with the row-wise cast over random sliced columns, ANSI and legacy; the seed is
// printed.
func TestCastKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 18))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DecimalType(5, 2), sqltypes.DecimalType(9, 0),
		sqltypes.DecimalType(18, 6), sqltypes.DecimalType(3, 3), sqltypes.DecimalType(12, 4), sqltypes.DecimalType(7, 5)}
	for iter := 0; iter < 2000; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		from, to := types[r.IntN(len(types))], types[r.IntN(len(types))]
		floatFrom := from.Kind == sqltypes.Float || from.Kind == sqltypes.Double
		if to.Kind == sqltypes.Decimal && from.Kind != sqltypes.Decimal && !floatFrom {
			to = types[r.IntN(6)]
		}
		if floatFrom && r.IntN(4) == 0 {
			to = sqltypes.DecimalType(38, int32(r.IntN(20)))
		}
		if from.IsIntegral() && r.IntN(5) == 0 {
			to = sqltypes.StringType
		}
		n := 1 + r.IntN(40)
		xs := make([]any, n+3)
		for i := range xs {
			xs[i] = kernelValue(r, from)
		}
		full := env.batch([]sqltypes.Field{{Name: "x", Type: from, Nullable: true}}, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		e, err := NewCast(col(0, "x", from), to, 0, Options{ANSI: ansi})
		if err != nil {
			t.Fatal(err)
		}
		fast, ferr := env.eval(e, b)
		c := e.(*castExpr)
		var slow []any
		sa, serr := c.castRows(env.ctx, b.Column(0), from)
		if serr == nil {
			slow = valuesOf(sa, to)
			sa.Release()
		}
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("seed %d iter %d %s ansi=%v: kernel err %v, row-wise err %v", seed, iter, e, ansi, ferr, serr)
		}
		for i := range fast {
			if ferr == nil && exactKey(fast[i]) != exactKey(slow[i]) {
				t.Fatalf("seed %d iter %d %s ansi=%v row %d (x=%v): kernel %v, row-wise %v", seed, iter, e, ansi, i, xs[i+1], fast[i], slow[i])
			}
		}
		b.Release()
		env.close()
	}
}

// exactKey tells apart every value the kernels must reproduce: -0.0 from 0.0, float32 from
// float64, decimals by unscaled value (any NaN is one NaN).
func exactKey(v any) string {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return fmt.Sprintf("d%x", math.Float64bits(x))
	case float32:
		if x != x {
			return "NaN"
		}
		return fmt.Sprintf("f%x", math.Float32bits(x))
	}
	return fmt.Sprintf("%T %v", v, v)
}

// TestSelectKernelsMatchRowSemantics checks CASE WHEN and COALESCE over random sliced columns
// of every fixed-width type against their definition row by row; the seed is printed.
func TestSelectKernelsMatchRowSemantics(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 19))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DateType, sqltypes.TimestampType,
		sqltypes.DecimalType(5, 2), sqltypes.DecimalType(30, 4), sqltypes.StringType, sqltypes.BooleanType}
	for iter := 0; iter < 500; iter++ {
		env := newEnv(t, true)
		ty := types[r.IntN(len(types))]
		n := 1 + r.IntN(40)
		cs, xs, ys, zs := make([]any, n+2), make([]any, n+2), make([]any, n+2), make([]any, n+2)
		for i := range xs {
			if r.IntN(5) > 0 {
				cs[i] = r.IntN(2) == 0
			}
			for _, v := range []*any{&xs[i], &ys[i], &zs[i]} {
				switch ty.Kind {
				case sqltypes.StringType.Kind:
					if r.IntN(5) > 0 {
						*v = fmt.Sprint(r.IntN(100))
					}
				case sqltypes.Boolean:
					if r.IntN(5) > 0 {
						*v = r.IntN(2) == 0
					}
				case sqltypes.Decimal:
					if r.IntN(5) > 0 {
						*v = decimal128.FromI64(r.Int64N(1000) - 500)
					}
				default:
					*v = kernelValue(r, ty)
				}
			}
		}
		fields := []sqltypes.Field{{Name: "c", Type: sqltypes.BooleanType, Nullable: true},
			{Name: "x", Type: ty, Nullable: true}, {Name: "y", Type: ty, Nullable: true}, {Name: "z", Type: ty, Nullable: true}}
		full := env.batch(fields, cs, xs, ys, zs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		x, y, z := col(1, "x", ty), col(2, "y", ty), col(3, "z", ty)
		var e Expr
		want := make([]any, n)
		if r.IntN(2) == 0 {
			e = mustBind(t, "when", Options{ANSI: true}, col(0, "c", sqltypes.BooleanType), x, y)
			for i := range want {
				if c, _ := cs[i+1].(bool); c {
					want[i] = xs[i+1]
				} else {
					want[i] = ys[i+1]
				}
			}
		} else {
			e = mustBind(t, "coalesce", Options{ANSI: true}, x, y, z)
			for i := range want {
				for _, v := range []any{xs[i+1], ys[i+1], zs[i+1]} {
					if v != nil {
						want[i] = v
						break
					}
				}
			}
		}
		got, err := env.eval(e, b)
		if err != nil {
			t.Fatalf("seed %d iter %d %s: %v", seed, iter, e, err)
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s (%s) row %d: got %v, want %v", seed, iter, e, ty, i, got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}

// TestDateKernelsMatchRowWise compares the date field, date_add/date_sub and datediff kernels
// with their row-wise functions over random dates (the whole int32 day range and near the
// epoch); the seed is printed.
func TestDateKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 20))
	day := func() any {
		switch r.IntN(8) {
		case 0:
			return nil
		case 1:
			return r.Int32()
		case 2:
			return -r.Int32()
		}
		return int32(r.IntN(2_000_000) - 1_000_000)
	}
	fns := []string{"year", "quarter", "month", "dayofmonth", "dayofweek", "weekday", "dayofyear", "date_add", "date_sub", "datediff"}
	for iter := 0; iter < 400; iter++ {
		env := newEnv(t, true)
		n := 1 + r.IntN(60)
		ds, xs := make([]any, n+1), make([]any, n+1)
		for i := range ds {
			ds[i] = day()
			if r.IntN(6) > 0 {
				xs[i] = r.Int32N(20000) - 10000
			}
			if r.IntN(4) == 0 {
				xs[i] = day()
			}
		}
		fields := []sqltypes.Field{{Name: "d", Type: sqltypes.DateType, Nullable: true}, {Name: "x", Type: sqltypes.IntegerType, Nullable: true}}
		full := env.batch(fields, ds, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		name := fns[r.IntN(len(fns))]
		args := []Expr{col(0, "d", sqltypes.DateType)}
		switch name {
		case "date_add", "date_sub":
			args = append(args, col(1, "x", sqltypes.IntegerType))
		case "datediff":
			args = append(args, col(0, "d", sqltypes.DateType))
			args[0] = mustBind(t, "date_add", Options{ANSI: true}, col(0, "d", sqltypes.DateType), col(1, "x", sqltypes.IntegerType))
		}
		e := mustBind(t, name, Options{ANSI: true}, args...)
		f, ok := e.(*rowFunc)
		if !ok || f.vec == nil {
			t.Fatalf("%s: %T has no kernel", name, e)
		}
		got, err := env.eval(f, b)
		if err != nil {
			t.Fatal(err)
		}
		oracle := *f
		oracle.vec = nil
		if inner, ok := oracle.args[0].(*rowFunc); ok {
			io := *inner
			io.vec = nil
			oracle.args = []Expr{&io, oracle.args[1]}
		}
		want, err := env.eval(&oracle, b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s row %d (d=%v x=%v): kernel %v, row-wise %v", seed, iter, e, i, ds[i+1], xs[i+1], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}

// TestCaseBranchNotTakenDoesNotRaise: under ANSI, CASE WHEN x = 0 THEN 0 ELSE 1 / x END does
// not fail on the rows where x = 0 (the division kernel fails over the whole batch, and the
// branch is then evaluated on its own rows only), and the divisions are exact.
func TestCaseBranchNotTakenDoesNotRaise(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	opts := Options{ANSI: true}
	x := col(0, "x", sqltypes.LongType)
	b := env.batch([]sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}, []any{int64(0), int64(4), nil, int64(-2)})
	defer b.Release()
	div := mustBind(t, "/", opts, NewLiteral(int64(1), sqltypes.LongType), x)
	if _, err := env.eval(div, b); err == nil {
		t.Fatal("1 / x over a zero divisor: want DIVIDE_BY_ZERO under ANSI")
	}
	e := mustBind(t, "when", opts, mustBind(t, "==", opts, x, NewLiteral(int64(0), sqltypes.LongType)),
		NewLiteral(0.0, sqltypes.DoubleType), div)
	got, err := env.eval(e, b)
	if err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	want := []any{0.0, 0.25, nil, -0.5}
	for i := range want {
		if exactKey(got[i]) != exactKey(want[i]) {
			t.Fatalf("%s row %d: got %v, want %v", e, i, got[i], want[i])
		}
	}
}

// TestWideDecimalMultiplyMatchesRowWise compares the 128-bit decimal product (operand
// precisions past 38 digits in sum, results rounded by up to 19 digits) with the exact
// big.Int row path over random sliced columns, values beyond 64 bits included, ANSI and
// legacy; the seed is printed.
func TestWideDecimalMultiplyMatchesRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 24))
	value := func(dt sqltypes.DataType) any {
		if r.IntN(8) == 0 {
			return nil
		}
		digits := 1 + r.IntN(int(dt.Precision))
		if r.IntN(3) > 0 {
			digits = 1 + r.IntN(min(int(dt.Precision), 12))
		}
		var v decimal128.Num
		for d := 0; d < digits; d++ {
			v = v.Mul(decimal128.FromI64(10)).Add(decimal128.FromI64(int64(r.IntN(10))))
		}
		if r.IntN(2) == 0 {
			v = v.Negate()
		}
		return v
	}
	checked := 0
	for iter := 0; iter < 1500; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		lt := sqltypes.DecimalType(int32(10+r.IntN(29)), 0)
		lt.Scale = int32(r.IntN(int(lt.Precision) + 1))
		rt := sqltypes.DecimalType(int32(5+r.IntN(34)), 0)
		rt.Scale = int32(r.IntN(int(rt.Precision) + 1))
		n := 1 + r.IntN(30)
		xs, ys := make([]any, n+2), make([]any, n+2)
		for i := range xs {
			xs[i], ys[i] = value(lt), value(rt)
		}
		fields := []sqltypes.Field{{Name: "x", Type: lt, Nullable: true}, {Name: "y", Type: rt, Nullable: true}}
		full := env.batch(fields, xs, ys)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		e := mustBind(t, "*", Options{ANSI: ansi}, col(0, "x", lt), col(1, "y", rt))
		fast, ferr := env.eval(e, b)
		slow, serr := rowWise(t, env, e, b)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("seed %d iter %d %s (%s, %s) ansi=%v: kernel err %v, row-wise err %v", seed, iter, e, lt, rt, ansi, ferr, serr)
		}
		for i := range fast {
			if ferr == nil && exactKey(fast[i]) != exactKey(slow[i]) {
				t.Fatalf("seed %d iter %d %s (%s, %s) -> %s ansi=%v row %d (x=%v y=%v): kernel %v, row-wise %v",
					seed, iter, e, lt, rt, e.Type(), ansi, i, xs[i+1], ys[i+1], fast[i], slow[i])
			}
		}
		if ferr == nil {
			checked++
		}
		b.Release()
		env.close()
	}
	if checked < 300 {
		t.Fatalf("only %d of 1500 products were computed without error", checked)
	}
}

// TestNegateKernelMatchesRowWise compares unary minus over every numeric type with its
// row-wise function over random sliced columns with MIN values, ANSI and legacy; the seed is
// printed.
func TestNegateKernelMatchesRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 28))
	types := []sqltypes.DataType{sqltypes.ByteType, sqltypes.ShortType, sqltypes.IntegerType, sqltypes.LongType,
		sqltypes.FloatType, sqltypes.DoubleType, sqltypes.DecimalType(5, 2), sqltypes.DecimalType(38, 10)}
	for iter := 0; iter < 800; iter++ {
		ansi := r.IntN(2) == 0
		env := newEnv(t, ansi)
		ty := types[r.IntN(len(types))]
		n := 1 + r.IntN(30)
		xs := make([]any, n+2)
		for i := range xs {
			xs[i] = kernelValue(r, ty)
		}
		full := env.batch([]sqltypes.Field{{Name: "x", Type: ty, Nullable: true}}, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		f := mustBind(t, "negative", Options{ANSI: ansi}, col(0, "x", ty)).(*rowFunc)
		if f.vec == nil {
			t.Fatalf("%s has no kernel", f)
		}
		got, gerr := env.eval(f, b)
		oracle := *f
		oracle.vec = nil
		want, werr := env.eval(&oracle, b)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("seed %d iter %d %s ansi=%v: kernel err %v, row-wise err %v", seed, iter, f, ansi, gerr, werr)
		}
		for i := range got {
			if gerr == nil && exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s ansi=%v row %d (x=%v): kernel %v, row-wise %v", seed, iter, f, ansi, i, xs[i+1], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}
