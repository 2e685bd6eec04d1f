package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Persistent tables and views: the server's metastore (shared by its sessions) seen from one
// session, with the session's current database. Names resolve as in Spark's session catalog:
// a one-part name is a temp view, else a table or view of the current database; db.t and
// spark_catalog.db.t name a database's table or view. A file table reads as a data source read
// of its location with its schema; a view as its SQL text, its columns renamed to the view's.

// WarehouseConf is spark.sql.warehouse.dir: where managed tables' files go (static).
const WarehouseConf = "spark.sql.warehouse.dir"

// WithMetastore sets the persistent catalog (default: one in memory, the session's own).
func WithMetastore(m *metastore.Store) SessionOption { return func(s *Session) { s.tables = m } }

// WithWarehouse sets the directory of managed tables (default: the file-access policy's
// warehouse, else ./spark-warehouse as Spark's default).
func WithWarehouse(dir string) SessionOption { return func(s *Session) { s.warehouse = dir } }

// initTables completes the table options after the others are applied.
func (s *Session) initTables() {
	if s.tables == nil {
		s.tables, _ = metastore.Open("") // in memory: cannot fail
	}
	if s.warehouse == "" {
		s.warehouse = s.files.Warehouse()
	}
	if s.warehouse == "" {
		if wd, err := os.Getwd(); err == nil {
			s.warehouse = filepath.Join(wd, "spark-warehouse")
		}
	}
}

// currentDatabase is the session's current database.
func (c *catalog) currentDatabase() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.database == "" {
		return metastore.DefaultDatabase
	}
	return c.database
}

func (c *catalog) setCurrentDatabase(db string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.database = strings.ToLower(db)
}

// qualify splits a table name into its database (the current one if unqualified) and name.
func (s *Session) qualify(name []string) (db, table string, err error) {
	switch len(name) {
	case 1:
		return s.views.currentDatabase(), strings.ToLower(name[0]), nil
	case 2:
		return strings.ToLower(name[0]), strings.ToLower(name[1]), nil
	case 3:
		if !strings.EqualFold(name[0], catalogName) {
			return "", "", catalogNotFound(name[0])
		}
		return strings.ToLower(name[1]), strings.ToLower(name[2]), nil
	}
	return "", "", sparkerr.Analysis("REQUIRES_SINGLE_PART_NAMESPACE", "42K05",
		"%s requires a single-part namespace, but got %s.", catalogName, sparkerr.Quote(name[:len(name)-1]...)).
		WithParams("sessionCatalog", catalogName, "namespace", sparkerr.Quote(name[:len(name)-1]...))
}

// qualifyDatabase is a database name: db or spark_catalog.db.
func qualifyDatabase(name []string) (string, error) {
	switch {
	case len(name) == 1:
		return strings.ToLower(name[0]), nil
	case len(name) == 2 && strings.EqualFold(name[0], catalogName):
		return strings.ToLower(name[1]), nil
	case len(name) == 2:
		return "", catalogNotFound(name[0])
	}
	return "", sparkerr.Analysis("REQUIRES_SINGLE_PART_NAMESPACE", "42K05",
		"%s requires a single-part namespace, but got %s.", catalogName, sparkerr.Quote(name...)).
		WithParams("sessionCatalog", catalogName, "namespace", sparkerr.Quote(name...))
}

// lookupTable finds the table or view name names (not a temp view), in spark_catalog or the
// REST catalog NAME.db.t names (table_rest.go).
func (s *Session) lookupTable(ctx context.Context, name []string) (metastore.Table, bool, error) {
	store, db, table, err := s.storeOfName(ctx, name)
	if err != nil {
		return metastore.Table{}, false, err
	}
	if rs, ok := store.(restStore); ok {
		return rs.lookup(db, table)
	}
	t, ok := s.tables.Table(db, table)
	return t, ok, nil
}

// mustTable is lookupTable with TABLE_OR_VIEW_NOT_FOUND for a missing one (named as written).
func (s *Session) mustTable(ctx context.Context, name []string) (metastore.Table, error) {
	t, ok, err := s.lookupTable(ctx, name)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, sparkerr.TableNotFound(name)
	}
	return t, nil
}

// sessionCatalog is what the analyzer resolves names with: the session's temp views, then the
// metastore's tables and views. database, when set, is the current database names resolve
// against (a view's text resolves in the database it was created in).
type sessionCatalog struct {
	*catalog
	s        *Session
	database string
}

// Table implements analyzer.Tables.
func (c sessionCatalog) Table(ctx context.Context, n *plan.NamedTable) (logical.Node, bool, error) {
	name := n.Name
	if len(name) > 3 {
		return nil, false, nil
	}
	if v, ok := globalViewName(name); ok {
		node, found := c.s.global.c.TempView(v)
		if found && n.TimeTravel != nil {
			return nil, false, analyzer.TimeTravelUnsupported(name)
		}
		return node, found, nil
	}
	if len(name) == 1 && c.database != "" {
		name = []string{c.database, name[0]}
	}
	if len(name) == 3 {
		// A REST catalog that is misconfigured or fails to answer says why.
		if _, isREST, err := c.s.restCatalog(ctx, name[0]); err != nil || isREST {
			if err != nil {
				return nil, false, err
			}
			t, ok, err := c.s.lookupTable(ctx, name)
			if err != nil || !ok {
				return nil, false, err
			}
			return c.resolveTable(ctx, n, t)
		}
	}
	t, ok, err := c.s.lookupTable(ctx, name)
	if err != nil || !ok {
		return nil, false, nil // an unknown catalog or namespace: the name names nothing
	}
	return c.resolveTable(ctx, n, t)
}

// resolveTable is the plan of reading catalog table t as n names it.
func (c sessionCatalog) resolveTable(ctx context.Context, n *plan.NamedTable, t metastore.Table) (logical.Node, bool, error) {
	streaming := n.IsStreaming
	if n.TimeTravel != nil && !isIceberg(t.Format) {
		return nil, false, analyzer.TimeTravelUnsupported([]string{catalogName, t.Database, t.Name})
	}
	a := c.s.analyzer()
	var rel plan.Relation
	if t.IsMetricView() {
		return nil, false, metricViewRead(t)
	}
	if t.IsView() {
		if streaming {
			return nil, false, sparkerr.Unsupported("streaming reads of a persistent view (%s) are not supported", t.QualifiedName())
		}
		names := make([]string, len(t.Columns))
		for i, col := range t.Columns {
			names[i] = col.Name
		}
		db := t.ViewDatabase
		if db == "" {
			db = t.Database
		}
		a.Catalog = sessionCatalog{catalog: c.catalog, s: c.s, database: db}
		rel = &plan.ToDF{Input: &plan.SQLQuery{Query: t.ViewText}, Names: names}
	} else {
		rel = tableRead(t, n)
	}
	node, err := a.Resolve(ctx, rel)
	if err != nil {
		return nil, false, err
	}
	return node, true, nil
}

// tableRead is the data source read of a file table: its location with its schema and
// options, the read's own options over them, and for an Iceberg table the snapshot its time
// travel names.
func tableRead(t metastore.Table, n *plan.NamedTable) *plan.DataSource {
	opts := map[string]string{}
	for k, v := range t.Options {
		opts[k] = v
	}
	for k, v := range n.Options {
		opts[k] = v
	}
	opts["path"] = t.Location
	if isIceberg(t.Format) {
		for k, v := range icebergTimeTravel(n.TimeTravel) {
			opts[k] = v
		}
		// An Iceberg table's schema is in its metadata (the read snapshot's).
		return &plan.DataSource{Format: t.Format, Options: opts, IsStreaming: n.IsStreaming}
	}
	return &plan.DataSource{Format: t.Format, Schema: schemaDDL(t.Columns), Options: opts, IsStreaming: n.IsStreaming}
}

// schemaDDL renders columns as a DDL schema string ("`a` INT, `b` STRING").
func schemaDDL(cols []metastore.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = sparkerr.Quote(c.Name) + " " + c.Type
		if !c.Nullable {
			parts[i] += " NOT NULL"
		}
	}
	return strings.Join(parts, ", ")
}

// schemaOfTable is a table's schema.
func schemaOfTable(t metastore.Table) (sqltypes.Schema, error) {
	out := make(sqltypes.Schema, len(t.Columns))
	for i, c := range t.Columns {
		typ, err := parser.ParseDataType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("engine: the type of column %s of %s: %w", c.Name, t.QualifiedName(), err)
		}
		out[i] = sqltypes.Field{Name: c.Name, Type: typ, Nullable: c.Nullable}
	}
	return out, nil
}

// columnsOf is a schema as catalog columns (comments from field metadata).
func columnsOf(schema sqltypes.Schema, nullable bool) []metastore.Column {
	out := make([]metastore.Column, len(schema))
	for i, f := range schema {
		out[i] = metastore.Column{Name: f.Name, Type: f.Type.SQL(), Nullable: f.Nullable || nullable, Comment: fieldComment(f)}
	}
	return out
}

// managedLocation is where a managed table's files go: <warehouse>/<t> in the default
// database, <warehouse>/<db>.db/<t> (or the database's location) in others. The names become
// path parts, so a name that could leave its directory or land on another database's
// directory ("x.db" in default) is INVALID_SCHEMA_OR_RELATION_NAME.
func (s *Session) managedLocation(db, table string) (string, error) {
	for _, n := range []string{db, table} {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
			return "", invalidPathName(n)
		}
	}
	if d, ok := s.tables.Database(db); ok && d.Location != "" {
		return filepath.Join(d.Location, table), nil
	}
	if db == metastore.DefaultDatabase {
		if strings.HasSuffix(strings.ToLower(table), ".db") {
			return "", invalidPathName(table)
		}
		return filepath.Join(s.warehouse, table), nil
	}
	return filepath.Join(s.warehouse, db+".db", table), nil
}

func invalidPathName(name string) *sparkerr.Error {
	return sparkerr.Analysis("INVALID_SCHEMA_OR_RELATION_NAME", "42602",
		"%s is not a valid name for tables/schemas. Valid names only contain alphabet characters, numbers and _.",
		sparkerr.Quote(name)).WithParams("name", sparkerr.Quote(name))
}

// deleteManagedFiles deletes a dropped managed table's directory: only one strictly inside the
// warehouse, and only as the file-access policy allows replacing it.
func (s *Session) deleteManagedFiles(t metastore.Table) error {
	if t.Kind != metastore.Managed || t.Location == "" || t.Catalog != "" {
		return nil
	}
	resolved, err := s.files.Resolve(t.Location)
	if err != nil {
		return err
	}
	wh, err := s.files.Resolve(s.warehouse)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(resolved, wh+string(filepath.Separator)) {
		// A managed table of a database with its own LOCATION: its files are not the
		// warehouse's to delete.
		return nil
	}
	if _, err := s.files.CheckReplace(resolved); err != nil {
		return err
	}
	if err := os.RemoveAll(resolved); err != nil {
		return sparkerr.Internal("deleting the files of %s: %v", t.QualifiedName(), err)
	}
	return nil
}

// fieldComment is a field's comment from its metadata ("" if none).
func fieldComment(f sqltypes.Field) string {
	if f.Metadata == "" || f.Metadata == "{}" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(f.Metadata), &m) != nil {
		return ""
	}
	c, _ := m["comment"].(string)
	return c
}
