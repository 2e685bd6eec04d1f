package analyzer

import (
	"context"
	"math/rand/v2"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Catalog is what the analyzer needs from the session catalog.
type Catalog interface {
	// TempView returns the resolved plan of a temp view by name (case-insensitive), if any.
	TempView(name string) (logical.Node, bool)
}

// Tables is the optional part of a Catalog that holds what names other than temp views read:
// persistent tables and views (and global temp views), in Spark's lookup order.
type Tables interface {
	// Table resolves what n reads (a table's data source read, a view's query), found false
	// if its name names nothing; n carries the read's options, spark.readStream.table's
	// IsStreaming and a temporal clause (time travel).
	Table(ctx context.Context, n *plan.NamedTable) (node logical.Node, found bool, err error)
}

// CachedRelations is the optional part of a Catalog that holds the DataFrames a server keeps for
// its clients by id (CachedRemoteRelation: foreachBatch's epoch output).
type CachedRelations interface {
	// CachedRelation returns the plan of the DataFrame cached under id, if any.
	CachedRelation(id string) (logical.Node, bool)
}

// PersistedRelations is the optional part of a Catalog that holds the DataFrames the session
// persisted (df.cache()/persist()), by the key the client's plan has (plan.Persisted).
type PersistedRelations interface {
	// PersistedRelation returns the DataFrame persisted under key, if any.
	PersistedRelation(key string) (*logical.InMemoryRelation, bool)
}

// SourceSchemas answers the output schema of data source reads.
type SourceSchemas interface {
	// Schema returns the output schema of a data source read (format, options, user schema DDL
	// or "").
	Schema(format string, options map[string]string, userSchema string, streaming bool) (sqltypes.Schema, error)
}

// Analyzer resolves unresolved plans of one session.
type Analyzer struct {
	Catalog       Catalog
	Sources       SourceSchemas
	Options       expr.Options
	CaseSensitive bool
	// PythonFunctions looks up a Python function the session registered (spark.udf.register)
	// by lower-cased name; nil when there are none.
	PythonFunctions func(name string) (*plan.PythonUDF, bool)
	// PythonTableFunctions looks up a Python UDTF the session registered (spark.udtf.register)
	// by lower-cased name; nil when there are none.
	PythonTableFunctions func(name string) (*plan.PythonUDTF, bool)
	// AnalyzePythonUDTF runs the static analyze method of a Python UDTF declared without a
	// return type (python_udtf_analyze.go); nil when the session runs no Python.
	AnalyzePythonUDTF func(ctx context.Context, call *PythonUDTFAnalyzeCall) (*PythonUDTFAnalysis, error)
	// AllowMultipleTableArguments is spark.sql.tvf.allowMultipleTableArguments.enabled: a Python
	// UDTF call may take several TABLE arguments (run over their cross join).
	AllowMultipleTableArguments bool
	// NoImplicitCartesian is spark.sql.crossJoin.enabled=false: an inner join whose condition
	// is left empty by taking Python function calls out of it fails as in Spark (see
	// resolveJoinWithPythonUDFs).
	NoImplicitCartesian bool
	// Collect runs a batch plan the analyzer built and returns at most limit of its rows as Go
	// values (sqltypes' conventions), for the relations whose output columns depend on the data,
	// as Spark computes them eagerly: df.stat.crosstab, pivot without values and df.transpose. Nil when the
	// analyzer cannot run plans; then those relations are refused.
	Collect func(ctx context.Context, node logical.Node, limit int) ([][]any, error)
	// TransposeMaxValues is spark.sql.transposeMaxValues: the most rows df.transpose() turns
	// into columns (0: Spark's default, 500).
	TransposeMaxValues int
	// PivotMaxValues is spark.sql.pivotMaxValues: the most distinct values a pivot without
	// values may find (0: Spark's default, 10000).
	PivotMaxValues int

	// sub is the scope of the subquery being resolved (nil at the top level): names that do not
	// resolve inside it are outer references (see subquery_outer.go).
	sub *subqueryScope

	// ctx is the context of the Resolve call this copy serves (see Resolve); binding checks it
	// every checkEvery expressions so that an interrupted request stops promptly.
	ctx   context.Context
	steps int
}

// checkEvery is how many expressions are bound between checks for cancellation (a check is a
// few tens of nanoseconds; binding one expression is about a microsecond).
const checkEvery = 256

// defaultPartitions is the partition count of range() and of repartition by expressions when
// none is given (spark.sql.shuffle.partitions' Weir default).
const defaultPartitions = 2

// Resolve resolves rel into a logical plan. It returns ctx's error soon after ctx is done:
// relations check it as they are resolved, and expressions every checkEvery bindings.
func (a *Analyzer) Resolve(ctx context.Context, rel plan.Relation) (logical.Node, error) {
	ra := *a
	ra.ctx, ra.steps = ctx, 0
	r, err := ra.resolve(ctx, rel)
	if err != nil {
		return nil, err
	}
	if err := checkInputFileSources(r.node); err != nil {
		return nil, err
	}
	if !a.Options.TimeType {
		// A TIME column that no expression bound (a local relation, a file's schema) is refused
		// too, as Spark refuses it with spark.sql.timeType.enabled off.
		for _, f := range r.node.Schema() {
			if sqltypes.ContainsKind(f.Type, sqltypes.Time) {
				return nil, expr.UnsupportedTimeType()
			}
		}
	}
	return r.node, nil
}

// ResolveType parses a DDL type string ("int", "array<string>").
func (a *Analyzer) ResolveType(typeString string) (sqltypes.DataType, error) {
	return parser.ParseDataType(typeString)
}

// checkCancel returns the Resolve context's error every checkEvery calls.
func (a *Analyzer) checkCancel() error {
	if a.ctx == nil {
		return nil
	}
	a.steps++
	if a.steps%checkEvery != 0 {
		return nil
	}
	return a.ctx.Err()
}

// resolve resolves one relation and tags its columns with its plan id.
func (a *Analyzer) resolve(ctx context.Context, rel plan.Relation) (*resolved, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rel == nil {
		return nil, sparkerr.Internal("analyzer: nil relation")
	}
	r, err := a.resolveRelation(ctx, rel)
	if err != nil {
		return nil, err
	}
	return r.withPlanID(rel.Common().PlanID), nil
}

func (a *Analyzer) resolveRelation(ctx context.Context, rel plan.Relation) (*resolved, error) {
	switch n := rel.(type) {
	case *plan.Range:
		return a.resolveRange(n)
	case *plan.LocalRelation:
		return a.resolveLocalRelation(n)
	case *plan.Values:
		return a.resolveValues(n)
	case *plan.NamedTable:
		return a.resolveHinted(ctx, n.Name, func(ctx context.Context) (*resolved, error) { return a.resolveNamedTable(ctx, n) })
	case *plan.CachedRemoteRelation:
		return a.resolveCachedRemoteRelation(n)
	case *plan.Persisted:
		return a.resolvePersisted(ctx, n)
	case *plan.DataSource:
		return a.resolveDataSource(n)
	case *plan.SQLQuery:
		return a.resolveSQLQuery(ctx, n)
	case *plan.Project:
		return a.resolveProject(ctx, n)
	case *plan.Filter:
		return a.resolveFilter(ctx, n)
	case *plan.Aggregate:
		return a.resolveAggregate(ctx, n)
	case *plan.Sort:
		return a.resolveSort(ctx, n)
	case *plan.Limit:
		return a.resolveLimit(ctx, n)
	case *plan.Offset:
		return a.resolveOffset(ctx, n)
	case *plan.Tail:
		in, err := a.resolve(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		return a.keepScope(in, &logical.Tail{Input: in.node, N: n.N}), nil
	case *plan.Deduplicate:
		return a.resolveDeduplicate(ctx, n)
	case *plan.SetOp:
		return a.resolveSetOp(ctx, n)
	case *plan.Join:
		return a.resolveJoin(ctx, n)
	case *plan.SubqueryAlias:
		return a.resolveHinted(ctx, []string{n.Alias}, func(ctx context.Context) (*resolved, error) { return a.resolveSubqueryAlias(ctx, n) })
	case *plan.ToDF:
		return a.resolveToDF(ctx, n)
	case *plan.WithColumns:
		return a.resolveWithColumns(ctx, n)
	case *plan.WithColumnsRenamed:
		return a.resolveWithColumnsRenamed(ctx, n)
	case *plan.Drop:
		return a.resolveDrop(ctx, n)
	case *plan.Sample:
		in, err := a.resolve(ctx, n.Input)
		if err != nil {
			return nil, err
		}
		seed := rand.Int64()
		if n.Seed != nil {
			seed = *n.Seed
		}
		return a.keepScope(in, &logical.Sample{Input: in.node, Lower: n.LowerBound, Upper: n.UpperBound,
			WithReplacement: n.WithReplacement, Seed: seed}), nil
	case *plan.Hint:
		return a.resolveHint(ctx, n)
	case *plan.WithWatermark:
		return a.resolveWithWatermark(ctx, n)
	case *plan.ToSchema:
		return a.resolveToSchema(ctx, n)
	case *plan.Repartition:
		return a.resolveRepartition(ctx, n)
	case *plan.NAFill:
		return a.resolveNAFill(ctx, n)
	case *plan.NADrop:
		return a.resolveNADrop(ctx, n)
	case *plan.CollectMetrics:
		return a.resolveCollectMetrics(ctx, n)
	case *plan.StatFunction:
		return a.resolveStatFunction(ctx, n)
	case *plan.Unpivot:
		return a.resolveUnpivot(ctx, n)
	case *plan.Transpose:
		return a.resolveTranspose(ctx, n)
	case *plan.NAReplace:
		return a.resolveNAReplace(ctx, n)
	case *plan.Generate:
		return a.resolveGenerate(ctx, n)
	case *plan.MapInPython:
		return a.resolveMapInPython(ctx, n)
	case *plan.PythonTableFunction:
		return a.resolvePythonTableFunction(ctx, n)
	case *plan.GroupMapInPython:
		return a.resolveGroupMapInPython(ctx, n)
	case *plan.CoGroupMapInPython:
		return a.resolveCoGroupMapInPython(ctx, n)
	case *plan.ShowString:
		return nil, sparkerr.Internal("analyzer: ShowString is rendered by the engine above the analyzer, not resolved")
	}
	return nil, sparkerr.Unsupported("relation %T is not supported", rel)
}

// keepScope wraps a node whose output columns are its input's, unchanged.
func (a *Analyzer) keepScope(in *resolved, n logical.Node) *resolved {
	return &resolved{node: n, cols: in.cols}
}

func (a *Analyzer) resolveRange(n *plan.Range) (*resolved, error) {
	if n.Step == 0 {
		return nil, sparkerr.IllegalArgument("requirement failed: step (%d) cannot be 0", n.Step)
	}
	parts := int(n.NumPartitions)
	switch {
	case !n.HasNumPartitions:
		parts = defaultPartitions
	case parts <= 0 && rangeIsEmpty(n.Start, n.End, n.Step):
		parts = 1 // Spark's RangeExec reads an empty range without slicing it
	case parts <= 0:
		// SparkContext.parallelize(…, numSlices) under Spark's RangeExec.
		return nil, sparkerr.IllegalArgument("Positive number of partitions required")
	}
	return newResolved(&logical.Range{Start: n.Start, End: n.End, Step: n.Step, Partitions: parts}), nil
}

// rangeIsEmpty reports whether [start, end) by step holds no value.
func rangeIsEmpty(start, end, step int64) bool {
	return start == end || (start < end) != (step > 0)
}

func (a *Analyzer) resolveLimit(ctx context.Context, n *plan.Limit) (*resolved, error) {
	if n.N < 0 {
		return nil, limitError("limit", n.N)
	}
	if off, ok := n.Input.(*plan.Offset); ok {
		if off.N < 0 {
			return nil, limitError("offset", off.N)
		}
		in, err := a.resolve(ctx, off.Input)
		if err != nil {
			return nil, err
		}
		in = in.withPlanID(off.PlanID)
		return a.keepScope(in, &logical.Limit{Input: in.node, N: n.N, Offset: off.N}), nil
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	return a.keepScope(in, &logical.Limit{Input: in.node, N: n.N}), nil
}

func (a *Analyzer) resolveOffset(ctx context.Context, n *plan.Offset) (*resolved, error) {
	if n.N < 0 {
		return nil, limitError("offset", n.N)
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	// offset over limit: skip within the limited rows.
	if l, ok := in.node.(*logical.Limit); ok && l.N >= 0 && l.Offset == 0 {
		left := max(l.N-n.N, 0)
		return a.keepScope(in, &logical.Limit{Input: l.Input, N: left, Offset: n.N}), nil
	}
	return a.keepScope(in, &logical.Limit{Input: in.node, N: -1, Offset: n.N}), nil
}

// limitError is Spark's INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE.
func limitError(kind string, n int64) *sparkerr.Error {
	return sparkerr.Analysis("INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE", "42K0E",
		"The limit like expression \"%d\" is invalid. The %s expression must be equal to or greater than 0, but got %d.",
		n, kind, n).WithParams("name", kind, "expr", `"`+formatInt(n)+`"`, "v", formatInt(n))
}

func (a *Analyzer) resolveProject(ctx context.Context, n *plan.Project) (*resolved, error) {
	if agg, ok, err := a.metricViewProject(ctx, n); ok || err != nil {
		return agg, err
	}
	var in *resolved
	if n.Input == nil {
		in = newResolved(&logical.LocalData{Out: sqltypes.Schema{}, Records: oneEmptyRow()})
	} else {
		var err error
		if in, err = a.resolve(ctx, n.Input); err != nil {
			return nil, err
		}
	}
	items := a.pythonCalls(n.Exprs)
	for _, e := range items {
		if containsAggregate(e) {
			return a.resolveGrouped(ctx, in, groupSpec{aggs: items, global: true})
		}
	}
	if hasPythonUDF(items...) {
		var err error
		if in, err = a.withPythonUDFs(in, items); err != nil {
			return nil, err
		}
	}
	if anySubquery(items) {
		if anyGenerator(items) {
			return nil, sparkerr.Unsupported("a generator and a subquery in one select list")
		}
		return a.resolveProjectWithSubqueries(ctx, in, items)
	}
	in, exprs, err := a.bindSelect(in, items)
	if err != nil {
		return nil, err
	}
	return in.project(exprs), nil
}

func (a *Analyzer) resolveFilter(ctx context.Context, n *plan.Filter) (*resolved, error) {
	agg, overAgg := n.Input.(*plan.Aggregate)
	overAgg = overAgg && agg.Type == plan.GroupBy
	if cond := a.pythonCalls([]plan.Expr{n.Condition})[0]; hasPythonUDF(cond) && !(overAgg && containsAggregate(cond)) {
		return a.resolveFilterWithPythonUDFs(ctx, n, cond)
	}
	if hasSubquery(n.Condition) {
		if overAgg && containsAggregate(n.Condition) {
			return a.resolveHavingWithSubqueries(ctx, agg, n)
		}
		return a.resolveFilterWithSubqueries(ctx, n)
	}
	if overAgg && containsAggregate(n.Condition) {
		return a.resolveHaving(ctx, agg, n.Condition)
	}
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if r, ok, err := a.correlatedFilter(in, conjuncts(n.Condition)); ok {
		return r, err
	}
	cond, err := a.bindCondition(in, n.Condition)
	if err != nil {
		if !isUnresolvedColumn(err) {
			return nil, err
		}
		switch child := n.Input.(type) {
		case *plan.Aggregate:
			// HAVING on a grouping column that is not in the select list.
			if r, herr := a.resolveHaving(ctx, child, n.Condition); herr == nil {
				return r, nil
			}
		case *plan.Project:
			// A filter over a select may use the select's input columns.
			if child.Input != nil && !anyAggregate(child.Exprs) {
				if r, ferr := a.filterOverProject(ctx, n, child); ferr == nil {
					return r, nil
				}
			}
		}
		return nil, err
	}
	return a.keepScope(in, &logical.Filter{Input: in.node, Cond: cond}), nil
}

// filterOverProject resolves a filter whose condition reads columns the Project below drops.
func (a *Analyzer) filterOverProject(ctx context.Context, n *plan.Filter, p *plan.Project) (*resolved, error) {
	w, err := a.widenProject(ctx, p)
	if err != nil {
		return nil, err
	}
	b := a.binderOver(w.proj)
	b.intercept = func(x plan.Expr) (expr.Expr, bool, error) {
		if _, ok := asColumnRef(x); !ok {
			return nil, false, nil
		}
		bound, err := w.bind(x)
		return bound, true, err
	}
	cond, err := b.bind(n.Condition)
	if err != nil {
		return nil, err
	}
	if err := checkBoolean(cond); err != nil {
		return nil, err
	}
	return w.finish(func(wide *resolved) *resolved {
		return a.keepScope(wide, &logical.Filter{Input: wide.node, Cond: cond})
	}), nil
}

// bindCondition binds a WHERE condition and checks it is boolean.
func (a *Analyzer) bindCondition(in *resolved, cond plan.Expr) (expr.Expr, error) {
	b := a.binderOver(in)
	b.aggError = func(c plan.Call) error {
		whole, agg := a.renderWithAggregates(in, cond), a.renderWithAggregates(in, c)
		return sparkerr.Analysis("INVALID_WHERE_CONDITION", "42903",
			"The WHERE condition %s contains invalid expressions: %s.\nRewrite the query to avoid window functions, aggregate functions, and generator functions in the WHERE clause.",
			whole, agg).WithParams("condition", whole, "expressionList", agg)
	}
	b.windowClause = "WHERE"
	x, err := b.bind(cond)
	if err != nil {
		return nil, err
	}
	return x, checkBoolean(x)
}

// checkBoolean is DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN for a non-boolean condition.
func checkBoolean(x expr.Expr) error {
	if isBooleanish(x.Type()) {
		return nil
	}
	q := `"` + x.String() + `"`
	return sparkerr.DatatypeMismatch("FILTER_NOT_BOOLEAN", q,
		"Filter expression %s of type %s is not a boolean.", q, `"`+x.Type().SQL()+`"`).
		WithParams("filter", q, "type", `"`+x.Type().SQL()+`"`)
}

func isUnresolvedColumn(err error) bool {
	e, ok := sparkerr.As(err)
	return ok && (e.Class == "UNRESOLVED_COLUMN.WITH_SUGGESTION" || e.Class == "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION")
}

func (a *Analyzer) resolveDeduplicate(ctx context.Context, n *plan.Deduplicate) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	var keys []int
	if !n.AllColumns && len(n.Columns) > 0 {
		for _, name := range n.Columns {
			found := false
			for i, c := range in.cols {
				if a.nameEq(c.name, name) {
					keys = append(keys, i)
					found = true
				}
			}
			if !found {
				return nil, columnNotAmong(name, in)
			}
		}
	}
	return a.keepScope(in, &logical.Distinct{Input: in.node, Keys: keys, WithinWatermark: n.WithinWatermark}), nil
}

// columnNotAmong is UNRESOLVED_COLUMN_AMONG_FIELD_NAMES.
func columnNotAmong(name string, in *resolved) *sparkerr.Error {
	names := ""
	for i, c := range in.cols {
		if i > 0 {
			names += ", "
		}
		names += c.name
	}
	return sparkerr.Analysis("UNRESOLVED_COLUMN_AMONG_FIELD_NAMES", "42703",
		"Cannot resolve column name \"%s\" among (%s).", name, names).
		WithParams("colName", name, "fieldNames", names)
}

func (a *Analyzer) resolveRepartition(ctx context.Context, n *plan.Repartition) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	keys, err := a.binderOver(in).bindAll(n.Exprs)
	if err != nil {
		return nil, err
	}
	parts := int(n.NumPartitions)
	if parts < 0 || (parts == 0 && len(keys) == 0) {
		return nil, sparkerr.IllegalArgument("requirement failed: Number of partitions (%d) must be positive.", parts)
	}
	if parts == 0 { // repartition(*cols) without a count
		parts = defaultPartitions
	}
	return a.keepScope(in, &logical.Repartition{Input: in.node, Partitions: parts, Keys: keys}), nil
}
