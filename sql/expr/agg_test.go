package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// runAgg binds name over column 0 of the batch, updates with all rows into the given groups,
// optionally retracts the rows at retractIdx, and returns results for groups 0..ngroups-1.
func runAgg(t *testing.T, env *testEnv, name string, distinct bool, fields []sqltypes.Field, groups []uint32, ngroups int, retract []int, cols ...[]any) (AggFunc, []any) {
	t.Helper()
	args := make([]Expr, len(cols))
	for i := range cols {
		args[i] = col(i, fields[i].Name, fields[i].Type)
	}
	f, err := BindAggregate(name, args, distinct, Options{ANSI: true})
	if err != nil {
		t.Fatalf("bind %s: %v", name, err)
	}
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(ngroups)
	b := env.batch(fields, cols...)
	defer b.Release()
	arrs, err := evalAll(env.ctx, f.Args(), b)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Update(groups, arrs); err != nil {
		t.Fatal(err)
	}
	releaseAll(arrs)
	if retract != nil {
		rcols := make([][]any, len(cols))
		var rg []uint32
		for _, i := range retract {
			rg = append(rg, groups[i])
			for c := range cols {
				rcols[c] = append(rcols[c], cols[c][i])
			}
		}
		rb := env.batch(fields, rcols...)
		rarrs, err := evalAll(env.ctx, f.Args(), rb)
		if err != nil {
			t.Fatal(err)
		}
		if err := acc.Retract(rg, rarrs); err != nil {
			t.Fatal(err)
		}
		releaseAll(rarrs)
		rb.Release()
	}
	ids := make([]uint32, ngroups)
	for i := range ids {
		ids[i] = uint32(i)
	}
	res, err := acc.Result(env.ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	return f, valuesOf(res, f.Type())
}

func TestAggregatesUpdateRetract(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	li := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	xs := []any{int64(5), int64(1), nil, int64(7), int64(1), int64(3)}
	groups := []uint32{0, 0, 0, 1, 1, 0}
	cases := []struct {
		name     string
		distinct bool
		retract  []int
		str      string
		want     string
	}{
		{"count", false, nil, "count(x)", "[3 2 0]"},
		{"count", false, []int{0}, "count(x)", "[2 2 0]"},
		{"sum", false, nil, "sum(x)", "[9 8 <nil>]"},
		{"sum", false, []int{3}, "sum(x)", "[9 1 <nil>]"},
		{"avg", false, nil, "avg(x)", "[3 4 <nil>]"},
		{"min", false, nil, "min(x)", "[1 1 <nil>]"},
		{"min", false, []int{1}, "min(x)", "[3 1 <nil>]"},
		{"max", false, []int{0}, "max(x)", "[3 7 <nil>]"},
		{"first", false, nil, "first(x)", "[5 7 <nil>]"},
		{"first", false, []int{0}, "first(x)", "[1 7 <nil>]"},
		{"last", false, nil, "last(x)", "[3 1 <nil>]"},
		{"collect_list", false, []int{1}, "collect_list(x)", "[[5 3] [7 1] []]"},
		{"count", true, nil, "count(DISTINCT x)", "[3 2 0]"},
		{"sum", true, nil, "sum(DISTINCT x)", "[9 8 <nil>]"},
	}
	for _, c := range cases {
		f, got := runAgg(t, env, c.name, c.distinct, li, groups, 3, c.retract, xs)
		if f.String() != c.str || fmt.Sprint(got) != c.want {
			t.Errorf("%s retract=%v: %s = %v, want %s = %s", c.name, c.retract, f.String(), got, c.str, c.want)
		}
	}
}

func TestAggregatesTypes(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	dec := sqltypes.DecimalType(5, 2)
	d := func(n int64) any { return NewLiteral(n, dec).(*Literal).Value }
	decs := []any{d(100), d(250), nil, d(-50)}
	strs := []any{"b", "a", nil, "c"}
	dbls := []any{1.0, 2.0, nil, 4.0}
	bools := []any{true, false, nil, true}
	g := []uint32{0, 0, 0, 0}
	cases := []struct {
		name     string
		distinct bool
		field    sqltypes.Field
		vals     []any
		str, typ string
		want     string
	}{
		{"sum", false, sqltypes.Field{Name: "d", Type: dec}, decs, "sum(d)", "decimal(15,2)", "[300.00 null]"},
		{"avg", false, sqltypes.Field{Name: "d", Type: dec}, decs, "avg(d)", "decimal(9,6)", "[100.000000 null]"},
		{"min", false, sqltypes.Field{Name: "s", Type: sqltypes.StringType}, strs, "min(s)", "string", "[a null]"},
		{"max", false, sqltypes.Field{Name: "s", Type: sqltypes.StringType}, strs, "max(s)", "string", "[c null]"},
		{"stddev", false, sqltypes.Field{Name: "x", Type: sqltypes.DoubleType}, dbls, "stddev(x)", "double", "[1.5275252316519465 null]"},
		{"var_pop", false, sqltypes.Field{Name: "x", Type: sqltypes.DoubleType}, dbls, "var_pop(x)", "double", "[1.5555555555555554 null]"},
		{"collect_set", false, sqltypes.Field{Name: "s", Type: sqltypes.StringType}, []any{"a", "b", "a", nil}, "collect_set(s)", "array<string>", "[[a, b] []]"},
		{"count_if", false, sqltypes.Field{Name: "p", Type: sqltypes.BooleanType}, bools, "count_if(p)", "bigint", "[2 0]"},
		{"bool_and", false, sqltypes.Field{Name: "p", Type: sqltypes.BooleanType}, bools, "bool_and(p)", "boolean", "[false null]"},
		{"bool_or", false, sqltypes.Field{Name: "p", Type: sqltypes.BooleanType}, bools, "bool_or(p)", "boolean", "[true null]"},
		{"sum", false, sqltypes.Field{Name: "x", Type: sqltypes.DoubleType}, dbls, "sum(x)", "double", "[7.0 null]"},
		{"avg", true, sqltypes.Field{Name: "x", Type: sqltypes.DoubleType}, []any{1.0, 1.0, 4.0, nil}, "avg(DISTINCT x)", "double", "[2.5 null]"},
	}
	for _, c := range cases {
		c.field.Nullable = true
		f, got := runAgg(t, env, c.name, c.distinct, []sqltypes.Field{c.field}, g, 2, nil, c.vals)
		// group 1 never receives rows: the global-aggregate-over-no-rows result.
		shown := make([]string, len(got))
		for i, v := range got {
			shown[i] = valueString(v, f.Type(), env.ctx.loc())
		}
		if f.String() != c.str || f.Type().String() != c.typ || fmt.Sprint(shown) != c.want {
			t.Errorf("%s: %s %s = %v, want %s %s = %s", c.name, f.String(), f.Type(), got, c.str, c.typ, c.want)
		}
	}
}

func TestCountDistinctMultiAndStar(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fields := []sqltypes.Field{{Name: "a", Type: sqltypes.IntegerType, Nullable: true}, {Name: "b", Type: sqltypes.StringType, Nullable: true}}
	as := []any{int32(1), int32(1), int32(2), nil, int32(1)}
	bs := []any{"x", "x", "x", "y", nil}
	f, got := runAgg(t, env, "count", true, fields, []uint32{0, 0, 0, 0, 0}, 1, nil, as, bs)
	if f.String() != "count(DISTINCT a, b)" || fmt.Sprint(got) != "[2]" {
		t.Fatalf("%s = %v", f, got)
	}
	_, got = runAgg(t, env, "count", true, fields, []uint32{0, 0, 0, 0, 0}, 1, []int{0}, as, bs)
	if fmt.Sprint(got) != "[2]" {
		t.Fatalf("after retracting one duplicate: %v", got)
	}
	_, got = runAgg(t, env, "count", true, fields, []uint32{0, 0, 0, 0, 0}, 1, []int{0, 1}, as, bs)
	if fmt.Sprint(got) != "[1]" {
		t.Fatalf("after retracting both duplicates: %v", got)
	}
	star, err := BindAggregate("count", nil, false, Options{})
	if err != nil || star.String() != "count(1)" || star.Nullable() {
		t.Fatalf("count(*): %v %v", star, err)
	}
	if _, err := BindAggregate("sum", []Expr{NewLiteral(true, sqltypes.BooleanType)}, false, Options{}); err == nil {
		t.Fatal("sum(boolean) should fail")
	}
	if !IsAggregate("COUNT") || IsAggregate("upper") {
		t.Fatal("IsAggregate")
	}
}

func TestSumOverflowANSI(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	f, err := BindAggregate("sum", []Expr{col(0, "x", sqltypes.LongType)}, false, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(1)
	b := env.batch([]sqltypes.Field{{Name: "x", Type: sqltypes.LongType}}, []any{int64(math.MaxInt64), int64(1)})
	defer b.Release()
	if err := acc.Update([]uint32{0, 0}, b.Columns()); err == nil {
		t.Fatal("expected ARITHMETIC_OVERFLOW")
	}
}

func TestTupleAggregates(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fx := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}, {Name: "y", Type: sqltypes.LongType, Nullable: true}}
	xs := []any{int64(1), int64(2), int64(3), int64(4), nil}
	ys := []any{int64(10), int64(40), int64(30), int64(20), int64(5)}
	g := []uint32{0, 0, 0, 0, 0}
	run := func(name string, retract []int, cols ...[]any) (AggFunc, string) {
		f, got := runAgg(t, env, name, false, fx[:len(cols)], g, 1, retract, cols...)
		return f, valueString(got[0], f.Type(), env.ctx.loc())
	}
	check := func(f AggFunc, got, str, want string) {
		t.Helper()
		if f.String() != str || got != want {
			t.Errorf("%s = %s, want %s = %s", f, got, str, want)
		}
	}
	f, got := run("median", nil, xs)
	check(f, got, "median(x)", "2.5")
	f, got = run("max_by", nil, xs, ys)
	check(f, got, "max_by(x, y)", "2")
	f, got = run("max_by", []int{1}, xs, ys)
	check(f, got, "max_by(x, y)", "3")
	f, got = run("approx_count_distinct", nil, []any{int64(1), int64(1), int64(2), nil, int64(3)})
	check(f, got, "approx_count_distinct(x)", "3")
	f, got = run("corr", nil, xs, ys)
	check(f, got, "corr(x, y)", "0.2")
	f, got = run("mode", nil, []any{int64(3), int64(1), int64(3), int64(1), int64(2)})
	check(f, got, "mode(x)", "1")
}

func TestMoreAggregates(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fl := []sqltypes.Field{{Name: "x", Type: sqltypes.LongType, Nullable: true}}
	fs := []sqltypes.Field{{Name: "s", Type: sqltypes.StringType, Nullable: true}}
	g := []uint32{0, 0, 0}
	f, got := runAgg(t, env, "try_sum", false, fl, g, 1, nil, []any{int64(math.MaxInt64), int64(1), nil})
	if f.String() != "try_sum(x)" || got[0] != nil {
		t.Fatalf("%s = %v", f, got)
	}
	f, got = runAgg(t, env, "bit_or", false, fl, g, 1, nil, []any{int64(1), int64(4), nil})
	if got[0] != int64(5) {
		t.Fatalf("%s = %v", f, got)
	}
	args := []Expr{col(0, "s", sqltypes.StringType), NewLiteral(",", sqltypes.StringType)}
	sa, err := BindAggregate("string_agg", args, false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	acc := sa.NewAccumulator(env.ctx)
	acc.Grow(1)
	b := env.batch(fs, []any{"a", nil, "b"})
	defer b.Release()
	arrs, _ := evalAll(env.ctx, sa.Args(), b)
	if err := acc.Update(g, arrs); err != nil {
		t.Fatal(err)
	}
	releaseAll(arrs)
	res, _ := acc.Result(env.ctx, []uint32{0})
	defer res.Release()
	if sa.String() != "string_agg(s, ,)" || ValueAt(res, 0, sqltypes.StringType) != "a,b" {
		t.Fatalf("%s = %v", sa, ValueAt(res, 0, sqltypes.StringType))
	}
}

// count(*) and count of a non-NULL literal count every row, so the operator feeds them no
// arguments; a column, a NULL literal or DISTINCT needs the arguments. Fed nil, the count's
// accumulator counts each row.
func TestCountsEveryRow(t *testing.T) {
	for _, c := range []struct {
		name     string
		args     []Expr
		distinct bool
		want     bool
	}{
		{"count", nil, false, true},
		{"count", []Expr{lit(int64(5), sqltypes.LongType)}, false, true},
		{"count", []Expr{lit("a", sqltypes.StringType)}, false, true},
		{"count", []Expr{lit(nil, sqltypes.IntegerType)}, false, false},
		{"count", []Expr{col(0, "x", sqltypes.LongType)}, false, false},
		{"count", []Expr{lit(int64(5), sqltypes.LongType)}, true, false},
		{"sum", []Expr{lit(int64(5), sqltypes.LongType)}, false, false},
	} {
		f, err := BindAggregate(c.name, c.args, c.distinct, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := CountsEveryRow(f); got != c.want {
			t.Errorf("%s: CountsEveryRow = %v, want %v", f, got, c.want)
		}
		if !c.want {
			continue
		}
		acc := InsertOnly(f.NewAccumulator(&Context{}))
		acc.Grow(2)
		if err := acc.Update([]uint32{0, 1, 1}, nil); err != nil {
			t.Fatal(err)
		}
		res, err := acc.Result(&Context{}, []uint32{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(res); got != "[1 2]" {
			t.Errorf("%s fed nil: %s, want [1 2]", f, got)
		}
		res.Release()
	}
}

// The branch-free sum of a NULL-free long column agrees with the per-row addInt: the same
// sums and counts (wrapping in legacy mode and for avg), and ANSI overflow fails in both; the
// seed is printed.
func TestSumNoNullMatchesPerRow(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	for iter := range 300 {
		n, gs := 1+r.IntN(200), 1+r.IntN(8)
		groups := make([]uint32, n)
		vals := make([]int64, n)
		for i := range vals {
			groups[i] = uint32(r.IntN(gs))
			vals[i] = r.Int64N(1000) - 500
			if r.IntN(4) == 0 {
				vals[i] = int64(r.Uint64())
			}
		}
		for _, mode := range []struct{ ansi, avg bool }{{false, false}, {true, false}, {true, true}} {
			fast := &sumAcc{t: sqltypes.LongType, ansi: mode.ansi, avg: mode.avg}
			slow := &sumAcc{t: sqltypes.LongType, ansi: mode.ansi, avg: mode.avg}
			fast.Grow(gs)
			slow.Grow(gs)
			ferr := fast.addIntsNoNull(groups, vals, 1)
			var serr error
			for i, g := range groups {
				if serr = slow.addInt(g, vals[i]); serr != nil {
					break
				}
				slow.n[g]++
			}
			if (ferr == nil) != (serr == nil) {
				t.Fatalf("seed %d iter %d %+v: error %v, per row %v", seed, iter, mode, ferr, serr)
			}
			if serr == nil && (!slices.Equal(fast.ints, slow.ints) || !slices.Equal(fast.n, slow.n)) {
				t.Fatalf("seed %d iter %d %+v: sums %v %v, per row %v %v", seed, iter, mode, fast.ints, fast.n, slow.ints, slow.n)
			}
		}
	}
}

// feedAccumulator feeds the rows of cols (columns of fields) to group 0 of acc, f's accumulator.
func feedAccumulator(t *testing.T, env *testEnv, f AggFunc, acc GroupedAccumulator, fields []sqltypes.Field, cols ...[]any) {
	t.Helper()
	b := env.batch(fields, cols...)
	defer b.Release()
	arrs, err := evalAll(env.ctx, f.Args(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(arrs)
	if err := acc.Update(make([]uint32, len(cols[0])), arrs); err != nil {
		t.Fatal(err)
	}
}

// runAccumulator feeds the rows of cols (columns of fields) to one group of f and returns its
// result.
func runAccumulator(t *testing.T, env *testEnv, f AggFunc, fields []sqltypes.Field, cols ...[]any) any {
	t.Helper()
	acc := f.NewAccumulator(env.ctx)
	acc.Grow(1)
	feedAccumulator(t, env, f, acc, fields, cols...)
	r, err := acc.Result(env.ctx, []uint32{0})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	return ValueAt(r, 0, f.Type())
}
