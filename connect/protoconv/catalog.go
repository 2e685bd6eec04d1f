package protoconv

import (
	"fmt"
	"strings"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
)

// catalog converts a spark.catalog call. The table-creating and table-altering methods of
// Spark 4 (createTable, dropTable, createDatabase, listPartitions, truncateTable, ...) need
// persistent tables, which Weir's catalog does not hold yet: they are refused by name.
func catalog(c *pb.Catalog) (plan.Relation, error) {
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
	case nil:
		return nil, invalidPlan("Catalog relation without a method")
	}
	return nil, sparkerr.Unsupported("catalog method %s is not supported (Weir's catalog holds temporary views only)", catalogMethodName(c))
}

// catalogMethodName names an unsupported catalog method as its proto message does.
func catalogMethodName(c *pb.Catalog) string {
	name := fmt.Sprintf("%T", c.GetCatType())
	return strings.TrimPrefix(name, "*sparkconnectpb.Catalog_")
}
