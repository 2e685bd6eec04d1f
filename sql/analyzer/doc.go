// Package analyzer resolves package plan's unresolved relations into typed logical plans
// (package logical), binding expressions with package expr, following Spark's analyzer rules as
// a PySpark user sees them.
//
// Analyzer.Resolve walks a plan.Relation bottom-up. Every resolved node carries a scope: its
// output columns with their names, optional qualifiers (from SubqueryAlias, table aliases and
// temp view names) and the plan ids (plan.RelCommon.PlanID) of the relations they come from, so
// that df["col"] (ColumnRef with a PlanID) resolves against the relation it was taken from even
// in self-joins, and `t.a` resolves by qualifier. Names compare case-insensitively unless
// Analyzer.CaseSensitive.
//
// Rules implemented here, each as Spark applies them:
//   - column resolution: qualified names, plan ids, struct field access for dotted names that do
//     not name a column, star expansion (bare, qualified, struct.*; count(*) is count(1));
//     unknown names fail with UNRESOLVED_COLUMN and Spark's ordered suggestion list, ambiguous
//     ones with AMBIGUOUS_REFERENCE;
//   - aggregation: aggregate calls are extracted into logical.Aggregate, expressions over them and
//     over grouping expressions become a logical.Project on top; a Project with aggregate calls
//     and no GROUP BY is a global aggregate; GROUP BY ordinals, select-list aliases and ALL;
//     ROLLUP, CUBE and GROUPING SETS expand into a Union of Aggregates (grouping() and
//     grouping_id() fold to each set's constants); HAVING and ORDER BY over aggregates add
//     hidden aggregates and project them away; agg(x) FILTER (WHERE p) is agg(CASE WHEN p THEN
//     x END) named as Spark names it; PIVOT is one guarded aggregate per value (without
//     values, the distinct values are read first through Analyzer.Collect, as Spark's pivot(col)
//     runs that query eagerly; so does df.stat.crosstab, a pivot); ordered-set aggregates f(p) WITHIN GROUP (ORDER BY x [DESC]) (percentile_cont,
//     percentile_disc; within_group.go) bind through expr.BindOrderedSet, grouped and over
//     windows;
//   - metric views (metric_view.go; CREATE VIEW … WITH METRICS, package metricview): an
//     aggregate over one, through WHERE filters and an alias, reads its filtered source
//     projected to its dimensions and the source row, and measure(m) becomes m's aggregate
//     expression over that row (the item keeps Spark's name, measure(m)); the catalog refuses
//     any other read of a metric view;
//   - ORDER BY keys and filter conditions that read columns a projection drops are added to it
//     and projected away afterwards (ResolveMissingReferences); ORDER BY ordinals; ORDER BY ALL
//     (every output column, unless one is named all);
//   - hints (hints.go, Spark's ResolveHints): a join strategy hint (BROADCAST, MERGE,
//     SHUFFLE_HASH, SHUFFLE_REPLICATE_NL and their aliases) without parameters marks its input
//     with a logical.ResolvedHint; with relation names it marks the SubqueryAliases and tables
//     of its input so named (not below another alias); COALESCE, REPARTITION,
//     REPARTITION_BY_RANGE and REBALANCE repartition; other hints are dropped;
//   - set operations widen column types (expr.CommonType) and insert casts; joins split their
//     condition into equi-join keys and a residual, USING joins add Spark's output projection,
//     outer joins make the outer side nullable;
//   - subqueries (Spark's RewritePredicateSubquery, RewriteCorrelatedScalarSubquery,
//     PullupCorrelatedPredicates; subquery*.go): [NOT] IN and [NOT] EXISTS WHERE conjuncts
//     become semi/anti joins (NOT IN null-aware, also for (a, b) IN …); elsewhere (under OR, in
//     select lists) an ExistenceJoin built as a semi-join branch ∪ an anti-join branch with
//     the boolean value. A scalar subquery in a select list, filter, HAVING or aggregated select
//     list is a hidden column: uncorrelated, a one-row aggregate (SCALAR_SUBQUERY_TOO_MANY_ROWS
//     at run time for two rows) left-outer-joined once. A name that does not resolve inside a
//     subquery is an outer reference to the enclosing query (only that one, as in Spark); WHERE
//     conjuncts reading outer references are pulled up into the join's condition (equalities
//     as hash keys, the rest as the residual), the inner columns they read carried through
//     projections and grouped by at an aggregate (the domain route, the distinct outer values
//     joined in, for other predicates below an aggregate). A correlated scalar subquery is
//     left-outer-joined per correlation key with Spark's count bug handling (the value over no
//     rows when an outer row has no group); without an aggregate or with GROUP BY its rows are
//     counted per key (SCALAR_SUBQUERY_TOO_MANY_ROWS). Outer references elsewhere are
//     UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_REFERENCE, correlated predicates
//     under other operators than Project, Filter, Aggregate, Sort, Distinct (and LIMIT under
//     EXISTS) ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED;
//   - window functions (Spark's ExtractWindowExpressions; window.go): `f(…) OVER (…)` in a
//     select list or withColumns — over an aggregation too, where the function's arguments and
//     specification may use aggregates (sum(sum(x)) OVER ()) — becomes a column of a
//     logical.Window between the input (or Aggregate) and the Project, one Window per distinct
//     partition/order specification, equal functions sharing a column; a window function over
//     another's result is computed in a later Window. Functions: row_number, rank, dense_rank,
//     percent_rank, cume_dist, ntile, lag, lead, nth_value, first/last[_value] (IGNORE NULLS),
//     and every aggregate (FILTER allowed, DISTINCT is DISTINCT_WINDOW_FUNCTION_UNSUPPORTED).
//     Frames are resolved as Spark does: ranking functions and lag/lead fix theirs (a different
//     one is _LEGACY_ERROR_TEMP_1036), the default is RANGE UNBOUNDED PRECEDING..CURRENT ROW
//     with ORDER BY and the whole partition without; RANGE offsets need one numeric, date,
//     timestamp or interval order key. Names, types and nullability are Spark's ("RANK() OVER
//     (PARTITION BY k ORDER BY v ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT
//     ROW)"). A window-only function without OVER is WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE; a
//     window function in WHERE WINDOW_FUNCTION_NOT_ALLOWED_IN_CLAUSE, elsewhere (ORDER BY,
//     GROUP BY, join conditions) UNSUPPORTED_EXPR_FOR_OPERATOR. QUALIFY arrives from the parser
//     as a Filter over hidden window items;
//   - data frame operations (withColumns, withColumnsRenamed, drop, toDF, to(schema), na.fill,
//     na.drop, …) become Projects and Filters.
//   - generators (explode, posexplode, inline, stack, json_tuple and the _outer forms): one per
//     select list, at the top of its item (else UNSUPPORTED_GENERATOR.MULTI_GENERATOR /
//     NESTED_IN_EXPRESSIONS; anywhere else OUTSIDE_SELECT), possibly aliased with one name per
//     generated column (else UDTF_ALIAS_NUMBER_MISMATCH; several names on anything else are
//     MULTI_ALIAS_WITHOUT_GENERATOR). The select becomes Project(Generate(input)); over
//     aggregates, Project(Generate(aggregation)). withColumn(name, generator) and SQL
//     LATERAL VIEW [OUTER] (plan.Generate; generated columns qualified by the view's alias)
//     resolve the same way;
//   - higher-order functions: lambdas (plan.Lambda, PySpark's named lambda variables and SQL
//     x -> …) are bound with typed parameters from expr.LambdaParams, parameters shadowing
//     columns, and the call with expr.BindHigherOrder;
//   - withWatermark(col, delay) becomes a logical.Watermark: col must be a timestamp (or a
//     window struct), else EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE; the delay is an interval string
//     (expr.ParseInterval), never negative.
//   - Python functions (Spark's ExtractPythonUDFs): calls (*plan.PythonUDF, and SQL calls of
//     functions the session registered, Analyzer.PythonFunctions, which shadow builtins) in a
//     select list, filter condition or withColumns are computed by logical.PythonEval nodes
//     below the operator, as hidden columns the expression reads: each node holds the calls of
//     one eval type whose arguments are ready, so f(g(x, y)) is two nodes and independent calls
//     of one eval type share one; a call whose only argument is a call of the same Arrow eval
//     type (f(g(x))) is one chained function (logical.PythonFunc.Chained), as Spark chains
//     them. Equal deterministic calls (one function over equal bound arguments) share a column.
//     In an aggregation (ExtractPythonUDFFromAggregate, ExtractGroupingPythonUDFFromAggregate)
//     calls in grouping expressions and inside aggregate calls' arguments run below the
//     Aggregate, the select list's call equal to a grouping expression's reads its group, and
//     every other call of the select list, HAVING or ORDER BY runs in PythonEval nodes over the
//     Aggregate's results; a nondeterministic call in an aggregate's arguments is
//     AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION. Sort keys' calls run below the Sort.
//     In a join condition (ExtractPythonUDFFromJoinCondition) a call reading one side runs on
//     that side; a conjunct whose call reads both sides is a Filter over an inner join of the
//     rest (a cross join if nothing is left; with Analyzer.NoImplicitCartesian Spark's
//     implicit cartesian product error), UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE for other
//     join types. Elsewhere (repartition keys, lambda bodies, window specs…) they are refused;
//     map kinds are refused as columns. Grouped-aggregate
//     functions are aggregate calls: an aggregation whose calls are all grouped-aggregate
//     functions (of one eval type) becomes a logical.AggregateInPython (Spark's
//     AggregateInPandas; HAVING and select-list expressions over them as for Aggregate); mixed
//     with other aggregates it is INVALID_PANDAS_UDF_PLACEMENT; with ROLLUP, CUBE, GROUPING SETS or PIVOT
//     it is refused.
//     mapInPandas / mapInArrow, applyInPandas / applyInArrow and cogroup().applyInPandas /
//     applyInArrow become logical.MapInPython, GroupMapInPython and CoGroupMapInPython (their
//     eval type checked: INVALID_UDF_EVAL_TYPE; a non-struct return type INVALID_RETURN_TYPE;
//     cogroup keys widened to a common type). A Python UDTF call as a relation
//     (plan.PythonTableFunction), and a registered one (Analyzer.PythonTableFunctions, which
//     shadow builtins) called in FROM, becomes a logical.PythonUDTF over one empty row: its
//     arguments read no column, its columns are the declared return type's fields (aliased by
//     AS t(c1, …)); called in a lateral join (FROM t, LATERAL f(t.a); JOIN LATERAL, CROSS JOIN
//     LATERAL) it is a logical.PythonUDTF over t, its arguments reading t's columns per row
//     A builtin generator called so is a Generate over t. A TABLE argument (plan.TableArgument:
//     f(TABLE(t) [PARTITION BY k | WITH SINGLE PARTITION] [ORDER BY v])) makes the call run over
//     t's rows, the argument each row as a struct; PARTITION BY hash-partitions them by the keys
//     (appended to the struct as partition_by_<i>, logical.PythonUDTF.PartitionChildIndexes,
//     which the worker compares to restart the handler) and sorts within partitions by keys then
//     ORDER BY; WITH SINGLE PARTITION repartitions to one; the output is the function's columns
//     only. A second TABLE argument is TABLE_VALUED_FUNCTION_TOO_MANY_TABLE_ARGUMENTS unless
//     AllowMultipleTableArguments (then the call runs over their cross join); a TABLE
//     argument in a lateral join is a cross join of the left side with the call's rows. A UDTF
//     without a declared return type has its static analyze method run at analysis time
//     (Analyzer.AnalyzePythonUDTF, python_udtf_analyze.go): its result gives the columns, the
//     pickled AnalyzeResult the handler's __init__ receives, and the TABLE argument's
//     partitioning, ordering and selected columns (a call partitioning itself too is
//     TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INCOMPATIBLE_WITH_CALL).
//
// Inline data: LocalRelation keeps the caller's Arrow records (a user schema renames and casts
// them in a Project above); VALUES rows are evaluated once, coerced to each column's common type
// and built into one record. A data source read asks SourceSchemas for its schema (a single
// path is passed as the "path" option, as DataFrameReader.load does). spark.sql text is parsed
// here, with its named or positional parameters.
//
// FunctionNames is every function name a query can call (SHOW FUNCTIONS and the catalog list
// it): expr's registry plus the functions bound here (window-only functions, grouping,
// grouping_id) and those the front doors rewrite (cast, ||, range). TestFunctionCoverage holds it
// against Apache Spark 4.2's list (sql/expr/testdata/coverage) with the names not done yet.
//
// Cost: resolving is linear in the size of the plan's expressions (a chain of n operators, an
// IN list of n values, in plain and grouped queries), and Resolve stops with its context's
// error soon after the context is done: every relation checks it, binding checks it every
// checkEvery expressions, and spark.sql text is parsed with sql.ParseStatementContext.
//
// Errors are *sparkerr.Error with the error class Spark raises. Features the analyzer does not
// resolve (PIVOT without values when no Collect is set, a few correlated subquery shapes) fail with
// sparkerr.Unsupported naming them.
package analyzer
