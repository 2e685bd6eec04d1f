package metastore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

func errorClass(t *testing.T, err error) string {
	t.Helper()
	var se *sparkerr.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a sparkerr.Error", err)
	}
	return se.Class
}

func TestStoreSurvivesReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDatabase(Database{Name: "Sales"}, false); err != nil {
		t.Fatal(err)
	}
	tbl := Table{Database: "sales", Name: "Orders", Kind: Managed, Format: "parquet", Location: "/wh/sales.db/orders",
		Columns:     []Column{{Name: "id", Type: "INT", Nullable: true}, {Name: "day", Type: "STRING", Nullable: true}},
		PartitionBy: []string{"day"}, Properties: map[string]string{"k": "v"}}
	if created, _, err := s.CreateTable(tbl, false, false); err != nil || !created {
		t.Fatalf("CreateTable: created=%v err=%v", created, err)
	}
	view := Table{Database: "default", Name: "v", Kind: View, ViewText: "SELECT 1 AS one",
		Columns: []Column{{Name: "one", Type: "INT"}}}
	if _, _, err := s.CreateTable(view, false, false); err != nil {
		t.Fatal(err)
	}
	if err := s.RenameTable("sales", "orders", "orders2", "/wh/sales.db/orders2"); err != nil {
		t.Fatal(err)
	}

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Database("default"); !ok {
		t.Error("default database missing after reopen")
	}
	got, ok := r.Table("SALES", "orders2")
	if !ok {
		t.Fatal("renamed table missing after reopen")
	}
	if got.Location != "/wh/sales.db/orders2" || got.Format != "parquet" || len(got.Columns) != 2 ||
		got.PartitionBy[0] != "day" || got.Properties["k"] != "v" || got.Created.IsZero() {
		t.Errorf("reopened table = %+v", got)
	}
	if _, ok := r.Table("sales", "orders"); ok {
		t.Error("old name still present after rename")
	}
	if v, ok := r.Table("default", "V"); !ok || !v.IsView() || v.ViewText != "SELECT 1 AS one" {
		t.Errorf("view after reopen = %+v, %v", v, ok)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(names) != 1 || filepath.Base(names[0]) != fileName {
		t.Errorf("catalog dir holds %v, want only %s (no temporary files left)", names, fileName)
	}
}

func TestStoreErrors(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tbl := Table{Database: "default", Name: "t", Kind: External, Format: "json", Location: "/x"}
	if _, _, err := s.CreateTable(tbl, false, false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"create existing table", second(s.CreateTable(tbl, false, false)), "TABLE_OR_VIEW_ALREADY_EXISTS"},
		{"create in missing db", second(s.CreateTable(Table{Database: "nodb", Name: "t"}, false, false)), "SCHEMA_NOT_FOUND"},
		{"create existing db", s.CreateDatabase(Database{Name: "DEFAULT"}, false), "SCHEMA_ALREADY_EXISTS"},
		{"drop missing db", dropDB(s, "nodb", false, false), "SCHEMA_NOT_FOUND"},
		{"drop non-empty db", dropDB(s, "default", false, false), "UNSUPPORTED_FEATURE.DROP_DATABASE"},
		{"alter missing", alter(s, "default", "nosuch"), "TABLE_OR_VIEW_NOT_FOUND"},
		{"rename onto existing", renameOnto(s), "TABLE_OR_VIEW_ALREADY_EXISTS"},
		{"tables of missing db", tablesErr(s, "nodb"), "SCHEMA_NOT_FOUND"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error, want %s", c.name, c.want)
			continue
		}
		if got := errorClass(t, c.err); got != c.want {
			t.Errorf("%s: class %s, want %s (%v)", c.name, got, c.want, c.err)
		}
	}
	if created, _, err := s.CreateTable(tbl, false, true); err != nil || created {
		t.Errorf("IF NOT EXISTS on an existing table: created=%v err=%v, want false, nil", created, err)
	}
	if err := s.CreateDatabase(Database{Name: "db"}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateTable(Table{Database: "db", Name: "x", Kind: Managed}, false, false); err != nil {
		t.Fatal(err)
	}
	if got := errorClass(t, dropDB(s, "db", false, false)); got != "SCHEMA_NOT_EMPTY" {
		t.Errorf("drop non-empty db: %s, want SCHEMA_NOT_EMPTY", got)
	}
	dropped, err := s.DropDatabase("db", false, true)
	if err != nil || len(dropped) != 1 || dropped[0].Name != "x" {
		t.Errorf("DROP DATABASE CASCADE returned %v, %v; want the table x", dropped, err)
	}
	if _, ok := s.Database("db"); ok {
		t.Error("database still present after CASCADE drop")
	}
}

func TestStoreInMemory(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDatabase(Database{Name: "m"}, false); err != nil {
		t.Fatal(err)
	}
	if dbs := s.Databases(); len(dbs) != 2 || dbs[0].Name != "default" || dbs[1].Name != "m" {
		t.Errorf("Databases() = %v", dbs)
	}
}

func TestStoreRefusesNewerFormat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, fileName), []byte(`{"version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil {
		t.Error("Open accepted a catalog of a newer format version")
	}
}

func second[A, B any](_ A, _ B, err error) error { return err }

func dropDB(s *Store, name string, ifExists, cascade bool) error {
	_, err := s.DropDatabase(name, ifExists, cascade)
	return err
}

func alter(s *Store, db, name string) error {
	_, err := s.AlterTable(db, name, func(*Table) error { return nil })
	return err
}

func renameOnto(s *Store) error {
	if _, _, err := s.CreateTable(Table{Database: "default", Name: "u", Kind: External}, false, false); err != nil {
		return err
	}
	return s.RenameTable("default", "t", "u", "")
}

func tablesErr(s *Store, db string) error {
	_, err := s.Tables(db)
	return err
}
