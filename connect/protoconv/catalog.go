package protoconv

import (
	"fmt"
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// catalog converts a spark.catalog call. The table-creating and table-altering methods
// (createTable, dropTable, createDatabase, truncateTable, ...) carry the SQL command they
// stand for; listPartitions, recoverPartitions, analyzeTable and listViews are refused by
// name.
func catalog(c *pb.Catalog) (plan.Relation, error) {
	command := func(method, name string, cmd plan.Command) (plan.Relation, error) {
		return &plan.CatalogCall{Method: method, Name: name, Command: cmd}, nil
	}
	split := func(name string) []string {
		if parts, err := SplitIdentifier(name); err == nil {
			return parts
		}
		return []string{name}
	}
	call := func(method, name, db, pattern string) (plan.Relation, error) {
		return &plan.CatalogCall{Method: method, Name: name, Database: db, Pattern: pattern}, nil
	}
	switch x := c.GetCatType().(type) {
	case *pb.Catalog_CurrentDatabase:
		return call("currentDatabase", "", "", "")
	case *pb.Catalog_SetCurrentDatabase:
		return call("setCurrentDatabase", x.SetCurrentDatabase.GetDbName(), "", "")
	case *pb.Catalog_ListDatabases:
		return call("listDatabases", "", "", x.ListDatabases.GetPattern())
	case *pb.Catalog_GetDatabase:
		return call("getDatabase", x.GetDatabase.GetDbName(), "", "")
	case *pb.Catalog_DatabaseExists:
		return call("databaseExists", x.DatabaseExists.GetDbName(), "", "")
	case *pb.Catalog_ListTables:
		return call("listTables", "", x.ListTables.GetDbName(), x.ListTables.GetPattern())
	case *pb.Catalog_GetTable:
		return call("getTable", x.GetTable.GetTableName(), x.GetTable.GetDbName(), "")
	case *pb.Catalog_TableExists:
		return call("tableExists", x.TableExists.GetTableName(), x.TableExists.GetDbName(), "")
	case *pb.Catalog_ListColumns:
		return call("listColumns", x.ListColumns.GetTableName(), x.ListColumns.GetDbName(), "")
	case *pb.Catalog_ListFunctions:
		return call("listFunctions", "", x.ListFunctions.GetDbName(), x.ListFunctions.GetPattern())
	case *pb.Catalog_GetFunction:
		return call("getFunction", x.GetFunction.GetFunctionName(), x.GetFunction.GetDbName(), "")
	case *pb.Catalog_FunctionExists:
		return call("functionExists", x.FunctionExists.GetFunctionName(), x.FunctionExists.GetDbName(), "")
	case *pb.Catalog_DropTempView:
		return call("dropTempView", x.DropTempView.GetViewName(), "", "")
	case *pb.Catalog_DropGlobalTempView:
		return call("dropGlobalTempView", x.DropGlobalTempView.GetViewName(), "", "")
	case *pb.Catalog_IsCached:
		return call("isCached", x.IsCached.GetTableName(), "", "")
	case *pb.Catalog_CacheTable:
		return call("cacheTable", x.CacheTable.GetTableName(), "", "")
	case *pb.Catalog_UncacheTable:
		return call("uncacheTable", x.UncacheTable.GetTableName(), "", "")
	case *pb.Catalog_ClearCache:
		return call("clearCache", "", "", "")
	case *pb.Catalog_RefreshTable:
		return call("refreshTable", x.RefreshTable.GetTableName(), "", "")
	case *pb.Catalog_RefreshByPath:
		return call("refreshByPath", x.RefreshByPath.GetPath(), "", "")
	case *pb.Catalog_CurrentCatalog:
		return call("currentCatalog", "", "", "")
	case *pb.Catalog_SetCurrentCatalog:
		return call("setCurrentCatalog", x.SetCurrentCatalog.GetCatalogName(), "", "")
	case *pb.Catalog_ListCatalogs:
		return call("listCatalogs", "", "", x.ListCatalogs.GetPattern())
	case *pb.Catalog_CreateTable:
		ct := x.CreateTable
		return createTableCall("createTable", ct.GetTableName(), ct.GetPath(), ct.GetSource(), ct.GetDescription(), ct.GetSchema(), ct.GetOptions())
	case *pb.Catalog_CreateExternalTable:
		ct := x.CreateExternalTable
		return createTableCall("createExternalTable", ct.GetTableName(), ct.GetPath(), ct.GetSource(), "", ct.GetSchema(), ct.GetOptions())
	case *pb.Catalog_DropTable:
		return command("dropTable", x.DropTable.GetTableName(),
			plan.DropView{Name: split(x.DropTable.GetTableName()), IfExists: x.DropTable.GetIfExists(), IsTable: true})
	case *pb.Catalog_DropView:
		return command("dropView", x.DropView.GetViewName(),
			plan.DropView{Name: split(x.DropView.GetViewName()), IfExists: x.DropView.GetIfExists()})
	case *pb.Catalog_CreateDatabase:
		return command("createDatabase", x.CreateDatabase.GetDbName(), plan.CreateDatabase{Name: split(x.CreateDatabase.GetDbName()),
			IfNotExists: x.CreateDatabase.GetIfNotExists(), Properties: cloneMap(x.CreateDatabase.GetProperties())})
	case *pb.Catalog_DropDatabase:
		return command("dropDatabase", x.DropDatabase.GetDbName(), plan.DropDatabase{Name: split(x.DropDatabase.GetDbName()),
			IfExists: x.DropDatabase.GetIfExists(), Cascade: x.DropDatabase.GetCascade()})
	case *pb.Catalog_GetTableProperties:
		return command("getTableProperties", x.GetTableProperties.GetTableName(),
			plan.ShowTableProperties{Name: split(x.GetTableProperties.GetTableName())})
	case *pb.Catalog_GetCreateTableString:
		return command("getCreateTableString", x.GetCreateTableString.GetTableName(),
			plan.ShowCreateTable{Name: split(x.GetCreateTableString.GetTableName())})
	case *pb.Catalog_TruncateTable:
		return command("truncateTable", x.TruncateTable.GetTableName(),
			plan.TruncateTable{Name: split(x.TruncateTable.GetTableName())})
	case nil:
		return nil, invalidPlan("Catalog relation without a method")
	}
	return nil, sparkerr.Unsupported("catalog method %s is not supported", catalogMethodName(c))
}

// createTableCall is spark.catalog.createTable / createExternalTable: CREATE TABLE name
// [(schema)] USING source [LOCATION path] [COMMENT description] OPTIONS (...).
func createTableCall(method, name, path, source, description string, schema *pb.DataType, options map[string]string) (plan.Relation, error) {
	parts, err := SplitIdentifier(name)
	if err != nil {
		return nil, err
	}
	ct := plan.CreateTable{Name: parts, Format: source, Location: path, Comment: description}
	opts := cloneMap(options)
	if p, ok := opts["path"]; ok && ct.Location == "" {
		ct.Location = p
	}
	delete(opts, "path")
	if len(opts) > 0 {
		ct.Options = opts
	}
	if schema != nil {
		t, err := DataTypeFromProto(schema)
		if err != nil {
			return nil, err
		}
		if t.Kind != sqltypes.Struct {
			return nil, invalidPlan("%s: the schema is not a struct type", method)
		}
		ct.Columns = sqltypes.Schema(t.Fields)
	}
	return &plan.CatalogCall{Method: method, Name: name, Command: ct}, nil
}

// catalogMethodName names an unsupported catalog method as its proto message does.
func catalogMethodName(c *pb.Catalog) string {
	name := fmt.Sprintf("%T", c.GetCatType())
	return strings.TrimPrefix(name, "*sparkconnectpb.Catalog_")
}
