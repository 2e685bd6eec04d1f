package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The spark.catalog API over Weir's catalog: the one database "default" of the one catalog
// "spark_catalog", the session's temporary views, the built-in functions and the session's
// Python functions. Answers have the columns and types Spark 4.2's Connect server gives.
// cacheTable records the name (isCached reports it) as df.persist() records a plan: Weir reads
// a cached view as planned, so caching changes no result.

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
		return one(defaultDatabase)
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
		return one(isDefaultDatabase(c.Name))
	case "listDatabases":
		if c.Pattern != "" && !likeSparkPattern(c.Pattern, defaultDatabase) {
			return nil, nil
		}
		return [][]any{s.databaseRow()}, nil
	case "getDatabase":
		if !isDefaultDatabase(c.Name) {
			return nil, schemaNotFound(c.Name)
		}
		return [][]any{s.databaseRow()}, nil
	case "listTables":
		if c.Database != "" && !isDefaultDatabase(c.Database) {
			return nil, schemaNotFound(c.Database)
		}
		var rows [][]any
		for _, n := range s.views.names() {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, n) {
				rows = append(rows, tempViewRow(n))
			}
		}
		return rows, nil
	case "getTable":
		if _, ok := s.tempView(c.Name, c.Database); !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		return [][]any{tempViewRow(strings.ToLower(c.Name))}, nil
	case "tableExists":
		_, ok := s.tempView(c.Name, c.Database)
		return one(ok)
	case "listColumns":
		n, ok := s.tempView(c.Name, c.Database)
		if !ok {
			return nil, sparkerr.TableNotFound(tableName(c))
		}
		var rows [][]any
		for _, f := range n.Schema() {
			rows = append(rows, []any{f.Name, nil, f.Type.String(), f.Nullable, false, false, false})
		}
		return rows, nil
	case "listFunctions":
		if c.Database != "" && !isDefaultDatabase(c.Database) {
			return nil, schemaNotFound(c.Database)
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
		// Weir keeps no global temporary views: there is nothing to drop.
		return one(false)
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

func (s *Session) databaseRow() []any {
	return []any{defaultDatabase, catalogName, "default database", nil}
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

func isDefaultDatabase(name string) bool {
	return strings.EqualFold(name, defaultDatabase) || strings.EqualFold(name, catalogName+"."+defaultDatabase)
}

func tableName(c *plan.CatalogCall) []string {
	if c.Database != "" {
		return []string{c.Database, c.Name}
	}
	return []string{c.Name}
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
