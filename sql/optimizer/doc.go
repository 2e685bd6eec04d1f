// Package optimizer rewrites a resolved logical plan (package logical) into an equivalent one
// that runs faster: Optimize takes the analyzer's plan and returns the plan the planner builds.
// Every rule keeps the plan's output schema (names, types, order) and its results; a rule that
// cannot prove a rewrite safe leaves the plan as it is.
//
// Rules run in batches, in this order, each batch to a fixed point (or once):
//
//  0. join hints (once): every ResolvedHint (df.hint("broadcast"), SELECT /*+ BROADCAST(t) */)
//     moves into the nearest join above it, through single-input nodes, as the join's
//     LeftHint/RightHint; hints no join takes are dropped (Spark's EliminateResolvedHint). A
//     hinted join is not taken apart by the reordering (batch 3).
//  1. simplify (fixed point): constant folding of literal-only arithmetic, casts, comparisons
//     and boolean logic, and boolean simplification (x AND true, x OR false, NOT true, …); a
//     Filter on true is removed.
//  2. pushdown (fixed point): adjacent Filters merge; outer joins under a Filter that rejects
//     the padded side's NULLs become inner (or left/right) joins; Filter conjuncts move through
//     Project (substituting its expressions), Sort, Repartition, Distinct (key columns only),
//     Aggregate (grouping columns only), Union (into every input), Generate and PythonEval
//     (input columns only) and into the sides of a Join they read one side of; conjuncts over
//     both sides of an inner join become its equi-join keys (a = b with a over the left, b over
//     the right) or its residual; a join's own residual gives up single-side conjuncts and
//     equalities the same way; an OR whose disjuncts share conjuncts has them factored out
//     (TPC-H Q19). Conjuncts reaching a SourceScan are copied into its advisory Filters.
//     LEFT SEMI / ANTI joins (IN, EXISTS) move below deterministic Projects and below inner
//     (and, to the left, left outer) joins to the side holding the columns they read, when
//     that join is estimated to keep at least as many rows as that side (semijoin.go).
//  3. reorder (once): every tree of inner joins is flattened into its inputs and conditions and
//     rebuilt left-deep: the input with the largest estimated row count first (the probe side),
//     then repeatedly the smallest input connected to the joined ones by a condition (a cross
//     product only when none is connected), each joined as the right (hash build) side; a
//     Project restores the original column order.
//  4. pushdown again (fixed point), for conditions the new order exposes.
//  5. semi joins into aggregates (once): a grouped Aggregate that an inner or semi join matches
//     on a grouping key gets its input LEFT SEMI joined with a join-free part of the other
//     side (a filtered scan) that every value of that side's key comes from, when its filters
//     are estimated to drop half its rows or more and it to hold at most half the groups'
//     keys (aggsemi.go; TPC-H Q2, Q17, Q20).
//  6. prune (once): columns no operator reads are dropped from Projects, Joins and
//     Aggregates' inputs down to the scans; a batch Parquet scan's Out keeps only the columns
//     read (its reader matches columns by name; CSV reads by position, and JSON's corrupt-record
//     column depends on every field, so those scans keep theirs). A join's side that still
//     holds columns nothing above reads (a Filter's condition columns, a CSV scan's) gets a
//     Project of the ones read. Adjacent Projects of plain columns merge (simplify).
//  7. broadcast build side (once): an inner or right outer join whose left side alone is
//     hinted for broadcast swaps its sides (a Project restores the column order), so the
//     hinted side is the hash build side the planner broadcasts (Spark's BuildLeft); then a
//     batch equi-join without hints that emits no unmatched right rows, whose right side is
//     estimated at most Options.BroadcastThreshold bytes (spark.sql.autoBroadcastJoinThreshold,
//     10 MiB: rows × the columns' default sizes), is marked Join.BroadcastRight; before that,
//     a batch LEFT SEMI / ANTI equi-join whose left side is estimated at most a quarter of its
//     right side, which is too large to broadcast, is marked Join.BuildLeft (its hash table
//     holds the left side; the right side streams past it).
//  8. collation keys (once): grouping, join, distinct, partition and sort keys over collated
//     strings (UTF8_LCASE, UNICODE_CI, …) become their collation keys (collation.go), so the
//     operators, which compare bytes, group and order them as the collation does.
//
// Estimates: a SourceScan's rows come from Options.Stats (Parquet footers) or a default; a
// Filter keeps a fixed fraction per conjunct (an equality 1/10, another comparison 1/3);
// an Aggregate keeps a tenth; LocalData counts its rows; an equi-join keeps 1 / the larger
// distinct count of its most selective key's sides (keys are taken as correlated), a column's distinct count bounded by Options.Distinct
// (Parquet min/max of integer columns) and its input's rows (unknown: as many as rows).
//
// Not done: limit/top-N pushdown (the planner has no top-N operator), aggregation below
// joins.
//
// Conservative by construction: expressions that are nondeterministic (rand) or that
// expr.Rewritable rejects are never moved; node types the optimizer does not know (and that do
// not implement WithChildren([]logical.Node) logical.Node) are left intact with everything
// under them. On streaming plans filters move only through Project, Filter and Union and into
// the scan (never across a Watermark, an aggregation, a deduplication or a join, whose state
// and watermark depend on the rows they see), joins are not reordered, and the columns of a
// stream-stream join's sides are kept (they are its state).
//
// The package imports sql/logical, sql/expr, sql/plan (join types), sql/types and sparkerr
// only.
package optimizer
