package expr

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestTimestampKernelsMatchRowWise compares CAST(TIMESTAMP[_NTZ] AS DATE), year/month over a
// timestamp (through that cast) and hour/minute/second with their row-wise paths, in UTC and
// in zones with DST, half-hour and historical (LMT) offsets, over random sliced timestamps
// (the whole int64 range, near the epoch, and runs of nearby instants that cross transitions);
// the seed is printed.
func TestTimestampKernelsMatchRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 25))
	zones := testZones(t)
	fns := []string{"cast", "year", "month", "dayofmonth", "hour", "minute", "second"}
	for iter := 0; iter < 600; iter++ {
		env := newEnv(t, true)
		env.ctx.Location = zones[r.IntN(len(zones))]
		ty := sqltypes.TimestampType
		if r.IntN(4) == 0 {
			ty = sqltypes.TimestampNTZType
		}
		n := 1 + r.IntN(60)
		base := r.Int64N(200*365*86400e6) - 100*365*86400e6
		xs := make([]any, n+2)
		for i := range xs {
			switch r.IntN(10) {
			case 0:
			case 1:
				xs[i] = r.Int64()
			case 2:
				xs[i] = []int64{math.MinInt64, math.MaxInt64, -1, 0}[r.IntN(4)]
			default:
				base += r.Int64N(40 * 86400e6)
				xs[i] = base
			}
		}
		full := env.batch([]sqltypes.Field{{Name: "ts", Type: ty, Nullable: true}}, xs)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		x := col(0, "ts", ty)
		name := fns[r.IntN(len(fns))]
		var got, want []any
		var gerr, werr error
		if name == "cast" {
			e, err := NewCast(x, sqltypes.DateType, 0, Options{ANSI: true})
			if err != nil {
				t.Fatal(err)
			}
			got, gerr = env.eval(e, b)
			sa, err := e.(*castExpr).castRows(env.ctx, b.Column(0), ty)
			werr = err
			if err == nil {
				want = valuesOf(sa, sqltypes.DateType)
				sa.Release()
			}
		} else {
			if ty.Kind == sqltypes.TimestampNTZ && name != "hour" && name != "minute" && name != "second" {
				name = "hour"
			}
			e := mustBind(t, name, Options{ANSI: true}, x)
			f := e.(*rowFunc)
			got, gerr = env.eval(f, b)
			oracle := *f
			oracle.vec = nil
			if c, ok := oracle.args[0].(*castExpr); ok {
				// The oracle reads the date through the row-wise cast too.
				oracle.args = []Expr{&rowFunc{name: "rowcast", args: []Expr{c.child}, t: sqltypes.DateType, strict: true,
					fn: func(ctx *Context, a []any) (any, error) {
						return castValueAt(ctx, a[0], ty)
					}}}
			}
			want, werr = env.eval(&oracle, b)
		}
		if gerr != nil || werr != nil {
			t.Fatalf("seed %d iter %d %s %s: kernel err %v, row-wise err %v", seed, iter, name, env.ctx.Location, gerr, werr)
		}
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s(%s) in %s row %d (us=%v): kernel %v, row-wise %v",
					seed, iter, name, ty, env.ctx.Location, i, xs[i+1], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}

// castValueAt is the row-wise CAST(v AS DATE) from timestamp type from.
func castValueAt(ctx *Context, v any, from sqltypes.DataType) (any, error) {
	return castValue(v, from, sqltypes.DateType, true, ctx.loc())
}

// testZones loads UTC and zones with DST, half-hour, 45-minute, date-line and historical
// offsets (those the system lacks are left out).
func testZones(t *testing.T) []*time.Location {
	var zones []*time.Location
	for _, name := range []string{"UTC", "America/Los_Angeles", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe",
		"America/Sao_Paulo", "Asia/Kathmandu", "Pacific/Apia", "Europe/Amsterdam"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Logf("zone %s: %v", name, err)
			continue
		}
		zones = append(zones, loc)
	}
	return zones
}

// TestDateToTimestampKernelMatchesRowWise compares CAST(DATE AS TIMESTAMP[_NTZ]) with the
// row-wise cast in each test zone over random sliced dates (the whole int32 range and around
// the epoch); the seed is printed.
func TestDateToTimestampKernelMatchesRowWise(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 27))
	zones := testZones(t)
	for iter := 0; iter < 300; iter++ {
		env := newEnv(t, true)
		env.ctx.Location = zones[r.IntN(len(zones))]
		to := sqltypes.TimestampType
		if r.IntN(4) == 0 {
			to = sqltypes.TimestampNTZType
		}
		n := 1 + r.IntN(40)
		ds := make([]any, n+2)
		for i := range ds {
			switch r.IntN(8) {
			case 0:
			case 1:
				ds[i] = r.Int32() - r.Int32()
			default:
				ds[i] = int32(r.IntN(80000) - 40000)
			}
		}
		full := env.batch([]sqltypes.Field{{Name: "d", Type: sqltypes.DateType, Nullable: true}}, ds)
		b := full.NewSlice(1, int64(n+1))
		full.Release()
		e, err := NewCast(col(0, "d", sqltypes.DateType), to, 0, Options{ANSI: true})
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := env.eval(e, b)
		sa, werr := e.(*castExpr).castRows(env.ctx, b.Column(0), sqltypes.DateType)
		if gerr != nil || werr != nil {
			t.Fatalf("seed %d iter %d: kernel err %v, row-wise err %v", seed, iter, gerr, werr)
		}
		want := valuesOf(sa, to)
		sa.Release()
		for i := range got {
			if exactKey(got[i]) != exactKey(want[i]) {
				t.Fatalf("seed %d iter %d %s in %s row %d (d=%v): kernel %v, row-wise %v", seed, iter, e, env.ctx.Location, i, ds[i+1], got[i], want[i])
			}
		}
		b.Release()
		env.close()
	}
}
