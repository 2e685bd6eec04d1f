package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/iceberg"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// DELETE FROM and UPDATE on Iceberg tables (MERGE INTO: table_merge.go), copy-on-write as Iceberg's Spark runtime does by
// default: the statement reads the table's current snapshot, and the rows it keeps (DELETE)
// or rewrites (UPDATE) replace that snapshot's data files in one overwrite snapshot, which is
// refused (Iceberg's ValidationException) if another writer committed in between. Every data
// file of the snapshot is rewritten, not only those holding matching rows. Other tables take
// neither statement, with Spark's UNSUPPORTED_FEATURE.TABLE_OPERATION.

func (s *Session) deleteFrom(ctx context.Context, c *plan.DeleteFrom) (*Result, error) {
	t, base, err := s.dmlTarget(ctx, c.Table, "DELETE")
	if err != nil || base == 0 {
		return s.empty2(err)
	}
	var keep plan.Expr = plan.Lit(false, sqltypes.BooleanType) // DELETE FROM t: no row stays
	if c.Condition != nil {
		keep = plan.Fn("not", plan.Fn("coalesce", c.Condition, plan.Lit(false, sqltypes.BooleanType)))
	}
	node, err := s.analyzer().Resolve(ctx, &plan.Filter{Input: dmlSource(c.Table, c.Alias, base), Condition: keep})
	if err != nil {
		return nil, err
	}
	return s.empty2(s.rewriteIceberg(ctx, t, node, base))
}

func (s *Session) updateTable(ctx context.Context, c *plan.UpdateTable) (*Result, error) {
	t, base, err := s.dmlTarget(ctx, c.Table, "UPDATE TABLE")
	if err != nil || base == 0 {
		return s.empty2(err)
	}
	schema, err := schemaOfTable(t)
	if err != nil {
		return nil, err
	}
	values := map[int]plan.Expr{}
	for _, a := range c.Assignments {
		col := a.Column
		if c.Alias != "" && len(col) == 2 && strings.EqualFold(col[0], c.Alias) {
			col = col[1:]
		}
		i := -1
		if len(col) == 1 {
			i = fieldIndex(schema, col[0])
		}
		if i < 0 {
			return nil, sparkerr.UnresolvedColumn(a.Column, schema.Names())
		}
		if _, dup := values[i]; dup {
			return nil, sparkerr.Analysis("DUPLICATE_ASSIGNMENTS", "42701",
				"The columns or variables %s appear more than once as assignment targets.", sparkerr.Quote(schema[i].Name)).
				WithParams("nameList", sparkerr.Quote(schema[i].Name))
		}
		values[i] = a.Value
	}
	var cond plan.Expr = plan.Lit(true, sqltypes.BooleanType)
	if c.Condition != nil {
		cond = plan.Fn("coalesce", c.Condition, plan.Lit(false, sqltypes.BooleanType))
	}
	exprs := make([]plan.Expr, len(schema))
	for i, f := range schema {
		var v plan.Expr = plan.Col(f.Name)
		if x, ok := values[i]; ok {
			v = plan.Fn("when", cond, plan.Cast{Child: x, To: f.Type, Mode: plan.CastANSI}, v)
		}
		exprs[i] = plan.Alias{Child: v, Names: []string{f.Name}}
	}
	node, err := s.analyzer().Resolve(ctx, &plan.Project{Input: dmlSource(c.Table, c.Alias, base), Exprs: exprs})
	if err != nil {
		return nil, err
	}
	return s.empty2(s.rewriteIceberg(ctx, t, node, base))
}

// dmlTarget is the Iceberg table a DELETE or UPDATE (operation, as Spark names it) changes and
// its current snapshot (0: it has no rows), or Spark's error for any other target.
func (s *Session) dmlTarget(ctx context.Context, name []string, operation string) (metastore.Table, int64, error) {
	if len(name) == 1 {
		if _, ok := s.views.TempView(name[0]); ok {
			return metastore.Table{}, 0, unsupportedTableOperation(sparkerr.Quote(name...), operation)
		}
	}
	t, err := s.mustTable(ctx, name)
	if err != nil {
		return t, 0, err
	}
	if !isIceberg(t.Format) || t.IsView() {
		return t, 0, unsupportedTableOperation(sparkerr.Quote(catalogName, t.Database, t.Name), operation)
	}
	if _, err := s.files.CheckReplace(t.Location); err != nil {
		return t, 0, err
	}
	base, err := iceberg.CurrentSnapshotID(ctx, t.Location)
	return t, base, err
}

// unsupportedTableOperation is Spark's error for DELETE / UPDATE TABLE / MERGE INTO TABLE on a
// table that does not take it (an AnalysisException for DELETE, else an
// UnsupportedOperationException, as Spark 4.2 raises them).
func unsupportedTableOperation(table, operation string) *sparkerr.Error {
	javaClass := sparkerr.UnsupportedOperation
	if operation == "DELETE" {
		javaClass = sparkerr.AnalysisException
	}
	return sparkerr.Newf(javaClass, "UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
		"The feature is not supported: Table %s does not support %s. Please check the current catalog and namespace "+
			"to make sure the qualified table name is expected, and also check the catalog implementation which is "+
			`configured by "spark.sql.catalog".`, table, operation).WithParams("tableName", table, "operation", operation)
}

// dmlSource reads name as of snapshot base, under alias if one is given.
func dmlSource(name []string, alias string, base int64) plan.Relation {
	var rel plan.Relation = &plan.NamedTable{Name: name, TimeTravel: &plan.TimeTravel{Version: strconv.FormatInt(base, 10)}}
	if alias != "" {
		rel = &plan.SubqueryAlias{Input: rel, Alias: alias}
	}
	return rel
}

// rewriteIceberg writes node's rows as the replacement of every data file of t's snapshot
// base, in one overwrite snapshot.
func (s *Session) rewriteIceberg(ctx context.Context, t metastore.Table, node logical.Node, base int64) error {
	options := withOption(s.icebergWriteOptions(t, false), iceberg.BaseSnapshotOption, strconv.FormatInt(base, 10))
	sink, err := connectors.NewBatchSink(ctx, t.Format, sinks.Env{Mode: flow.OutputAppend, Schema: node.Schema(),
		TimeZone: s.timeZone(), Stdout: s.stdout, PartitionBy: t.PartitionBy, Files: s.files}, sinks.SaveOverwrite, options)
	if err != nil {
		return err
	}
	if err := s.runWrite(ctx, node, sink); err != nil {
		sink.Abort()
		return err
	}
	return sink.Finish(ctx)
}
