package analyzer

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// oneEmptyRow is the input of SELECT without FROM: one row of no columns.
func oneEmptyRow() []arrow.RecordBatch {
	return []arrow.RecordBatch{array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)}
}

func (a *Analyzer) resolveLocalRelation(n *plan.LocalRelation) (*resolved, error) {
	var as *arrow.Schema
	switch {
	case n.ArrowSchema != nil:
		as = n.ArrowSchema
	case len(n.Records) > 0:
		as = n.Records[0].Schema()
	}
	if as == nil {
		if n.Schema == nil {
			return nil, sparkerr.IllegalArgument("a local relation needs data or a schema")
		}
		return newResolved(&logical.LocalData{Out: *n.Schema}), nil
	}
	data, err := sqltypes.FromArrowSchema(as)
	if err != nil {
		return nil, sparkerr.Unsupported("local relation: %v", err)
	}
	in := newResolved(&logical.LocalData{Out: data, Records: n.Records})
	if n.Schema == nil {
		return in, nil
	}
	want := *n.Schema
	if len(want) != len(data) {
		return nil, sparkerr.IllegalArgument("the local relation's data has %d columns but its schema has %d",
			len(data), len(want))
	}
	exprs := make([]expr.Expr, len(want))
	for i, f := range want {
		var e expr.Expr = in.ref(i)
		// Arrow carries no collation: a collated string of the schema is a cast (String
		// renders it; EqualIgnoreNullable does not compare it).
		cast := !data[i].Type.EqualIgnoreNullable(f.Type) || data[i].Type.String() != f.Type.String()
		if cast {
			c, err := expr.NewCast(e, f.Type, plan.CastLegacy, a.Options)
			if err != nil {
				return nil, err
			}
			e = c
		}
		if data[i].Name != f.Name || cast {
			e = &expr.Alias{Child: e, Name: f.Name}
		}
		exprs[i] = e
	}
	return in.project(exprs), nil
}

// resolveValues evaluates VALUES rows into inline data, each column coerced to the common type
// of its values.
func (a *Analyzer) resolveValues(n *plan.Values) (*resolved, error) {
	if len(n.Rows) == 0 {
		return nil, sparkerr.Analysis("INVALID_INLINE_TABLE.EMPTY", "42000", "Invalid inline table. Inline table has no rows.")
	}
	width := len(n.Rows[0])
	empty := newResolved(&logical.LocalData{Out: sqltypes.Schema{}})
	b := a.binderOver(empty)
	bound := make([][]expr.Expr, len(n.Rows))
	for r, row := range n.Rows {
		if len(row) != width {
			return nil, sparkerr.Analysis("INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH", "42000",
				"Invalid inline table. Inline table expected %d columns but found %d columns in row %d.",
				width, len(row), r).WithParams("expectedNumCols", formatInt(int64(width)),
				"actualNumCols", formatInt(int64(len(row))), "rowIndex", formatInt(int64(r)))
		}
		bound[r] = make([]expr.Expr, width)
		for c, e := range row {
			x, err := b.bind(e)
			if err != nil {
				return nil, err
			}
			bound[r][c] = x
		}
	}
	names := make([]string, width)
	for c := range names {
		names[c] = "col" + formatInt(int64(c+1))
		if c < len(n.Names) {
			names[c] = n.Names[c]
		} else if al, ok := bound[0][c].(*expr.Alias); ok && len(n.Names) == 0 {
			names[c] = al.Name
		}
	}
	if len(n.Names) > 0 && len(n.Names) != width {
		return nil, sparkerr.Analysis("INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH", "42000",
			"Invalid inline table. Inline table expected %d columns but found %d columns in row 0.",
			len(n.Names), width)
	}
	schema := make(sqltypes.Schema, width)
	cols := make([]arrow.Array, width)
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for c := 0; c < width; c++ {
		t := bound[0][c].Type()
		for r := 1; r < len(bound); r++ {
			w, ok := expr.CommonType(t, bound[r][c].Type())
			if !ok {
				return nil, sparkerr.Analysis("INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE", "42000",
					"Invalid inline table. Found incompatible types in the column %s for inline table.",
					sparkerr.Quote(names[c])).WithParams("colName", sparkerr.Quote(names[c]))
			}
			t = w
		}
		values := make([]any, len(bound))
		nullable := false
		for r := range bound {
			e := bound[r][c]
			if !e.Type().Equal(t) {
				x, err := expr.NewCast(e, t, plan.CastDefault, a.Options)
				if err != nil {
					return nil, err
				}
				e = x
			}
			v, err := a.evalConst(e)
			if err != nil {
				return nil, err
			}
			values[r] = v
			nullable = nullable || values[r] == nil
		}
		cols[c] = expr.BuildArray(memory.DefaultAllocator, t, a.Options.TimeZone, values)
		schema[c] = sqltypes.Field{Name: names[c], Type: t, Nullable: nullable}
	}
	rec := array.NewRecordBatch(sqltypes.ToArrowSchema(schema, a.Options.TimeZone), cols, int64(len(bound)))
	return newResolved(&logical.LocalData{Out: schema, Records: []arrow.RecordBatch{rec}}), nil
}

func (a *Analyzer) resolveNamedTable(ctx context.Context, n *plan.NamedTable) (*resolved, error) {
	if a.Catalog != nil && len(n.Name) > 0 {
		if v, ok := a.Catalog.TempView(strings.Join(n.Name, ".")); ok {
			if tt, err := a.timeTravelOf(n); err != nil || tt.TimeTravel != nil {
				if err == nil {
					err = TimeTravelUnsupported(n.Name)
				}
				return nil, err
			}
			return newResolved(v).withQualifier(n.Name), nil
		}
		if t, ok := a.Catalog.(Tables); ok {
			n, err := a.timeTravelOf(n)
			if err != nil {
				return nil, err
			}
			node, found, err := t.Table(ctx, n)
			if err != nil {
				return nil, err
			}
			if found {
				return newResolved(node).withQualifier(n.Name), nil
			}
		}
	}
	return nil, sparkerr.TableNotFound(n.Name)
}

// resolveCachedRemoteRelation finds a DataFrame the session caches by id, as Spark Connect's
// SessionHolder.getDataFrameOrThrow.
func (a *Analyzer) resolveCachedRemoteRelation(n *plan.CachedRemoteRelation) (*resolved, error) {
	if c, ok := a.Catalog.(CachedRelations); ok {
		if v, ok := c.CachedRelation(n.ID); ok {
			return newResolved(v), nil
		}
	}
	return nil, sparkerr.IllegalArgument("Invalid plan: No DataFrame with id %s is found in the session", n.ID)
}

// resolvePersisted resolves n's input and, when the session persisted a DataFrame under n's key
// with the same schema, reads that instead (Spark's CacheManager.useCachedData). The input's
// columns keep their plan ids and qualifiers, so references into it resolve as without the cache.
func (a *Analyzer) resolvePersisted(ctx context.Context, n *plan.Persisted) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	c, ok := a.Catalog.(PersistedRelations)
	if !ok {
		return in, nil
	}
	rel, ok := c.PersistedRelation(n.Key)
	if !ok || !rel.Out.AsStruct().Equal(in.node.Schema().AsStruct()) || logical.IsStreaming(in.node) {
		return in, nil
	}
	return &resolved{node: &logical.InMemoryTableScan{Relation: rel}, cols: in.cols}, nil
}

func (a *Analyzer) resolveDataSource(n *plan.DataSource) (*resolved, error) {
	if a.Sources == nil {
		return nil, sparkerr.Unsupported("data source %q: this analyzer has no data sources", n.Format)
	}
	if len(n.Predicates) > 0 {
		return nil, sparkerr.Unsupported("data source predicates (JDBC partitioning) are not supported")
	}
	opts := n.Options
	if _, has := opts["path"]; !has && len(n.Paths) == 1 {
		// Like DataFrameReader.load(path), the schema lookup sees a single path as the "path" option.
		opts = make(map[string]string, len(n.Options)+1)
		for k, v := range n.Options {
			opts[k] = v
		}
		opts["path"] = n.Paths[0]
	}
	out, err := a.Sources.Schema(n.Format, opts, n.Schema, n.IsStreaming)
	if err != nil {
		return nil, err
	}
	return newResolved(&logical.SourceScan{Format: n.Format, Options: opts, Paths: n.Paths,
		Out: out, Streaming: n.IsStreaming, UserSchema: n.Schema}), nil
}

func (a *Analyzer) resolveSQLQuery(ctx context.Context, n *plan.SQLQuery) (*resolved, error) {
	if n.Resolved != nil {
		return a.resolve(ctx, n.Resolved)
	}
	if n.Statement != nil {
		return nil, notAQuery()
	}
	cmd, err := parser.ParseStatementContext(ctx, n.Query, n.Args, n.PosArgs)
	if err != nil {
		return nil, err
	}
	q, ok := cmd.(plan.Query)
	if !ok {
		if qp, isPtr := cmd.(*plan.Query); isPtr {
			q, ok = *qp, true
		}
	}
	if !ok {
		return nil, notAQuery()
	}
	return a.resolve(ctx, q.Input)
}

func notAQuery() *sparkerr.Error {
	return sparkerr.Unsupported("the SQL text is a command, not a query; run it as a command")
}

// evalConst evaluates an expression that reads no column, as a Go value.
func (a *Analyzer) evalConst(e expr.Expr) (any, error) {
	ctx := &expr.Context{Mem: memory.DefaultAllocator, ANSI: a.Options.ANSI}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	arr, err := e.Eval(ctx, one)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	return expr.ValueAt(arr, 0, e.Type()), nil
}
