package expr

import sqltypes "github.com/weirhq/weir/sql/types"

// current_catalog(), current_database() and current_schema(): Weir has one catalog,
// spark_catalog; the database is the session's current one (Options.Database, set by USE).
// Spark 4.2 names the latter two's column current_schema(). current_path() is the SQL path
// Spark 4.2 resolves unqualified routine and table names through: the builtin and session
// namespaces, then the current catalog and database.

func init() {
	registerScalar(0, 0, bindCatalogName, "current_catalog", "current_database", "current_schema", "current_path")
}

func bindCatalogName(name string, args []Expr, opts Options) (Expr, error) {
	db := opts.Database
	if db == "" {
		db = "default"
	}
	value, str := db, "current_schema()"
	switch name {
	case "current_catalog":
		value, str = "spark_catalog", "current_catalog()"
	case "current_path":
		value, str = "system.builtin,system.session,spark_catalog."+db, "current_path()"
	}
	return &rowFunc{name: name, t: sqltypes.StringType, str: str,
		fn: func(*Context, []any) (any, error) { return value, nil }}, nil
}
