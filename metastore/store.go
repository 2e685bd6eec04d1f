package metastore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weirhq/weir/sparkerr"
)

// CatalogName is the one catalog's name.
const CatalogName = "spark_catalog"

// DefaultDatabase is the database that always exists.
const DefaultDatabase = "default"

// Table kinds, as Spark's CatalogTableType names them.
const (
	Managed  = "MANAGED"
	External = "EXTERNAL"
	View     = "VIEW"
	// MetricView is a metric view: ViewText holds its YAML definition.
	MetricView = "METRIC_VIEW"
)

// fileName is the catalog document's name inside the store's directory.
const fileName = "catalog.json"

// formatVersion is the document's version; Open refuses a newer one.
const formatVersion = 1

// Database is one database (Spark: schema, namespace).
type Database struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Location    string            `json:"location,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
}

// Column is one column of a table or view: Type is its type as SQL renders it ("INT",
// "ARRAY<STRING>").
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
}

// Table is one table or persistent view.
type Table struct {
	Database string `json:"database"`
	Name     string `json:"name"`
	// Kind is Managed, External or View.
	Kind string `json:"kind"`
	// Format is the data source ("parquet", "json", "csv", "text"); "" for a view.
	Format string `json:"format,omitempty"`
	// Location is the local directory of the table's files ("" for a view).
	Location string `json:"location,omitempty"`
	// Columns are the table's columns, partition columns last (as Spark keeps them).
	Columns     []Column          `json:"columns"`
	PartitionBy []string          `json:"partitionBy,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
	// Options are the data source's options (CREATE TABLE ... OPTIONS, df.write.option).
	Options map[string]string `json:"options,omitempty"`
	// ViewText is a view's SQL text; ViewDatabase the current database it was created in,
	// which its unqualified names resolve against.
	ViewText     string    `json:"viewText,omitempty"`
	ViewDatabase string    `json:"viewDatabase,omitempty"`
	Comment      string    `json:"comment,omitempty"`
	Created      time.Time `json:"created"`
	// Catalog is the catalog of a table the engine read from another catalog than this one (an
	// Iceberg REST catalog's); "" for the store's own. It is never stored.
	Catalog string `json:"-"`
}

// QualifiedName is the table's name as Spark's messages quote it: `spark_catalog`.`db`.`t`
// (the table's own catalog for another catalog's).
func (t *Table) QualifiedName() string {
	if t.Catalog != "" {
		return sparkerr.Quote(t.Catalog, t.Database, t.Name)
	}
	return sparkerr.Quote(CatalogName, t.Database, t.Name)
}

// IsView reports whether t is a persistent view (a metric view included).
func (t *Table) IsView() bool { return t.Kind == View || t.Kind == MetricView }

// IsMetricView reports whether t is a metric view.
func (t *Table) IsMetricView() bool { return t.Kind == MetricView }

// clone copies t deeply enough that the store's copy is not shared.
func (t Table) clone() Table {
	t.Columns = append([]Column(nil), t.Columns...)
	t.PartitionBy = append([]string(nil), t.PartitionBy...)
	t.Properties = cloneMap(t.Properties)
	t.Options = cloneMap(t.Options)
	return t
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// document is the on-disk form.
type document struct {
	Version   int        `json:"version"`
	Databases []Database `json:"databases"`
	Tables    []Table    `json:"tables"`
}

// Store is the persistent catalog.
type Store struct {
	mu  sync.RWMutex
	dir string // "" for a catalog in memory only
	dbs map[string]Database
	// tables by database, then by table name (both lower-cased).
	tables map[string]map[string]Table
}

// Open loads the catalog kept in dir (created if missing), or starts an empty one in memory for
// dir "". The default database is always there.
func Open(dir string) (*Store, error) {
	s := &Store{dir: dir, dbs: map[string]Database{}, tables: map[string]map[string]Table{}}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("metastore: %w", err)
		}
		data, err := os.ReadFile(filepath.Join(dir, fileName))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("metastore: %w", err)
		default:
			var doc document
			if err := json.Unmarshal(data, &doc); err != nil {
				return nil, fmt.Errorf("metastore: %s: %w", filepath.Join(dir, fileName), err)
			}
			if doc.Version > formatVersion {
				return nil, fmt.Errorf("metastore: %s has format version %d, newer than this server's %d",
					filepath.Join(dir, fileName), doc.Version, formatVersion)
			}
			for _, db := range doc.Databases {
				s.dbs[db.Name] = db
			}
			for _, t := range doc.Tables {
				if s.tables[t.Database] == nil {
					s.tables[t.Database] = map[string]Table{}
				}
				s.tables[t.Database][t.Name] = t
			}
		}
	}
	if _, ok := s.dbs[DefaultDatabase]; !ok {
		s.dbs[DefaultDatabase] = Database{Name: DefaultDatabase, Description: "default database"}
	}
	return s, nil
}

// save writes the catalog atomically (caller holds mu for writing).
func (s *Store) save() error {
	if s.dir == "" {
		return nil
	}
	doc := document{Version: formatVersion}
	for _, db := range s.dbs {
		doc.Databases = append(doc.Databases, db)
	}
	sort.Slice(doc.Databases, func(i, j int) bool { return doc.Databases[i].Name < doc.Databases[j].Name })
	for _, ts := range s.tables {
		for _, t := range ts {
			doc.Tables = append(doc.Tables, t)
		}
	}
	sort.Slice(doc.Tables, func(i, j int) bool {
		a, b := doc.Tables[i], doc.Tables[j]
		return a.Database < b.Database || a.Database == b.Database && a.Name < b.Name
	})
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.dir, fileName, data)
}

// writeAtomic replaces dir/name with data: a synced temporary file renamed over it, then the
// directory synced so that the rename is durable.
func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("metastore: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("metastore: writing the catalog: %w", err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("metastore: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("metastore: syncing %s: %w", dir, err)
	}
	return nil
}

// norm is a name as the catalog keys it.
func norm(name string) string { return strings.ToLower(name) }

// Databases lists the databases, sorted by name.
func (s *Store) Databases() []Database {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Database, 0, len(s.dbs))
	for _, db := range s.dbs {
		out = append(out, db)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Database returns a database by name.
func (s *Store) Database(name string) (Database, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	db, ok := s.dbs[norm(name)]
	return db, ok
}

// CreateDatabase adds db; an existing one is SCHEMA_ALREADY_EXISTS unless ifNotExists.
func (s *Store) CreateDatabase(db Database, ifNotExists bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	db.Name = norm(db.Name)
	if _, ok := s.dbs[db.Name]; ok {
		if ifNotExists {
			return nil
		}
		return SchemaAlreadyExists(db.Name)
	}
	s.dbs[db.Name] = db
	if err := s.save(); err != nil {
		delete(s.dbs, db.Name)
		return err
	}
	return nil
}

// DropDatabase removes a database. One holding tables or views is SCHEMA_NOT_EMPTY unless
// cascade, which drops them too and returns them (the caller deletes managed tables' files).
// A missing one is SCHEMA_NOT_FOUND unless ifExists. "default" cannot be dropped.
func (s *Store) DropDatabase(name string, ifExists, cascade bool) ([]Table, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := norm(name)
	db, ok := s.dbs[key]
	if !ok {
		if ifExists {
			return nil, nil
		}
		return nil, SchemaNotFound(name)
	}
	if key == DefaultDatabase {
		return nil, sparkerr.Analysis("UNSUPPORTED_FEATURE.DROP_DATABASE", "0A000",
			"The feature is not supported: Drop the default database %s.", sparkerr.Quote(CatalogName, key)).
			WithParams("database", sparkerr.Quote(CatalogName, key))
	}
	tables := s.tables[key]
	if len(tables) > 0 && !cascade {
		return nil, sparkerr.Analysis("SCHEMA_NOT_EMPTY", "2BP01",
			"Cannot drop a schema %s because it contains objects.", sparkerr.Quote(key)).
			WithParams("schemaName", sparkerr.Quote(key))
	}
	dropped := make([]Table, 0, len(tables))
	for _, t := range tables {
		dropped = append(dropped, t)
	}
	delete(s.dbs, key)
	delete(s.tables, key)
	if err := s.save(); err != nil {
		s.dbs[key], s.tables[key] = db, tables
		return nil, err
	}
	sortTables(dropped)
	return dropped, nil
}

// Table returns a table or view by database and name.
func (s *Store) Table(db, name string) (Table, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tables[norm(db)][norm(name)]
	return t.clone(), ok
}

// Tables lists a database's tables and views sorted by name; SCHEMA_NOT_FOUND if it does not
// exist.
func (s *Store) Tables(db string) ([]Table, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	key := norm(db)
	if _, ok := s.dbs[key]; !ok {
		return nil, SchemaNotFound(db)
	}
	out := make([]Table, 0, len(s.tables[key]))
	for _, t := range s.tables[key] {
		out = append(out, t.clone())
	}
	sortTables(out)
	return out, nil
}

func sortTables(ts []Table) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}

// CreateTable adds t (its Database must exist: SCHEMA_NOT_FOUND). An existing table or view of
// that name is TABLE_OR_VIEW_ALREADY_EXISTS, unless replace, which replaces it (and returns
// the replaced entry, the caller's to clean up), or ifNotExists, which keeps it and reports
// created false.
func (s *Store) CreateTable(t Table, replace, ifNotExists bool) (created bool, old *Table, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t = t.clone()
	t.Database, t.Name = norm(t.Database), norm(t.Name)
	if _, ok := s.dbs[t.Database]; !ok {
		return false, nil, SchemaNotFound(t.Database)
	}
	prev, exists := s.tables[t.Database][t.Name]
	if exists {
		switch {
		case ifNotExists:
			return false, nil, nil
		case !replace:
			return false, nil, AlreadyExists(t.Database, t.Name)
		}
	}
	if t.Created.IsZero() {
		t.Created = time.Now().UTC().Truncate(time.Second)
	}
	if s.tables[t.Database] == nil {
		s.tables[t.Database] = map[string]Table{}
	}
	s.tables[t.Database][t.Name] = t
	if err := s.save(); err != nil {
		if exists {
			s.tables[t.Database][t.Name] = prev
		} else {
			delete(s.tables[t.Database], t.Name)
		}
		return false, nil, err
	}
	if exists {
		return true, &prev, nil
	}
	return true, nil, nil
}

// DropTable removes a table or view and returns it; ok is false if there was none.
func (s *Store) DropTable(db, name string) (Table, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dbKey, key := norm(db), norm(name)
	t, ok := s.tables[dbKey][key]
	if !ok {
		return Table{}, false, nil
	}
	delete(s.tables[dbKey], key)
	if err := s.save(); err != nil {
		s.tables[dbKey][key] = t
		return Table{}, false, err
	}
	return t, true, nil
}

// AlterTable applies change to a copy of a table and stores the result if change returns no
// error. A missing table is TABLE_OR_VIEW_NOT_FOUND.
func (s *Store) AlterTable(db, name string, change func(*Table) error) (Table, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dbKey, key := norm(db), norm(name)
	t, ok := s.tables[dbKey][key]
	if !ok {
		return Table{}, NotFound(dbKey, key)
	}
	next := t.clone()
	if err := change(&next); err != nil {
		return Table{}, err
	}
	next.Database, next.Name = dbKey, key
	s.tables[dbKey][key] = next
	if err := s.save(); err != nil {
		s.tables[dbKey][key] = t
		return Table{}, err
	}
	return next.clone(), nil
}

// RenameTable renames db.from to db.to (Spark: ALTER TABLE RENAME TO stays in its database);
// location is the table's new location ("" keeps it: external tables and views).
func (s *Store) RenameTable(db, from, to, location string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	dbKey, fromKey, toKey := norm(db), norm(from), norm(to)
	t, ok := s.tables[dbKey][fromKey]
	if !ok {
		return NotFound(dbKey, fromKey)
	}
	if _, exists := s.tables[dbKey][toKey]; exists {
		return AlreadyExists(dbKey, toKey)
	}
	next := t.clone()
	next.Name = toKey
	if location != "" {
		next.Location = location
	}
	delete(s.tables[dbKey], fromKey)
	s.tables[dbKey][toKey] = next
	if err := s.save(); err != nil {
		delete(s.tables[dbKey], toKey)
		s.tables[dbKey][fromKey] = t
		return err
	}
	return nil
}

// SchemaNotFound is SCHEMA_NOT_FOUND for a database of the catalog.
func SchemaNotFound(db string) *sparkerr.Error { return SchemaNotFoundIn(CatalogName, db) }

// SchemaNotFoundIn is SCHEMA_NOT_FOUND for a database (namespace) of catalog.
func SchemaNotFoundIn(catalog, db string) *sparkerr.Error {
	q := sparkerr.Quote(catalog, norm(db))
	return sparkerr.Analysis("SCHEMA_NOT_FOUND", "42704",
		"The schema %s cannot be found. Verify the spelling and correctness of the schema and catalog.", q).
		WithParams("schemaName", q)
}

// SchemaAlreadyExists is SCHEMA_ALREADY_EXISTS.
func SchemaAlreadyExists(db string) *sparkerr.Error {
	q := sparkerr.Quote(norm(db))
	return sparkerr.Analysis("SCHEMA_ALREADY_EXISTS", "42P06",
		"Cannot create schema %s because it already exists. Choose a different name, drop the existing schema, "+
			"or add the IF NOT EXISTS clause to tolerate pre-existing schema.", q).WithParams("schemaName", q)
}

// AlreadyExists is TABLE_OR_VIEW_ALREADY_EXISTS for db.name.
func AlreadyExists(db, name string) *sparkerr.Error { return AlreadyExistsIn(CatalogName, db, name) }

// AlreadyExistsIn is TABLE_OR_VIEW_ALREADY_EXISTS for db.name of catalog.
func AlreadyExistsIn(catalog, db, name string) *sparkerr.Error {
	q := sparkerr.Quote(catalog, norm(db), norm(name))
	return sparkerr.Analysis("TABLE_OR_VIEW_ALREADY_EXISTS", "42P07",
		"Cannot create table or view %s because it already exists. Choose a different name, drop or replace "+
			"the existing object, or add the IF NOT EXISTS clause to tolerate pre-existing objects.", q).
		WithParams("relationName", q)
}

// NotFound is TABLE_OR_VIEW_NOT_FOUND for db.name, qualified with the catalog as Spark's DDL
// commands name it.
func NotFound(db, name string) *sparkerr.Error {
	return sparkerr.TableNotFound([]string{CatalogName, norm(db), norm(name)})
}
