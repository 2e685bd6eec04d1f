package analyzer_test

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Compact constructors for hand-built plans, shaped as Spark Connect sends DataFrame calls.

func tbl(name string, planID int64) *plan.NamedTable {
	return &plan.NamedTable{RelCommon: plan.RelCommon{PlanID: planID}, Name: []string{name}}
}

func col(parts ...string) plan.Expr { return plan.Col(parts...) }

func pcol(planID int64, name string) plan.Expr {
	return plan.ColumnRef{Name: []string{name}, PlanID: planID}
}

func fn(name string, args ...plan.Expr) plan.Expr { return plan.Fn(name, args...) }

func i32(v int32) plan.Expr { return plan.Lit(v, sqltypes.IntegerType) }

func i64(v int64) plan.Expr { return plan.Lit(v, sqltypes.LongType) }

func str(v string) plan.Expr { return plan.Lit(v, sqltypes.StringType) }

func as(e plan.Expr, name string) plan.Expr { return plan.Alias{Child: e, Names: []string{name}} }

func star(target ...string) plan.Expr { return plan.Star{Target: target} }

func project(in plan.Relation, exprs ...plan.Expr) *plan.Project {
	return &plan.Project{Input: in, Exprs: exprs}
}

func groupBy(in plan.Relation, grouping []plan.Expr, aggs ...plan.Expr) *plan.Aggregate {
	return &plan.Aggregate{Input: in, Type: plan.GroupBy, Grouping: grouping, Aggs: aggs}
}

func exprs(es ...plan.Expr) []plan.Expr { return es }

func alias(in plan.Relation, name string) *plan.SubqueryAlias {
	return &plan.SubqueryAlias{Input: in, Alias: name}
}

var planCases = map[string]func() plan.Relation{
	"select-columns": func() plan.Relation {
		return project(tbl("t", 0), col("A"), col("t", "b"), as(fn("+", col("a"), i32(1)), "a1"))
	},
	"unresolved-suggestions": func() plan.Relation {
		return project(tbl("t", 0), col("bb"))
	},
	"unresolved-qualified": func() plan.Relation {
		return project(alias(tbl("t", 0), "x"), col("y", "a"))
	},
	"unresolved-many-candidates": func() plan.Relation {
		return project(&plan.Join{Left: tbl("t", 0), Right: tbl("u", 0), Type: plan.InnerJoin}, col("aa"))
	},
	"ambiguous": func() plan.Relation {
		return project(&plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.InnerJoin}, col("a"))
	},
	"qualified-disambiguates": func() plan.Relation {
		return project(&plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.InnerJoin}, col("s", "a"), col("t", "a"))
	},
	"self-join-plan-id": func() plan.Relation {
		// df = spark.table("t"); df2 = df.filter(df.c > 0); df.join(df2, df.a == df2.a).select(df.b, df2.c)
		df := func() plan.Relation { return tbl("t", 1) }
		df2 := &plan.Filter{RelCommon: plan.RelCommon{PlanID: 2}, Input: df(),
			Condition: fn(">", pcol(1, "c"), i32(0))}
		j := &plan.Join{RelCommon: plan.RelCommon{PlanID: 3}, Left: df(), Right: df2, Type: plan.InnerJoin,
			Condition: fn("==", pcol(1, "a"), pcol(2, "a"))}
		return project(j, pcol(1, "b"), pcol(2, "c"))
	},
	"self-join-alias": func() plan.Relation {
		j := &plan.Join{Left: alias(tbl("t", 0), "l"), Right: alias(tbl("t", 0), "r"), Type: plan.LeftOuterJoin,
			Condition: fn("==", col("l", "a"), col("r", "a"))}
		return project(j, col("l", "a"), col("r", "b"))
	},
	"star": func() plan.Relation {
		j := &plan.Join{Left: alias(tbl("t", 0), "l"), Right: alias(tbl("s", 0), "r"), Type: plan.InnerJoin,
			Condition: fn("==", col("l", "a"), col("r", "a"))}
		return project(j, star("r"), star())
	},
	"star-struct-fields": func() plan.Relation {
		return project(tbl("n", 0), col("id"), star("st"), col("st", "g"))
	},
	"star-unknown-target": func() plan.Relation {
		return project(tbl("t", 0), star("zz"))
	},
	"star-in-function": func() plan.Relation {
		return project(tbl("s", 0), fn("coalesce", star()))
	},
	"count-star": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(col("b")), col("b"), fn("count", star()),
			fn("*", fn("count", star()), i32(2)), as(fn("+", fn("sum", col("a")), i32(1)), "s1"))
	},
	"global-aggregate": func() plan.Relation {
		return project(tbl("t", 0), fn("sum", col("a")), fn("max", col("c")))
	},
	"global-aggregate-missing-group-by": func() plan.Relation {
		return project(tbl("t", 0), col("b"), fn("sum", col("a")))
	},
	"missing-aggregation": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(col("b")), col("b"), col("a"), fn("sum", col("c")))
	},
	"group-by-expression": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(fn("+", col("a"), i32(1))), fn("+", col("a"), i32(1)),
			fn("avg", col("c")))
	},
	"group-by-ordinal": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(i32(1)), col("b"), fn("count", star()))
	},
	"group-by-ordinal-out-of-range": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(i32(3)), col("b"), fn("count", star()))
	},
	"group-by-ordinal-aggregate": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(i32(2)), col("b"), fn("count", star()))
	},
	"group-by-alias": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(col("k")), as(fn("lower", col("b")), "k"), fn("count", star()))
	},
	"group-by-all": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(col("all")), col("b"), fn("sum", col("a")))
	},
	"count-distinct": func() plan.Relation {
		return groupBy(tbl("t", 0), nil, plan.Call{Name: "count", Args: exprs(col("a")), Distinct: true})
	},
	"nested-aggregate": func() plan.Relation {
		return project(tbl("t", 0), fn("sum", fn("max", col("a"))))
	},
	"aggregate-in-where": func() plan.Relation {
		return &plan.Filter{Input: tbl("t", 0), Condition: fn(">", fn("sum", col("a")), i32(1))}
	},
	"having": func() plan.Relation {
		agg := groupBy(tbl("t", 0), exprs(col("b")), col("b"), as(fn("count", star()), "n"))
		return &plan.Filter{Input: agg, Condition: fn(">", fn("sum", col("c")), i32(10))}
	},
	"having-alias": func() plan.Relation {
		agg := groupBy(tbl("t", 0), exprs(col("b")), col("b"), as(fn("count", star()), "n"))
		return &plan.Filter{Input: agg, Condition: fn(">", col("n"), i32(1))}
	},
	"filter-not-boolean": func() plan.Relation {
		return &plan.Filter{Input: tbl("t", 0), Condition: col("a")}
	},
	"order-by-missing-column": func() plan.Relation {
		return &plan.Sort{Input: project(tbl("t", 0), col("a")), IsGlobal: true,
			Order: []plan.SortOrder{{Child: col("c"), Descending: true}}}
	},
	"order-by-alias-and-ordinal": func() plan.Relation {
		return &plan.Sort{Input: project(tbl("t", 0), as(col("a"), "x"), col("b")), IsGlobal: true,
			Order: []plan.SortOrder{{Child: col("x"), NullsFirst: true}, {Child: i32(2), Descending: true}}}
	},
	"order-by-aggregate": func() plan.Relation {
		agg := groupBy(tbl("t", 0), exprs(col("b")), col("b"))
		return &plan.Sort{Input: agg, IsGlobal: true,
			Order: []plan.SortOrder{{Child: fn("count", star()), Descending: true}}}
	},
	"union-widen": func() plan.Relation {
		return &plan.SetOp{Left: project(tbl("t", 0), col("a"), col("b")), Right: project(tbl("s", 0), col("d"), str("x")),
			Type: plan.Union, IsAll: true}
	},
	"union-distinct": func() plan.Relation {
		return &plan.SetOp{Left: project(tbl("t", 0), col("a")), Right: project(tbl("s", 0), col("a")), Type: plan.Union}
	},
	"union-mismatch": func() plan.Relation {
		return &plan.SetOp{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.Union, IsAll: true}
	},
	"union-incompatible": func() plan.Relation {
		return &plan.SetOp{Left: project(tbl("n", 0), col("st")), Right: project(tbl("s", 0), col("a")),
			Type: plan.Union, IsAll: true}
	},
	"union-by-name-missing": func() plan.Relation {
		return &plan.SetOp{Left: tbl("t", 0), Right: tbl("u", 0), Type: plan.Union, IsAll: true, ByName: true, AllowMissing: true}
	},
	"except-all": func() plan.Relation {
		return &plan.SetOp{Left: project(tbl("t", 0), col("a")), Right: project(tbl("s", 0), col("d")),
			Type: plan.Except, IsAll: true}
	},
	"join-keys": func() plan.Relation {
		cond := fn("and", fn("and", fn("==", col("r", "a"), col("l", "a")), fn(">", col("l", "c"), col("r", "d"))),
			fn("==", col("l", "b"), str("x")))
		return &plan.Join{Left: alias(tbl("t", 0), "l"), Right: alias(tbl("s", 0), "r"), Type: plan.InnerJoin, Condition: cond}
	},
	"join-key-widening": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.LeftSemiJoin,
			Condition: fn("==", col("t", "a"), col("s", "d"))}
	},
	"join-cross": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.InnerJoin}
	},
	"join-using": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("u", 0), Type: plan.InnerJoin, UsingColumns: []string{"a"}}
	},
	"join-using-full": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.FullOuterJoin, UsingColumns: []string{"a"}}
	},
	"join-using-right": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.RightOuterJoin, UsingColumns: []string{"a"}}
	},
	"join-using-missing": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.InnerJoin, UsingColumns: []string{"b"}}
	},
	"join-full-nullability": func() plan.Relation {
		return &plan.Join{Left: tbl("s", 0), Right: tbl("n", 0), Type: plan.FullOuterJoin,
			Condition: fn("==", col("s", "a"), col("n", "id"))}
	},
	"with-columns": func() plan.Relation {
		return &plan.WithColumns{Input: tbl("t", 0), Aliases: []plan.Alias{
			{Child: fn("*", col("a"), i32(2)), Names: []string{"A"}},
			{Child: fn("upper", col("b")), Names: []string{"e"}},
		}}
	},
	"with-columns-renamed": func() plan.Relation {
		return &plan.WithColumnsRenamed{Input: tbl("t", 0), Renames: [][2]string{{"a", "x"}, {"zz", "y"}, {"x", "z"}}}
	},
	"drop": func() plan.Relation {
		return &plan.Drop{Input: tbl("t", 0), Names: []string{"B", "nope"}, Columns: exprs(col("c"), col("missing"))}
	},
	"to-df-mismatch": func() plan.Relation {
		return &plan.ToDF{Input: tbl("t", 0), Names: []string{"x"}}
	},
	"to-df": func() plan.Relation {
		return &plan.ToDF{Input: tbl("s", 0), Names: []string{"x", "y"}}
	},
	"alias-columns": func() plan.Relation {
		return project(&plan.SubqueryAlias{Input: tbl("s", 0), Alias: "q", ColumnNames: []string{"x", "y"}}, col("q", "y"))
	},
	"to-schema": func() plan.Relation {
		return &plan.ToSchema{Input: tbl("t", 0), Schema: sqltypes.Schema{
			{Name: "c", Type: sqltypes.StringType, Nullable: true}, {Name: "a", Type: sqltypes.LongType, Nullable: true}}}
	},
	"range": func() plan.Relation {
		return &plan.Limit{N: 3, Input: &plan.Offset{N: 2, Input: &plan.Range{Start: 0, End: 10, Step: 1}}}
	},
	"range-step-zero": func() plan.Relation {
		return &plan.Range{End: 10}
	},
	"offset-over-limit": func() plan.Relation {
		return &plan.Offset{N: 2, Input: &plan.Limit{N: 5, Input: tbl("t", 0)}}
	},
	"values": func() plan.Relation {
		return &plan.Values{Rows: [][]plan.Expr{{i32(1), str("a")}, {i64(2), plan.Lit(nil, sqltypes.NullType)}}}
	},
	"local-relation-schema": func() plan.Relation {
		as := arrow.NewSchema([]arrow.Field{{Name: "_1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "_2", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		s := sqltypes.Schema{{Name: "id", Type: sqltypes.IntegerType, Nullable: true},
			{Name: "name", Type: sqltypes.StringType, Nullable: true}}
		return &plan.LocalRelation{ArrowSchema: as, Schema: &s}
	},
	"local-relation-schema-only": func() plan.Relation {
		s := sqltypes.Schema{{Name: "id", Type: sqltypes.IntegerType, Nullable: true}}
		return &plan.LocalRelation{Schema: &s}
	},
	"table-not-found": func() plan.Relation {
		return tbl("nope", 0)
	},
	"data-source": func() plan.Relation {
		return project(&plan.DataSource{Format: "rate", IsStreaming: true}, col("value"))
	},
	"deduplicate": func() plan.Relation {
		return &plan.Deduplicate{Input: tbl("t", 0), Columns: []string{"B", "a"}}
	},
	"deduplicate-missing": func() plan.Relation {
		return &plan.Deduplicate{Input: tbl("t", 0), Columns: []string{"q"}}
	},
	"na-fill": func() plan.Relation {
		return &plan.NAFill{Input: tbl("t", 0), Values: []plan.Literal{{Value: int64(0), Type: sqltypes.LongType}}}
	},
	"na-drop": func() plan.Relation {
		return &plan.NADrop{Input: tbl("t", 0), Cols: []string{"a", "c"}}
	},
	"rollup": func() plan.Relation {
		return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupRollup, Grouping: exprs(col("b"), col("a")),
			Aggs: exprs(col("b"), col("a"), fn("sum", col("c")))}
	},
	"pivot-without-values": func() plan.Relation {
		return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupPivot, Grouping: exprs(col("b")),
			Aggs: exprs(fn("sum", col("c"))), PivotCol: col("a")}
	},
	"pivot": func() plan.Relation {
		return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupPivot, Grouping: exprs(col("b")),
			Aggs: exprs(fn("sum", col("c"))), PivotCol: col("a"),
			PivotValues: []plan.Literal{{Value: int32(1), Type: sqltypes.IntegerType}, {Type: sqltypes.NullType}}}
	},
	"pivot-two-aggregates": func() plan.Relation {
		return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupPivot, Grouping: exprs(col("a")),
			Aggs: exprs(as(fn("count", star()), "n"), fn("max", col("c"))), PivotCol: col("b"),
			PivotValues: []plan.Literal{{Value: "x", Type: sqltypes.StringType}, {Value: "y", Type: sqltypes.StringType}}}
	},
	"struct-field": func() plan.Relation {
		return project(tbl("n", 0), col("n", "st", "f"), col("st", "g"))
	},
	"case-insensitive-dedup-names": func() plan.Relation {
		return project(tbl("t", 0), col("B"))
	},
	"window-unordered": func() plan.Relation {
		return project(tbl("t", 0), plan.Window{Func: fn("row_number")})
	},
	"repartition": func() plan.Relation {
		return &plan.Repartition{Input: tbl("t", 0), Exprs: exprs(col("a"))}
	},
	"sample-hint-watermark": func() plan.Relation {
		seed := int64(7)
		return &plan.Sample{Input: &plan.Hint{Name: "broadcast", Input: &plan.WithWatermark{Input: tbl("t", 0),
			EventTime: "b", Delay: "1 minute"}}, LowerBound: 0, UpperBound: 0.5, Seed: &seed}
	},
	"watermark": func() plan.Relation {
		return &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "timestamp", Delay: "10 seconds"}
	},
	"watermark-window-count": func() plan.Relation {
		wm := &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "timestamp", Delay: "5 seconds"}
		return groupBy(wm, exprs(fn("window", col("timestamp"), str("10 seconds"), str("5 seconds"))), fn("count", i32(1)))
	},
	"watermark-not-timestamp": func() plan.Relation {
		return &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "value", Delay: "10 seconds"}
	},
	"watermark-bad-delay": func() plan.Relation {
		return &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "timestamp", Delay: "ten seconds"}
	},
	"watermark-negative-delay": func() plan.Relation {
		return &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "timestamp", Delay: "-1 second"}
	},
	"watermark-missing-column": func() plan.Relation {
		return &plan.WithWatermark{Input: &plan.DataSource{Format: "rate", IsStreaming: true},
			EventTime: "ts", Delay: "1 second"}
	},
	"sql-named-param": func() plan.Relation {
		return &plan.SQLQuery{Query: "SELECT a FROM t WHERE a > :lo AND b = :name",
			Args: map[string]plan.Expr{"lo": i32(1), "name": str("x")}}
	},
	"sql-positional-param": func() plan.Relation {
		return &plan.SQLQuery{Query: "SELECT a + ? AS z FROM t", PosArgs: exprs(i64(10))}
	},
	"sql-unbound-param": func() plan.Relation {
		return &plan.SQLQuery{Query: "SELECT a FROM t WHERE a > :lo", Args: map[string]plan.Expr{"hi": i32(1)}}
	},
	"aggregate-filter": func() plan.Relation {
		return groupBy(tbl("t", 0), exprs(col("b")), col("b"),
			plan.Call{Name: "count", Args: exprs(star()), Filter: fn(">", col("a"), i32(1))},
			plan.Call{Name: "sum", Args: exprs(col("c")), Filter: fn("<", col("a"), i32(5))})
	},
	"filter-missing-column": func() plan.Relation {
		// df.select("a").filter(col("c") > 1)
		return &plan.Filter{Input: project(tbl("t", 0), col("a")), Condition: fn(">", col("c"), i32(1))}
	},
	"join-expression-keys": func() plan.Relation {
		cond := fn("and", fn("==", fn("+", col("t", "a"), i32(1)), col("s", "a")), fn("<=>", col("t", "c"), col("s", "d")))
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.LeftAntiJoin, Condition: cond}
	},
	"join-condition-not-boolean": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.InnerJoin, Condition: col("t", "a")}
	},
	"having-global": func() plan.Relation {
		return &plan.Filter{Input: groupBy(tbl("t", 0), nil, fn("count", star())),
			Condition: fn(">", fn("max", col("a")), i32(0))}
	},
	"group-by-aliased-grouping": func() plan.Relation {
		// df.groupBy(col("b").alias("k")).count(), with the grouping expressions leading the outputs.
		k := as(col("b"), "k")
		return groupBy(tbl("t", 0), exprs(k), k, as(fn("count", i32(1)), "count"))
	},
	"cube": func() plan.Relation {
		return &plan.Aggregate{Input: tbl("t", 0), Type: plan.GroupCube, Grouping: exprs(col("a"), col("b")),
			Aggs: exprs(col("a"), col("b"), fn("count", star()))}
	},
	"plan-id-after-aggregate": func() plan.Relation {
		// df.groupBy(df.b).count().filter(df.b == "x")
		agg := &plan.Aggregate{RelCommon: plan.RelCommon{PlanID: 2}, Input: tbl("t", 1), Type: plan.GroupBy,
			Grouping: exprs(pcol(1, "b")), Aggs: exprs(pcol(1, "b"), as(fn("count", i32(1)), "count"))}
		return &plan.Filter{Input: agg, Condition: fn("==", pcol(1, "b"), str("x"))}
	},
	"self-join-same-plan-ambiguous": func() plan.Relation {
		// df.join(df, df.a == df.a): both sides are the same relation.
		return project(&plan.Join{Left: tbl("t", 1), Right: tbl("t", 1), Type: plan.InnerJoin}, pcol(1, "a"))
	},
	"join-using-right-reference": func() plan.Relation {
		// df.join(df2, "a").select(df2["a"], col("u.a"), df2["x"])
		j := &plan.Join{Left: tbl("t", 1), Right: tbl("u", 2), Type: plan.InnerJoin, UsingColumns: []string{"a"}}
		return project(j, pcol(2, "a"), col("u", "a"), pcol(2, "x"))
	},
	"join-using-anti": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("u", 0), Type: plan.LeftAntiJoin, UsingColumns: []string{"a"}}
	},
	"join-using-left-case-insensitive": func() plan.Relation {
		return &plan.Join{Left: tbl("t", 0), Right: tbl("s", 0), Type: plan.LeftOuterJoin,
			UsingColumns: []string{"A"}}
	},
	"with-column-explode": func() plan.Relation {
		// df.withColumn("e", explode("arr"))
		return &plan.WithColumns{Input: tbl("g", 0), Aliases: []plan.Alias{{Child: fn("explode", col("arr")), Names: []string{"e"}}}}
	},
	"with-column-explode-replaces": func() plan.Relation {
		// df.withColumn("arr", explode("arr"))
		return &plan.WithColumns{Input: tbl("g", 0), Aliases: []plan.Alias{{Child: fn("explode", col("arr")), Names: []string{"arr"}}}}
	},
	"select-posexplode-multi-alias": func() plan.Relation {
		// df.select("id", posexplode("arr").alias("p", "v"))
		return project(tbl("g", 1), pcol(1, "id"), plan.Alias{Child: fn("posexplode", pcol(1, "arr")), Names: []string{"p", "v"}})
	},
	"pyspark-transform-lambda": func() plan.Relation {
		// df.select(transform("arr", lambda x: x + df.id))
		body := fn("+", plan.LambdaVar{Name: "x_1"}, pcol(1, "id"))
		return project(tbl("g", 1), fn("transform", col("arr"), plan.Lambda{Params: []string{"x_1"}, Body: body}))
	},
	"pyspark-aggregate-lambdas": func() plan.Relation {
		// df.select(aggregate("arr", lit(0), lambda acc, x: acc + x, lambda acc: acc * 2).alias("s"))
		merge := plan.Lambda{Params: []string{"acc_2", "x_3"}, Body: fn("+", plan.LambdaVar{Name: "acc_2"}, plan.LambdaVar{Name: "x_3"})}
		finish := plan.Lambda{Params: []string{"acc_4"}, Body: fn("*", plan.LambdaVar{Name: "acc_4"}, i32(2))}
		return project(tbl("g", 0), as(fn("aggregate", col("arr"), i32(0), merge, finish), "s"))
	},
	"star-plan-id": func() plan.Relation {
		// df.join(df2, "a").select(df2["*"])
		j := &plan.Join{Left: tbl("t", 1), Right: tbl("u", 2), Type: plan.InnerJoin, UsingColumns: []string{"a"}}
		return project(j, plan.Star{PlanID: 2})
	},
}
