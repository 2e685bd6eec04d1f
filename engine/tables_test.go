package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/metastore"
)

// TestTablesDeleteOnlyInsideTheWarehouse: DROP of a managed table deletes its directory in the
// warehouse (everything under the test's temp dir); a managed table of a database with its own
// LOCATION and an external table keep their files; the catalog survives a new store on the
// same directory.
func TestTablesDeleteOnlyInsideTheWarehouse(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	state := filepath.Join(root, "state")
	warehouse := filepath.Join(state, "warehouse")
	must(t, os.MkdirAll(warehouse, 0o755))
	policy, err := fileaccess.New(fileaccess.Config{StateDir: state, Warehouse: warehouse, WorkDir: root})
	must(t, err)
	open := func() *Session {
		store, err := metastore.Open(filepath.Join(state, "catalog"))
		must(t, err)
		return NewSession(WithFileAccess(policy), WithMetastore(store))
	}
	s := open()
	defer s.Close()
	elsewhere := filepath.Join(root, "elsewhere")
	external := filepath.Join(root, "external")
	for _, q := range []string{
		"CREATE TABLE t (a INT, p STRING) USING parquet PARTITIONED BY (p)",
		"INSERT INTO t VALUES (1, 'x'), (2, 'y')",
		"CREATE DATABASE other LOCATION '" + elsewhere + "'",
		"CREATE TABLE other.u USING json AS SELECT 1 AS b",
		"CREATE TABLE e (c INT) USING csv LOCATION '" + external + "'",
		"INSERT INTO e VALUES (3)",
	} {
		if _, err := runSQL(ctx, s, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, dir := range []string{filepath.Join(warehouse, "t", "p=x"), filepath.Join(elsewhere, "u"), external} {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("expected %s to exist: %v", dir, err)
		}
	}

	r := open() // another server on the same state dir sees the same catalog
	defer r.Close()
	rows, err := render(ctx, r, mustResult(t)(runSQL(ctx, r, "SELECT a, p FROM default.t ORDER BY a")))
	must(t, err)
	if got := strings.Join(rows, ";"); got != "1 | x;2 | y" {
		t.Fatalf("rows after reopening = %q, want 1 | x;2 | y", got)
	}
	for _, q := range []string{"DROP TABLE t", "DROP DATABASE other CASCADE", "DROP TABLE e"} {
		if _, err := runSQL(ctx, r, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(warehouse, "t")); !os.IsNotExist(err) {
		t.Errorf("the managed table's directory is still there (err %v)", err)
	}
	for _, dir := range []string{warehouse, filepath.Join(elsewhere, "u"), external} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was deleted: %v", dir, err)
		}
	}
}

func mustResult(t *testing.T) func(*Result, error) *Result {
	return func(res *Result, err error) *Result {
		t.Helper()
		must(t, err)
		return res
	}
}

// TestTableNamesStayInTheirDirectory: a managed table's or database's name is a path part, so a
// name that could leave its directory or take another database's is refused, and a PATH option
// in any case is the table's location rather than an override left in its options.
func TestTableNamesStayInTheirDirectory(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	state := filepath.Join(root, "state")
	warehouse := filepath.Join(state, "warehouse")
	must(t, os.MkdirAll(warehouse, 0o755))
	policy, err := fileaccess.New(fileaccess.Config{StateDir: state, Warehouse: warehouse, WorkDir: root})
	must(t, err)
	store, err := metastore.Open(filepath.Join(state, "catalog"))
	must(t, err)
	s := NewSession(WithFileAccess(policy), WithMetastore(store))
	defer s.Close()
	for _, q := range []string{
		"CREATE TABLE `x.db` (a INT) USING parquet",
		"CREATE TABLE `../../out` (a INT) USING parquet",
		"CREATE TABLE `a/b` (a INT) USING parquet",
	} {
		_, err := runSQL(ctx, s, q)
		if err == nil || !strings.Contains(err.Error(), "INVALID_SCHEMA_OR_RELATION_NAME") {
			t.Errorf("%s: err = %v, want INVALID_SCHEMA_OR_RELATION_NAME", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "out")); !os.IsNotExist(err) {
		t.Errorf("a table name made %s (err %v)", filepath.Join(root, "out"), err)
	}
	ext := filepath.Join(root, "ext")
	if _, err := runSQL(ctx, s, "CREATE TABLE p (a INT) USING parquet OPTIONS ('PATH' '"+ext+"')"); err != nil {
		t.Fatal(err)
	}
	tbl, ok := store.Table("default", "p")
	if !ok || tbl.Location != ext || tbl.Kind != metastore.External {
		t.Fatalf("table p = %+v, want external at %s", tbl, ext)
	}
	for k := range tbl.Options {
		if strings.EqualFold(k, "path") {
			t.Fatalf("the PATH option stayed in the table's options: %v", tbl.Options)
		}
	}
}
