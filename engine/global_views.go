package engine

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Global temporary views (createGlobalTempView, CREATE GLOBAL TEMP VIEW): views of the server
// rather than of one session, named global_temp.<name> (Spark's spark.sql.globalTempDatabase),
// kept in memory until dropped or the server stops. They live in a catalog of their own that
// the server's sessions share (WithGlobalTempViews); an unqualified name never finds one, and
// the database name global_temp is reserved for them.

// GlobalTempDatabase is the database global temporary views are read through.
const GlobalTempDatabase = "global_temp"

// GlobalTempViews are a server's global temporary views.
type GlobalTempViews struct{ c *catalog }

// NewGlobalTempViews returns an empty set of global temporary views.
func NewGlobalTempViews() *GlobalTempViews { return &GlobalTempViews{c: newCatalog()} }

// WithGlobalTempViews sets the global temporary views the session shares with the server's
// other sessions (default: the session's own).
func WithGlobalTempViews(g *GlobalTempViews) SessionOption {
	return func(s *Session) { s.global = g }
}

// isGlobalTempDatabase reports whether db names the global temporary views' database.
func isGlobalTempDatabase(db string) bool { return strings.EqualFold(db, GlobalTempDatabase) }

// globalViewName is the view name names if it is global_temp.<view> (or
// spark_catalog-less: Spark's global_temp is not in a catalog).
func globalViewName(name []string) (string, bool) {
	if len(name) == 2 && isGlobalTempDatabase(name[0]) {
		return name[1], true
	}
	return "", false
}

// reservedGlobalTempDatabase is Spark's error for creating a database named global_temp.
func reservedGlobalTempDatabase() *sparkerr.Error {
	return sparkerr.Analysis("_LEGACY_ERROR_TEMP_1066", "",
		"%s is a system preserved database, you cannot create a database with this name.", GlobalTempDatabase).
		WithParams("database", GlobalTempDatabase)
}

// globalTempViewRow is a global temporary view in spark.catalog.listTables/getTable.
func globalTempViewRow(name string) []any {
	return []any{name, nil, []any{GlobalTempDatabase}, nil, "TEMPORARY", true}
}
