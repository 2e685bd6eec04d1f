package plan

// CatalogCall is one spark.catalog method (Spark Connect's Catalog relation). It is a relation
// only at the top of a plan: the engine runs it and answers with the rows Spark's Catalog API
// gives (a "value" column for the single-value methods, Spark's Table/Database/Column/Function
// rows for the listings).
type CatalogCall struct {
	RelCommon
	// Method is the spark.catalog method's name: "currentDatabase", "setCurrentDatabase",
	// "listDatabases", "getDatabase", "databaseExists", "listTables", "getTable",
	// "tableExists", "listColumns", "listFunctions", "getFunction", "functionExists",
	// "dropTempView", "dropGlobalTempView", "isCached", "cacheTable", "uncacheTable",
	// "clearCache", "refreshTable", "refreshByPath", "currentCatalog", "setCurrentCatalog",
	// "listCatalogs".
	Method string
	// Name is the table, view, function, database or catalog the method names ("" if none);
	// Database is the deprecated dbName argument ("" if none).
	Name, Database string
	// Pattern is the listing methods' pattern ("" for none).
	Pattern string
	// Command is what the table-creating and table-altering methods do ("createTable",
	// "dropTable", "dropView", "createDatabase", "dropDatabase", "getTableProperties",
	// "getCreateTableString", "truncateTable"): the SQL command they stand for; nil for the
	// others.
	Command Command
}
