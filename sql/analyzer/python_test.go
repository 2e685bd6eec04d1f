package analyzer_test

import (
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// pyUDF is a Python function call as Spark Connect sends it.
func pyUDF(name string, evalType int32, out sqltypes.DataType, args ...plan.Expr) *plan.PythonUDF {
	return &plan.PythonUDF{Name: name, PythonFunction: plan.PythonFunction{EvalType: evalType, Command: []byte("pickled " + name), PythonVer: "3.12"},
		OutputType: out, Deterministic: true, Args: args}
}

// registeredPython is the session's registered Python functions of the tests (plus_one: a
// pandas UDF returning bigint; upper shadows the builtin).
func registeredPython(name string) (*plan.PythonUDF, bool) {
	switch name {
	case "plus_one":
		return pyUDF("plus_one", 200, sqltypes.LongType), true
	case "upper":
		return pyUDF("upper", 101, sqltypes.StringType), true
	}
	return nil, false
}

func init() {
	structOut := sqltypes.StructType(field("a", sqltypes.IntegerType, true), field("n", sqltypes.LongType, true))
	for name, build := range map[string]func() plan.Relation{
		"python-select": func() plan.Relation {
			// t.select(f(a), f(a) + 1, b)
			return project(tbl("t", 0), pyUDF("f", 200, sqltypes.LongType, col("a")),
				fn("+", pyUDF("f", 200, sqltypes.LongType, col("a")), i32(1)), col("b"))
		},
		"python-nested": func() plan.Relation {
			// t.select(g(f(a), c)): f is computed in a node below g's.
			return project(tbl("t", 0), as(pyUDF("g", 101, sqltypes.DoubleType, pyUDF("f", 101, sqltypes.LongType, col("a")), col("c")), "r"))
		},
		"python-mixed-eval-types": func() plan.Relation {
			// f (arrow) and p (pandas) are independent but of different eval types: two nodes.
			return project(tbl("t", 0), pyUDF("f", 101, sqltypes.LongType, col("a")), pyUDF("p", 200, sqltypes.StringType, col("b")))
		},
		"python-scalar-iter-one-per-node": func() plan.Relation {
			// worker.py runs one iterator UDF per task: two independent ones get a node each.
			return project(tbl("t", 0), pyUDF("it1", 204, sqltypes.LongType, col("a")), pyUDF("it2", 204, sqltypes.LongType, col("a")),
				pyUDF("s1", 200, sqltypes.LongType, col("a")), pyUDF("s2", 200, sqltypes.LongType, col("a")))
		},
		"python-grouped-agg-nested-python": func() plan.Relation {
			// mean(mean(c)): Spark's NESTED_AGGREGATE_FUNCTION, as for built-in aggregates.
			return groupBy(tbl("t", 0), exprs(col("b")), col("b"),
				pyUDF("mean", 202, sqltypes.DoubleType, pyUDF("mean", 202, sqltypes.DoubleType, col("c"))))
		},
		"python-filter": func() plan.Relation {
			return &plan.Filter{Input: tbl("t", 0), Condition: pyUDF("keep", 200, sqltypes.BooleanType, col("a"), col("c"))}
		},
		"python-with-columns": func() plan.Relation {
			return &plan.WithColumns{Input: tbl("t", 0), Aliases: []plan.Alias{
				{Child: pyUDF("f", 200, sqltypes.LongType, col("a")), Names: []string{"a"}},
				{Child: pyUDF("g", 200, sqltypes.StringType, col("b")), Names: []string{"z"}}}}
		},
		"python-named-args": func() plan.Relation {
			u := pyUDF("f", 200, sqltypes.LongType, col("a"), col("c"))
			u.ArgNames = []string{"", "y"}
			return project(tbl("t", 0), u)
		},
		"python-grouped-agg-in-select-list": func() plan.Relation {
			return &plan.Filter{Input: tbl("t", 0), Condition: fn(">", pyUDF("mean", 202, sqltypes.DoubleType, col("c")), i32(0))}
		},
		"python-chained": func() plan.Relation {
			// t.select(h(g(f(a))), g(b)): h∘g∘f is one chained function; g(b) shares the node.
			return project(tbl("t", 0), pyUDF("h", 200, sqltypes.LongType, pyUDF("g", 200, sqltypes.LongType, pyUDF("f", 200, sqltypes.LongType, col("a")))),
				pyUDF("g", 200, sqltypes.LongType, col("b")))
		},
		"python-chain-breaks": func() plan.Relation {
			// an inner call of another eval type, or one of two arguments, is its own node.
			return project(tbl("t", 0), pyUDF("g", 200, sqltypes.LongType, pyUDF("f", 101, sqltypes.LongType, col("a"))),
				pyUDF("k", 200, sqltypes.LongType, pyUDF("f", 200, sqltypes.LongType, col("a")), col("c")))
		},
		"python-grouped-agg": func() plan.Relation {
			// t.groupBy(b).agg(mean(c), mean(c) + 1 AS m1, cnt(a)): one AggregateInPandas node,
			// mean(c) computed once.
			return groupBy(tbl("t", 0), exprs(col("b")), col("b"), pyUDF("mean", 202, sqltypes.DoubleType, col("c")),
				as(fn("+", pyUDF("mean", 202, sqltypes.DoubleType, col("c")), i32(1)), "m1"), pyUDF("cnt", 202, sqltypes.LongType, col("a")))
		},
		"python-grouped-agg-global-select": func() plan.Relation {
			// t.select(mean(c)): a global aggregation, as in Spark.
			return project(tbl("t", 0), pyUDF("mean", 202, sqltypes.DoubleType, col("c")))
		},
		"python-grouped-agg-having": func() plan.Relation {
			return &plan.Filter{Input: groupBy(tbl("t", 0), exprs(col("b")), col("b")),
				Condition: fn(">", pyUDF("mean", 202, sqltypes.DoubleType, col("c")), i32(0))}
		},
		"python-grouped-agg-mixed": func() plan.Relation {
			return groupBy(tbl("t", 0), exprs(col("b")), pyUDF("mean", 202, sqltypes.DoubleType, col("c")), fn("sum", col("a")))
		},
		"python-grouped-agg-nested": func() plan.Relation {
			return groupBy(tbl("t", 0), exprs(col("b")), pyUDF("mean", 202, sqltypes.DoubleType, fn("sum", col("c"))))
		},
		"python-grouped-agg-rollup": func() plan.Relation {
			return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupRollup, Grouping: exprs(col("b")),
				Aggs: exprs(col("b"), pyUDF("mean", 202, sqltypes.DoubleType, col("c")))}
		},
		"python-in-sort": func() plan.Relation {
			return &plan.Sort{Input: tbl("t", 0), Order: []plan.SortOrder{{Child: pyUDF("f", 200, sqltypes.LongType, col("a"))}}, IsGlobal: true}
		},
		"python-in-grouping": func() plan.Relation {
			// t.groupBy(f(a).alias("k")).agg(sum(g(b)).alias("s")): f(a) and g(b) are computed
			// below the Aggregate, the output's f(a) (another call, equal) reads the group.
			return groupBy(tbl("t", 0), exprs(as(pyUDF("f", 101, sqltypes.LongType, col("a")), "k")),
				as(pyUDF("f", 101, sqltypes.LongType, col("a")), "k"), as(fn("sum", pyUDF("g", 101, sqltypes.LongType, col("b"))), "s"))
		},
		"python-over-grouping": func() plan.Relation {
			// ….select(h(k, s)) over the aggregation above: a plain select.
			agg := groupBy(tbl("t", 0), exprs(as(pyUDF("f", 101, sqltypes.LongType, col("a")), "k")),
				as(pyUDF("f", 101, sqltypes.LongType, col("a")), "k"), as(fn("sum", pyUDF("g", 101, sqltypes.LongType, col("b"))), "s"))
			return project(agg, as(pyUDF("h", 101, sqltypes.LongType, col("k"), col("s")), "t"))
		},
		"python-above-aggregate": func() plan.Relation {
			// t.groupBy(b).agg(f(sum(a)), f(sum(a)) + 1, g(b), h(f(sum(a)))): f(sum(a)) (once) and
			// g(b) read the aggregation's results, h a level above f.
			return groupBy(tbl("t", 0), exprs(col("b")), pyUDF("f", 200, sqltypes.LongType, fn("sum", col("a"))),
				fn("+", pyUDF("f", 200, sqltypes.LongType, fn("sum", col("a"))), i32(1)),
				pyUDF("g", 200, sqltypes.StringType, col("b")),
				pyUDF("h", 101, sqltypes.LongType, pyUDF("f", 200, sqltypes.LongType, fn("sum", col("a")))))
		},
		"python-global-aggregate": func() plan.Relation {
			// t.select(f(sum(g(a)))): g below the global Aggregate, f above it.
			return project(tbl("t", 0), pyUDF("f", 101, sqltypes.LongType, fn("sum", pyUDF("g", 101, sqltypes.LongType, col("a")))))
		},
		"python-having": func() plan.Relation {
			return &plan.Filter{Input: groupBy(tbl("t", 0), exprs(col("b")), col("b")),
				Condition: fn(">", pyUDF("f", 200, sqltypes.LongType, fn("sum", col("a"))), i32(0))}
		},
		"python-sort-over-aggregate": func() plan.Relation {
			return &plan.Sort{Input: groupBy(tbl("t", 0), exprs(col("b")), col("b")),
				Order: []plan.SortOrder{{Child: pyUDF("f", 200, sqltypes.LongType, fn("count", star()))}}, IsGlobal: true}
		},
		"python-aggregate-missing-group": func() plan.Relation {
			return groupBy(tbl("t", 0), exprs(col("b")), pyUDF("f", 200, sqltypes.LongType, col("a")))
		},
		"python-nondeterministic-in-aggregate": func() plan.Relation {
			nd := pyUDF("rnd", 100, sqltypes.IntegerType)
			nd.Deterministic = false
			return groupBy(tbl("t", 0), exprs(col("b")), fn("sum", nd))
		},
		"python-nondeterministic-not-shared": func() plan.Relation {
			// groupBy(rnd()).agg(rnd()): two calls of a nondeterministic function are two values.
			nd := func() *plan.PythonUDF {
				u := pyUDF("rnd", 100, sqltypes.IntegerType)
				u.Deterministic = false
				return u
			}
			return groupBy(tbl("t", 0), exprs(nd()), nd())
		},
		"python-sort-two-keys": func() plan.Relation {
			return &plan.Sort{Input: tbl("t", 0), Order: []plan.SortOrder{{Child: pyUDF("f", 200, sqltypes.LongType, col("a")), Descending: true},
				{Child: col("b")}}, IsGlobal: true}
		},
		"python-grouped-agg-with-scalar": func() plan.Relation {
			// t.groupBy(b).agg(f(mean(g(c)))): g below the AggregateInPandas, f above it.
			return groupBy(tbl("t", 0), exprs(col("b")), pyUDF("f", 200, sqltypes.DoubleType,
				pyUDF("mean", 202, sqltypes.DoubleType, pyUDF("g", 200, sqltypes.DoubleType, col("c")))))
		},
		"python-join-one-side": func() plan.Relation {
			// t.join(s, f(t.a) == s.d): f reads the left side only, runs there; an equi-join key.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.InnerJoin,
				Condition: fn("==", pyUDF("f", 101, sqltypes.LongType, col("t", "a")), col("s", "d"))}
		},
		"python-join-keys-both-sides": func() plan.Relation {
			// t.join(s, [f(t.a) == f(s.a), t.c > 0]): each side computes its own f.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.InnerJoin,
				Condition: fn("and", fn("==", pyUDF("f", 101, sqltypes.LongType, col("t", "a")), pyUDF("f", 101, sqltypes.LongType, col("s", "a"))),
					fn(">", col("t", "c"), i32(0)))}
		},
		"python-join-crossing": func() plan.Relation {
			// t.join(s, [eq(t.a, s.a), t.a == s.d]): eq reads both sides: a filter over the join.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.InnerJoin,
				Condition: fn("and", pyUDF("eq", 100, sqltypes.BooleanType, col("t", "a"), col("s", "a")), fn("==", col("t", "a"), col("s", "d")))}
		},
		"python-join-crossing-only": func() plan.Relation {
			// t.join(s, eq(t.a, s.a)): nothing left for the join: a cross join under the filter.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.InnerJoin,
				Condition: pyUDF("eq", 100, sqltypes.BooleanType, col("t", "a"), col("s", "a"))}
		},
		"python-join-left-outer-one-side": func() plan.Relation {
			// t.join(s, f(t.a) == cast(s.d as string), "left_outer"): f runs on the left side.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.LeftOuterJoin,
				Condition: fn("==", pyUDF("f", 100, sqltypes.StringType, col("t", "a")), plan.Cast{Child: col("s", "d"), To: sqltypes.StringType})}
		},
		"python-join-left-outer-crossing": func() plan.Relation {
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.LeftOuterJoin,
				Condition: fn("and", pyUDF("eq", 100, sqltypes.BooleanType, col("t", "a"), col("s", "a")), fn("==", col("t", "a"), col("s", "d")))}
		},
		"python-join-semi-crossing": func() plan.Relation {
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.LeftSemiJoin,
				Condition: pyUDF("eq", 100, sqltypes.BooleanType, col("t", "a"), col("s", "a"))}
		},
		"python-join-semi-one-side": func() plan.Relation {
			// a left semi join keeps the left columns only: the right side's hidden column goes.
			return &plan.Join{Left: alias(tbl("t", 0), "t"), Right: alias(tbl("s", 0), "s"), Type: plan.LeftSemiJoin,
				Condition: fn("==", col("t", "a"), pyUDF("f", 101, sqltypes.IntegerType, col("s", "d")))}
		},
		"python-map-in-pandas": func() plan.Relation {
			return &plan.MapInPython{Input: tbl("t", 0), Func: pyUDF("func", 205, structOut)}
		},
		"python-map-not-struct": func() plan.Relation {
			return &plan.MapInPython{Input: tbl("t", 0), Func: pyUDF("func", 205, sqltypes.LongType)}
		},
		"python-map-wrong-eval-type": func() plan.Relation {
			return &plan.MapInPython{Input: tbl("t", 0), Func: pyUDF("func", 200, structOut)}
		},
		"python-apply-in-pandas": func() plan.Relation {
			return &plan.GroupMapInPython{Input: tbl("t", 0), Grouping: exprs(col("b")), Func: pyUDF("func", 201, structOut)}
		},
		"python-cogroup": func() plan.Relation {
			return &plan.CoGroupMapInPython{Left: tbl("t", 0), Right: tbl("s", 0), LeftGrouping: exprs(col("a")),
				RightGrouping: exprs(col("d")), Func: pyUDF("func", 206, structOut)}
		},
	} {
		planCases[name] = build
	}
}
