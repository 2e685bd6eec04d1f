package engine

import (
	"context"
	"strings"

	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/metricview"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// createMetricView is CREATE [OR REPLACE] VIEW name [(cols)] WITH METRICS LANGUAGE YAML AS $$…$$: the
// YAML is read and checked (its source, dimensions and measures resolve), and the view is kept
// in the catalog by its YAML with its columns: the dimensions, then the measures' result types.
func (s *Session) createMetricView(ctx context.Context, c *plan.CreatePersistentView) (*Result, error) {
	db, name, err := s.qualify(c.Name)
	if err != nil {
		return nil, err
	}
	v, err := metricview.Parse(c.Text)
	if err != nil {
		return nil, err
	}
	schema, err := s.metricViewSchema(ctx, v)
	if err != nil {
		return nil, err
	}
	if len(c.Columns) > 0 {
		if len(c.Columns) != len(schema) {
			return nil, sparkerr.Analysis("CREATE_VIEW_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS", "21S01",
				"Cannot create view %s, the reason is not enough data columns: View columns: %s. Data columns: %s.",
				sparkerr.Quote(catalogName, db, name), strings.Join(c.Columns, ", "), strings.Join(schema.Names(), ", "))
		}
		schema = append(sqltypes.Schema(nil), schema...)
		for i := range schema {
			schema[i].Name = c.Columns[i]
		}
	}
	props := map[string]string{}
	if v.SourceIsQuery {
		props["metric_view.from.type"], props["metric_view.from.sql"] = "SQL", v.SourceText
	} else {
		props["metric_view.from.type"], props["metric_view.from.name"] = "ASSET", v.SourceText
	}
	if v.Filter != nil {
		props["metric_view.where"] = v.FilterText
	}
	t := metastore.Table{Database: db, Name: name, Kind: metastore.MetricView, ViewText: c.Text,
		ViewDatabase: s.views.currentDatabase(), Columns: columnsOf(schema, false), Comment: c.Comment, Properties: props}
	// Spark 4.2 replaces nothing: OR REPLACE over an existing name is TABLE_OR_VIEW_ALREADY_EXISTS.
	if _, _, err := s.tables.CreateTable(t, false, c.IfNotExists); err != nil {
		return nil, err
	}
	return s.empty()
}

// metricViewSchema is a metric view's columns: its source aggregated by its dimensions, each
// dimension and measure a named item, so an unknown column, a measure that is no aggregate or
// a name used twice fails as in Spark.
func (s *Session) metricViewSchema(ctx context.Context, v *metricview.View) (sqltypes.Schema, error) {
	seen := map[string]bool{}
	var items, grouping []plan.Expr
	for i, f := range append(append([]metricview.Field(nil), v.Dimensions...), v.Measures...) {
		key := strings.ToLower(f.Name)
		if seen[key] {
			return nil, sparkerr.Analysis("COLUMN_ALREADY_EXISTS", "42711",
				"The column %s already exists. Choose another name or rename the existing column.", sparkerr.Quote(f.Name)).
				WithParams("columnName", sparkerr.Quote(f.Name))
		}
		seen[key] = true
		items = append(items, plan.Alias{Child: f.Expr, Names: []string{f.Name}})
		if i < len(v.Dimensions) {
			grouping = append(grouping, f.Expr)
		}
	}
	var rel plan.Relation = v.Source
	if v.Filter != nil {
		rel = &plan.Filter{Input: rel, Condition: v.Filter}
	}
	node, err := s.Analyze(ctx, &plan.Aggregate{Input: rel, Type: plan.GroupBy, Grouping: grouping, Aggs: items})
	if err != nil {
		return nil, err
	}
	return node.Schema(), nil
}

// MetricView implements analyzer.MetricViews: the definition of the catalog's metric view n
// names.
func (c sessionCatalog) MetricView(ctx context.Context, n *plan.NamedTable) (*metricview.View, bool, error) {
	name := n.Name
	if _, global := globalViewName(name); global || len(name) > 3 {
		return nil, false, nil
	}
	if len(name) == 1 && c.database != "" {
		name = []string{c.database, name[0]}
	}
	t, ok, err := c.s.lookupTable(ctx, name)
	if err != nil || !ok || !t.IsMetricView() {
		return nil, false, nil
	}
	v, err := metricview.Parse(t.ViewText)
	if err != nil {
		return nil, false, err
	}
	if v.Schema, err = schemaOfTable(t); err != nil {
		return nil, false, err
	}
	v.Rename(v.Schema.Names())
	return v, true, nil
}

// metricViewRead is the error of reading a metric view other than through an aggregate of its
// measures, Spark's planning failure.
func metricViewRead(t metastore.Table) error {
	return sparkerr.Internal("The Spark SQL phase planning failed with an internal error: the metric view %s is read "+
		"only by an aggregate query (SELECT dimensions, measure(m) … GROUP BY dimensions).", t.QualifiedName())
}

// metricViewNamed is the catalog's metric view name names (not shadowed by a temp view).
func (s *Session) metricViewNamed(ctx context.Context, name []string) (metastore.Table, bool) {
	if _, temp := s.views.TempView(strings.Join(name, ".")); temp {
		return metastore.Table{}, false
	}
	t, ok, err := s.lookupTable(ctx, name)
	return t, err == nil && ok && t.IsMetricView()
}
