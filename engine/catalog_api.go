package engine

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The spark.catalog API over Weir's catalog: the databases, tables and views of the one
// catalog "spark_catalog" (the metastore, tables.go), the session's temporary views, the
// built-in functions and the session's Python functions. The table-creating and -altering
// methods run the SQL command they stand for (createTable answers the new table's rows). Answers have the columns and types Spark 4.2's Connect server gives.
// cacheTable records the name (isCached reports it): Weir reads a cached view as planned, so
// caching a view by name changes no result (df.persist() does hold rows: persisted_plans.go).

const (
	catalogName     = "spark_catalog"
	defaultDatabase = "default"
)

var (
	valueString = sqltypes.Schema{{Name: "value", Type: sqltypes.StringType, Nullable: true}}
	valueBool   = sqltypes.Schema{{Name: "value", Type: sqltypes.BooleanType}}
	// unitSchema is the empty answer of the methods that return nothing (Spark: a string column).
	unitSchema   = sqltypes.Schema{{Name: "value", Type: sqltypes.StringType}}
	namespaceCol = sqltypes.Field{Name: "namespace", Type: sqltypes.ArrayType(sqltypes.StringType, true), Nullable: true}
	tableSchema  = sqltypes.Schema{stringField("name"), stringField("catalog"), namespaceCol,
		stringField("description"), stringField("tableType"), {Name: "isTemporary", Type: sqltypes.BooleanType}}
	databaseSchema = sqltypes.Schema{stringField("name"), stringField("catalog"), stringField("description"),
		stringField("locationUri")}
	columnSchema = sqltypes.Schema{stringField("name"), stringField("description"), stringField("dataType"),
		{Name: "nullable", Type: sqltypes.BooleanType}, {Name: "isPartition", Type: sqltypes.BooleanType},
		{Name: "isBucket", Type: sqltypes.BooleanType}, {Name: "isCluster", Type: sqltypes.BooleanType}}
	functionSchema = sqltypes.Schema{stringField("name"), stringField("catalog"), namespaceCol,
		stringField("description"), stringField("className"), {Name: "isTemporary", Type: sqltypes.BooleanType}}
	catalogSchema = sqltypes.Schema{stringField("name"), stringField("description")}
)

// catalogCallSchema is the answer's schema of c's method.
func catalogCallSchema(c *plan.CatalogCall) (sqltypes.Schema, error) {
	switch c.Method {
	case "getTableProperties":
		return sqltypes.Schema{stringField("key"), stringField("value")}, nil
	case "getCreateTableString":
		return sqltypes.Schema{stringField("createtab_stmt")}, nil
	case "createTable", "createExternalTable", "dropTable", "dropView", "createDatabase", "dropDatabase", "truncateTable":
		return unitSchema, nil
	case "currentDatabase", "currentCatalog":
		return valueString, nil
	case "databaseExists", "tableExists", "functionExists", "dropTempView", "dropGlobalTempView", "isCached":
		return valueBool, nil
	case "setCurrentDatabase", "setCurrentCatalog", "cacheTable", "uncacheTable", "clearCache",
		"refreshTable", "refreshByPath":
		return unitSchema, nil
	case "listDatabases", "getDatabase":
		return databaseSchema, nil
	case "listTables", "getTable":
		return tableSchema, nil
	case "listColumns":
		return columnSchema, nil
	case "listFunctions", "getFunction":
		return functionSchema, nil
	case "listCatalogs":
		return catalogSchema, nil
	}
	return nil, sparkerr.Unsupported("catalog method %s is not supported", c.Method)
}

// catalogCall runs one spark.catalog method.
func (s *Session) catalogCall(ctx context.Context, c *plan.CatalogCall) (*Result, error) {
	if c.Command != nil {
		res, err := s.RunCommand(ctx, c.Command)
		if err != nil {
			return nil, err
		}
		switch c.Method {
		case "createTable", "createExternalTable":
			ct := c.Command.(plan.CreateTable)
			return s.Execute(ctx, &plan.NamedTable{Name: ct.Name})
		case "getTableProperties", "getCreateTableString":
			return res, nil
		}
		return s.rowsResult(unitSchema, nil)
	}
	schema, err := catalogCallSchema(c)
	if err != nil {
		return nil, err
	}
	rows, err := s.catalogRows(ctx, c)
	if err != nil {
		return nil, err
	}
	return s.rowsResult(schema, rows)
}

func (s *Session) catalogRows(ctx context.Context, c *plan.CatalogCall) ([][]any, error) {
	one := func(v any) ([][]any, error) { return [][]any{{v}}, nil }
	switch c.Method {
	case "currentDatabase":
		return one(s.views.currentDatabase())
	case "currentCatalog":
		return one(catalogName)
	case "setCurrentDatabase":
		if _, err := s.useDatabase([]string{c.Name}); err != nil {
			return nil, err
		}
		return nil, nil
	case "setCurrentCatalog":
		if !strings.EqualFold(c.Name, catalogName) {
			return nil, catalogNotFound(c.Name)
		}
		return nil, nil
	case "listCatalogs":
		if c.Pattern != "" && !likeSparkPattern(c.Pattern, catalogName) {
			return nil, nil
		}
		return [][]any{{catalogName, nil}}, nil
	case "databaseExists":
		db, err := qualifyDatabase(strings.Split(c.Name, "."))
		if err != nil {
			return one(false)
		}
		_, ok := s.tables.Database(db)
		return one(ok)
	case "listDatabases":
		var rows [][]any
		for _, db := range s.tables.Databases() {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, db.Name) {
				rows = append(rows, s.databaseRow(db))
			}
		}
		return rows, nil
	case "getDatabase":
		name, err := qualifyDatabase(strings.Split(c.Name, "."))
		if err != nil {
			return nil, err
		}
		db, ok := s.tables.Database(name)
		if !ok {
			return nil, metastore.SchemaNotFound(name)
		}
		return [][]any{s.databaseRow(db)}, nil
	case "listTables":
		db := s.views.currentDatabase()
		if c.Database != "" {
			var err error
			if db, err = qualifyDatabase(strings.Split(c.Database, ".")); err != nil {
				return nil, err
			}
		}
		var rows [][]any
		if isGlobalTempDatabase(db) {
			for _, n := range s.global.c.names() {
				if c.Pattern == "" || likeSparkPattern(c.Pattern, n) {
					rows = append(rows, globalTempViewRow(n))
				}
			}
		} else {
			tables, err := s.tables.Tables(db)
			if err != nil {
				return nil, err
			}
			for _, t := range tables {
				if c.Pattern == "" || likeSparkPattern(c.Pattern, t.Name) {
					rows = append(rows, tableRow(t))
				}
			}
		}
		for _, n := range s.views.names() {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, n) {
				rows = append(rows, tempViewRow(n))
			}
		}
		return rows, nil
	case "getTable":
		if _, ok := s.tempView(c.Name, c.Database); ok {
			return [][]any{tempViewRow(strings.ToLower(c.Name))}, nil
		}
		if v, ok := globalViewName(tableName(c)); ok {
			if _, ok := s.global.c.TempView(v); ok {
				return [][]any{globalTempViewRow(strings.ToLower(v))}, nil
			}
		}
		t, ok, err := s.catalogTable(ctx, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		return [][]any{tableRow(t)}, nil
	case "tableExists":
		if _, ok := s.tempView(c.Name, c.Database); ok {
			return one(true)
		}
		if v, ok := globalViewName(tableName(c)); ok {
			_, ok := s.global.c.TempView(v)
			return one(ok)
		}
		_, ok, err := s.catalogTable(ctx, c)
		return one(ok && err == nil)
	case "listColumns":
		var partitions []string
		var schema sqltypes.Schema
		_, global := globalViewName(tableName(c))
		if _, ok := s.tempView(c.Name, c.Database); !ok && !global {
			t, ok, err := s.catalogTable(ctx, c)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, sparkerr.TableNotFound(tableName(c))
			}
			partitions = t.PartitionBy
			if t.IsMetricView() { // its columns are its dimensions and measures, not a read's
				if schema, err = schemaOfTable(t); err != nil {
					return nil, err
				}
			}
		}
		if schema == nil {
			n, err := s.Analyze(ctx, &plan.NamedTable{Name: tableName(c)})
			if err != nil {
				return nil, err
			}
			schema = n.Schema()
		}
		var rows [][]any
		for _, f := range schema {
			rows = append(rows, []any{f.Name, nullIfEmpty(fieldComment(f)), f.Type.String(), f.Nullable,
				containsFold(partitions, f.Name), false, false})
		}
		return rows, nil
	case "listFunctions":
		if c.Database != "" {
			if db, err := qualifyDatabase(strings.Split(c.Database, ".")); err != nil {
				return nil, err
			} else if _, ok := s.tables.Database(db); !ok {
				return nil, metastore.SchemaNotFound(db)
			}
		}
		var rows [][]any
		for _, n := range s.functionNames() {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, n) {
				rows = append(rows, functionRow(n))
			}
		}
		return rows, nil
	case "getFunction", "functionExists":
		name := strings.ToLower(c.Name)
		found := false
		for _, n := range s.functionNames() {
			if n == name {
				found = true
				break
			}
		}
		if c.Method == "functionExists" {
			return one(found)
		}
		if !found {
			return nil, sparkerr.UnresolvedRoutine(c.Name)
		}
		return [][]any{functionRow(name)}, nil
	case "dropTempView":
		dropped := s.views.drop(c.Name)
		s.views.uncacheName(c.Name)
		return one(dropped)
	case "dropGlobalTempView":
		return one(s.global.c.drop(c.Name))
	case "isCached":
		if _, ok := s.tempView(c.Name, ""); !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		return one(s.views.isCachedName(c.Name))
	case "cacheTable", "refreshTable":
		if _, ok := s.tempView(c.Name, ""); !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		if c.Method == "cacheTable" {
			s.views.cacheName(c.Name)
		}
		return nil, nil
	case "uncacheTable":
		if _, ok := s.tempView(c.Name, ""); !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		s.views.uncacheName(c.Name)
		return nil, nil
	case "clearCache":
		s.views.clearCachedNames()
		return nil, nil
	case "refreshByPath":
		// File sources list their files when a query runs: nothing is held to refresh.
		return nil, nil
	}
	return nil, sparkerr.Unsupported("catalog method %s is not supported", c.Method)
}

// tempView finds a temporary view by name; a database-qualified name (or a dbName) names a
// table, which Weir's catalog does not hold.
func (s *Session) tempView(name, db string) (logical.Node, bool) {
	if db != "" || strings.Contains(name, ".") {
		return nil, false
	}
	return s.views.TempView(name)
}

// catalogTable finds the catalog table a getTable/tableExists/listColumns call names (the
// name may be qualified, or dbName given).
func (s *Session) catalogTable(ctx context.Context, c *plan.CatalogCall) (metastore.Table, bool, error) {
	return s.lookupTable(ctx, tableName(c))
}

func (s *Session) databaseRow(db metastore.Database) []any {
	loc := db.Location
	if loc == "" {
		if db.Name == metastore.DefaultDatabase {
			loc = s.warehouse
		} else {
			loc = filepath.Join(s.warehouse, db.Name+".db")
		}
	}
	return []any{db.Name, catalogName, nullIfEmpty(db.Description), fileaccess.HadoopPath(loc)}
}

func tableRow(t metastore.Table) []any {
	kind := t.Kind
	if t.IsMetricView() {
		kind = metastore.View // Spark's catalog API lists a metric view as a VIEW
	}
	return []any{t.Name, catalogName, []any{t.Database}, nullIfEmpty(t.Comment), kind, false}
}

// functionNames are the built-in functions and the session's Python functions, sorted.
func (s *Session) functionNames() []string {
	names := analyzer.FunctionNames()
	s.python.mu.Lock()
	for n := range s.python.funcs {
		names = append(names, n)
	}
	s.python.mu.Unlock()
	sort.Strings(names)
	return names
}

func tempViewRow(name string) []any {
	return []any{name, nil, []any{}, nil, "TEMPORARY", true}
}

func functionRow(name string) []any {
	return []any{name, nil, nil, nil, nil, true}
}

// tableName is the name a call names: its (possibly qualified) name, after dbName if given.
func tableName(c *plan.CatalogCall) []string {
	name, err := parser.ParseMultipartIdentifier(c.Name)
	if err != nil {
		name = []string{c.Name}
	}
	if c.Database != "" {
		return append([]string{c.Database}, name...)
	}
	return name
}

func schemaNotFound(name string) *sparkerr.Error {
	return sparkerr.Analysis("SCHEMA_NOT_FOUND", "42704",
		"The schema %s cannot be found. Verify the spelling and correctness of the schema and catalog.",
		sparkerr.Quote(catalogName, name)).WithParams("schemaName", sparkerr.Quote(catalogName, name))
}

func catalogNotFound(name string) *sparkerr.Error {
	return sparkerr.Analysis("CATALOG_NOT_FOUND", "42P08",
		"The catalog %s not found. Consider to set the SQL config spark.sql.catalog.%s to a catalog plugin.",
		sparkerr.Quote(name), name).WithParams("catalogName", sparkerr.Quote(name))
}
