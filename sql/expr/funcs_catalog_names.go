package expr

import sqltypes "github.com/weirhq/weir/sql/types"

// current_catalog(), current_database() and current_schema(): Weir has one catalog,
// spark_catalog, and one database, default (Spark 4.2 names the latter two's column
// current_schema()).

func init() {
	registerScalar(0, 0, bindCatalogName, "current_catalog", "current_database", "current_schema")
}

func bindCatalogName(name string, args []Expr, opts Options) (Expr, error) {
	value, str := "default", "current_schema()"
	if name == "current_catalog" {
		value, str = "spark_catalog", "current_catalog()"
	}
	return &rowFunc{name: name, t: sqltypes.StringType, str: str,
		fn: func(*Context, []any) (any, error) { return value, nil }}, nil
}
