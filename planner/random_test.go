package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var kw = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}, {Name: "w", Type: sqltypes.LongType, Nullable: true}}

// randomRows draws n rows of (k, w): k from a small domain with NULLs, w unique.
func randomRows(rng *rand.Rand, n, domain int, base int64) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		var k any
		if rng.IntN(8) > 0 {
			k = int64(rng.IntN(domain))
		}
		rows[i] = []any{k, base + int64(i)}
	}
	return rows
}

func str(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

// naiveJoin is the nested-loop reference for an equi-join on k with residual lw < rw+offset.
func naiveJoin(typ plan.JoinType, l, r [][]any, residual func(lw, rw int64) bool) []string {
	var out []string
	rowMatched := make([]bool, len(r))
	for _, a := range l {
		hit := false
		for j, b := range r {
			if a[0] == nil || b[0] == nil || a[0] != b[0] || !residual(a[1].(int64), b[1].(int64)) {
				continue
			}
			hit = true
			rowMatched[j] = true
			if typ != plan.LeftSemiJoin && typ != plan.LeftAntiJoin {
				out = append(out, fmt.Sprintf("%s, %s, %s, %s", str(a[0]), str(a[1]), str(b[0]), str(b[1])))
			}
		}
		switch {
		case typ == plan.LeftSemiJoin && hit, typ == plan.LeftAntiJoin && !hit:
			out = append(out, fmt.Sprintf("%s, %s", str(a[0]), str(a[1])))
		case !hit && (typ == plan.LeftOuterJoin || typ == plan.FullOuterJoin):
			out = append(out, fmt.Sprintf("%s, %s, null, null", str(a[0]), str(a[1])))
		}
	}
	if typ == plan.RightOuterJoin || typ == plan.FullOuterJoin {
		for j, b := range r {
			if !rowMatched[j] {
				out = append(out, fmt.Sprintf("null, null, %s, %s", str(b[0]), str(b[1])))
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestRandomJoinsAndAggregates(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	e := newEnv(t)
	for round := 0; round < 3; round++ {
		lrows := randomRows(rng, 50+rng.IntN(300), 1+rng.IntN(20), 0)
		rrows := randomRows(rng, 50+rng.IntN(300), 1+rng.IntN(20), 1000)
		l, r := e.local(kw, lrows...), e.local(kw, rrows...)
		// Spread the left side over partitions so the exchange has several senders.
		lrep := &logical.Repartition{Input: l, Partitions: 3}
		offset := int64(rng.IntN(1500))
		rw := &expr.Column{Index: 3, Name: "w", T: sqltypes.LongType, Null: true}
		residual := bind(t, "<", col(l, 1), bind(t, "+", rw, lit(offset)))
		for _, typ := range []plan.JoinType{plan.InnerJoin, plan.LeftOuterJoin, plan.RightOuterJoin, plan.FullOuterJoin, plan.LeftSemiJoin, plan.LeftAntiJoin} {
			out := append(append(sqltypes.Schema{}, kw...), kw...)
			if typ == plan.LeftSemiJoin || typ == plan.LeftAntiJoin {
				out = kw
			}
			// Semi and anti joins also run built over their left side (Join.BuildLeft), with
			// and without the residual condition.
			type variant struct{ buildLeft, residual bool }
			variants := []variant{{false, true}}
			if typ == plan.LeftSemiJoin || typ == plan.LeftAntiJoin {
				variants = append(variants, variant{false, false}, variant{true, true}, variant{true, false})
			}
			for _, v := range variants {
				j := &logical.Join{Left: lrep, Right: r, Type: typ, LeftKeys: []expr.Expr{col(l, 0)}, RightKeys: []expr.Expr{col(r, 0)},
					Out: out, BuildLeft: v.buildLeft}
				cond := func(lw, rw int64) bool { return true }
				if v.residual {
					j.Residual = residual
					cond = func(lw, rw int64) bool { return lw < rw+offset }
				}
				want := naiveJoin(typ, lrows, rrows, cond)
				for _, par := range []int{1, 2, 4} {
					for _, capacity := range []int{1, 8} {
						got, err := e.run(j, par, capacity)
						if err != nil {
							t.Fatal(err)
						}
						slices.Sort(got)
						if !slices.Equal(got, want) {
							t.Fatalf("seed %d round %d join %d %+v partitions %d capacity %d:\ngot  %d rows %v\nwant %d rows %v",
								seed, round, typ, v, par, capacity, len(got), got, len(want), want)
						}
					}
				}
			}
		}

		// Aggregate: sum(w), count(1), max(w) by k against a map.
		type acc struct{ sum, n, max int64 }
		ref := map[string]*acc{}
		for _, row := range lrows {
			k := str(row[0])
			a := ref[k]
			if a == nil {
				a = &acc{max: -1}
				ref[k] = a
			}
			w := row[1].(int64)
			a.sum, a.n, a.max = a.sum+w, a.n+1, max(a.max, w)
		}
		var want []string
		for k, a := range ref {
			want = append(want, fmt.Sprintf("%s, %d, %d, %d", k, a.sum, a.n, a.max))
		}
		slices.Sort(want)
		ag := &logical.Aggregate{Input: lrep, Groups: []expr.Expr{col(l, 0)},
			Aggs:  []expr.AggFunc{agg(t, "sum", col(l, 1)), agg(t, "count", lit(1)), agg(t, "max", col(l, 1))},
			Names: []string{"s", "n", "m"}}
		for _, par := range []int{1, 2, 4} {
			for _, capacity := range []int{1, 8} {
				got, err := e.run(ag, par, capacity)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d round %d aggregate partitions %d capacity %d:\ngot  %v\nwant %v", seed, round, par, capacity, got, want)
				}
			}
		}
	}
}
