package engine

import (
	"context"
	"errors"
	"strings"

	icebergcatalog "github.com/apache/iceberg-go/catalog"
	"github.com/weirhq/weir/connectors/iceberg"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"os"
)

// Iceberg REST catalogs by configuration, as Iceberg's Spark runtime takes them:
//
//	spark.sql.catalog.NAME      = org.apache.iceberg.spark.SparkCatalog
//	spark.sql.catalog.NAME.type = rest
//	spark.sql.catalog.NAME.uri  = http://host:port/   (and .warehouse, .token, .credential,
//	                              .prefix, .scope, .oauth2-server-uri, .header.<name>)
//
// set in the server's configuration (weir --conf) or the session's (spark.conf.set, SET), as
// Spark loads a catalog plugin by name on first use. NAME.db is then a namespace of that
// catalog and NAME.db.t one of its tables, in SQL and the DataFrame API alike; every other
// name is spark_catalog's (tables.go). The catalog is a tableStore like the metastore: the
// DDL and the writers of tables.go, table_ddl.go and table_write.go run on it unchanged, its
// tables are Iceberg tables whose location the catalog gives (connectors/iceberg/rest.go binds
// it to the catalog, so reads, writes, streams and DML commit through the catalog).

// icebergSparkCatalog is the catalog plugin class of Iceberg's Spark runtime.
const icebergSparkCatalog = "org.apache.iceberg.spark.SparkCatalog"

// catalogConfPrefix prefixes the configuration of catalog plugins.
const catalogConfPrefix = "spark.sql.catalog."

// tableStore is a catalog of databases and tables: the metastore (spark_catalog) or a REST
// catalog (restStore).
type tableStore interface {
	Database(name string) (metastore.Database, bool)
	CreateDatabase(db metastore.Database, ifNotExists bool) error
	DropDatabase(name string, ifExists, cascade bool) ([]metastore.Table, error)
	Table(db, name string) (metastore.Table, bool)
	Tables(db string) ([]metastore.Table, error)
	CreateTable(t metastore.Table, replace, ifNotExists bool) (bool, *metastore.Table, error)
	DropTable(db, name string) (metastore.Table, bool, error)
}

// restCatalog is the REST catalog the session's configuration names name (false: none is
// configured under that name, or it is spark_catalog).
func (s *Session) restCatalog(ctx context.Context, name string) (*iceberg.RESTCatalog, bool, error) {
	if strings.EqualFold(name, catalogName) {
		return nil, false, nil
	}
	plugin, ok := s.conf.Get(catalogConfPrefix + name)
	if !ok {
		return nil, false, nil
	}
	prefix := catalogConfPrefix + name + "."
	props := map[string]string{}
	for _, kv := range s.conf.All(prefix) {
		if kv[1] != Undefined {
			props[strings.TrimPrefix(kv[0], prefix)] = kv[1]
		}
	}
	if plugin != icebergSparkCatalog {
		return nil, false, sparkerr.Unsupported("the catalog plugin %s of %s%s: Weir's catalogs by configuration are "+
			"Iceberg REST catalogs (%s with type rest)", plugin, catalogConfPrefix, name, icebergSparkCatalog)
	}
	if t := props["type"]; !strings.EqualFold(t, "rest") {
		return nil, false, sparkerr.Unsupported("the Iceberg catalog type %q of %s%s.type: Weir's Iceberg catalogs by "+
			"configuration are REST catalogs (type rest); Hadoop-style tables are spark_catalog's", t, catalogConfPrefix, name)
	}
	cat, err := iceberg.OpenRESTCatalog(ctx, name, props)
	if err != nil {
		return nil, false, err
	}
	return cat, true, nil
}

// storeOfName splits a table name into its catalog's store, database and table: a configured
// REST catalog's for NAME.db.t, else spark_catalog's (qualify).
func (s *Session) storeOfName(ctx context.Context, name []string) (tableStore, string, string, error) {
	if len(name) == 3 {
		cat, ok, err := s.restCatalog(ctx, name[0])
		if err != nil {
			return nil, "", "", err
		}
		if ok {
			return restStore{ctx: ctx, s: s, cat: cat}, name[1], name[2], nil
		}
	}
	db, table, err := s.qualify(name)
	return s.tables, db, table, err
}

// storeOfNamespace splits a namespace name as storeOfName a table name: NAME.db is a REST
// catalog's namespace db.
func (s *Session) storeOfNamespace(ctx context.Context, name []string) (tableStore, string, error) {
	if len(name) == 2 {
		cat, ok, err := s.restCatalog(ctx, name[0])
		if err != nil {
			return nil, "", err
		}
		if ok {
			return restStore{ctx: ctx, s: s, cat: cat}, name[1], nil
		}
	}
	db, err := qualifyDatabase(name)
	return s.tables, db, err
}

// storeOf is the store t came from.
func (s *Session) storeOf(ctx context.Context, t metastore.Table) (tableStore, error) {
	if t.Catalog == "" {
		return s.tables, nil
	}
	cat, ok, err := s.restCatalog(ctx, t.Catalog)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, catalogNotFound(t.Catalog)
	}
	return restStore{ctx: ctx, s: s, cat: cat}, nil
}

// restStore is a REST catalog seen as a tableStore, for the request of ctx. Its namespaces
// are databases (one level) and its tables Iceberg tables; views are not kept there.
type restStore struct {
	ctx context.Context
	s   *Session
	cat *iceberg.RESTCatalog
}

// Database implements tableStore.
func (r restStore) Database(name string) (metastore.Database, bool) {
	ok, err := r.cat.NamespaceExists(r.ctx, name)
	return metastore.Database{Name: name}, err == nil && ok
}

// CreateDatabase implements tableStore (CREATE NAMESPACE NAME.db): the comment and location
// become the namespace's properties, as Iceberg's SparkCatalog sets them.
func (r restStore) CreateDatabase(db metastore.Database, ifNotExists bool) error {
	props := map[string]string{}
	for k, v := range db.Properties {
		props[k] = v
	}
	if db.Description != "" {
		props["comment"] = db.Description
	}
	if db.Location != "" {
		props["location"] = db.Location
	}
	created, err := r.cat.CreateNamespace(r.ctx, db.Name, props)
	if err != nil {
		return err
	}
	if !created && !ifNotExists {
		q := sparkerr.Quote(db.Name)
		return sparkerr.Analysis("SCHEMA_ALREADY_EXISTS", "42P06",
			"Cannot create schema %s because it already exists. Choose a different name, drop the existing schema, "+
				"or add the IF NOT EXISTS clause to tolerate pre-existing schema.", q).WithParams("schemaName", q)
	}
	return nil
}

// DropDatabase implements tableStore: a namespace with tables is SCHEMA_NOT_EMPTY unless
// cascade, which drops its tables from the catalog first (their files stay: DROP TABLE
// without PURGE). No files are Weir's to delete, so no tables are returned.
func (r restStore) DropDatabase(name string, ifExists, cascade bool) ([]metastore.Table, error) {
	tables, err := r.cat.Tables(r.ctx, name)
	if errors.Is(err, icebergcatalog.ErrNoSuchNamespace) {
		if ifExists {
			return nil, nil
		}
		return nil, r.schemaNotFound(name)
	}
	if err != nil {
		return nil, err
	}
	if len(tables) > 0 && !cascade {
		q := sparkerr.Quote(r.cat.Name(), name)
		return nil, sparkerr.Analysis("SCHEMA_NOT_EMPTY", "2BP01",
			"Cannot drop a schema %s because it contains objects. Use DROP SCHEMA ... CASCADE to drop the schema and all its objects.", q).
			WithParams("schemaName", q)
	}
	for _, t := range tables {
		if _, err := r.cat.DropTable(r.ctx, name, t); err != nil {
			return nil, err
		}
	}
	dropped, err := r.cat.DropNamespace(r.ctx, name)
	if err != nil {
		return nil, err
	}
	if !dropped && !ifExists {
		return nil, r.schemaNotFound(name)
	}
	return nil, nil
}

func (r restStore) schemaNotFound(name string) *sparkerr.Error {
	return metastore.SchemaNotFoundIn(r.cat.Name(), name)
}

// Table implements tableStore (a catalog that cannot be reached has no tables: lookup says why).
func (r restStore) Table(db, name string) (metastore.Table, bool) {
	t, ok, err := r.lookup(db, name)
	return t, ok && err == nil
}

// lookup loads table db.name: its catalog entry as the engine's tables are described (the
// Iceberg schema's columns, identity partition columns, properties, the catalog's location
// resolved by the file-access policy and bound to the catalog).
func (r restStore) lookup(db, name string) (metastore.Table, bool, error) {
	tbl, ok, err := r.cat.LoadTable(r.ctx, db, name)
	if err != nil || !ok {
		return metastore.Table{}, false, err
	}
	loc, err := iceberg.TableLocation(tbl)
	if err != nil {
		return metastore.Table{}, false, err
	}
	resolved, err := r.s.files.Resolve(loc)
	if err != nil {
		return metastore.Table{}, false, err
	}
	r.cat.BindLocation(resolved, db, name)
	schema, err := iceberg.SparkSchema(tbl.Schema())
	if err != nil {
		return metastore.Table{}, false, err
	}
	t := metastore.Table{Catalog: r.cat.Name(), Database: db, Name: name, Kind: metastore.Managed,
		Format: iceberg.FormatName, Location: resolved, Columns: columnsOf(schema, false),
		Properties: map[string]string(tbl.Properties())}
	spec := tbl.Spec()
	for _, f := range spec.Fields() {
		if f.Transform.String() != "identity" {
			continue
		}
		if col, ok := tbl.Schema().FindFieldByID(f.SourceIDs[0]); ok {
			t.PartitionBy = append(t.PartitionBy, col.Name)
		}
	}
	return t, true, nil
}

// Tables implements tableStore.
func (r restStore) Tables(db string) ([]metastore.Table, error) {
	names, err := r.cat.Tables(r.ctx, db)
	if errors.Is(err, icebergcatalog.ErrNoSuchNamespace) {
		return nil, r.schemaNotFound(db)
	}
	if err != nil {
		return nil, err
	}
	out := make([]metastore.Table, len(names))
	for i, n := range names {
		out[i] = metastore.Table{Catalog: r.cat.Name(), Database: db, Name: n, Kind: metastore.Managed, Format: iceberg.FormatName}
	}
	return out, nil
}

// CreateTable implements tableStore. A replace is already done (the table's new metadata is
// committed to the catalog by replaceIcebergTable); a new table is created by create.
func (r restStore) CreateTable(t metastore.Table, replace, ifNotExists bool) (bool, *metastore.Table, error) {
	if replace {
		return false, nil, nil
	}
	if _, ok, err := r.lookup(t.Database, t.Name); err != nil || ok {
		if err == nil && !ifNotExists {
			err = r.alreadyExists(t.Database, t.Name)
		}
		return false, nil, err
	}
	_, err := r.create(t)
	return err == nil, nil, err
}

func (r restStore) alreadyExists(db, name string) *sparkerr.Error {
	return metastore.AlreadyExistsIn(r.cat.Name(), db, name)
}

// create creates the Iceberg table t describes in the catalog (at t.Location when given, else
// where the catalog puts it) and returns it as lookup does.
func (r restStore) create(t metastore.Table) (metastore.Table, error) {
	if !isIceberg(t.Format) {
		return metastore.Table{}, sparkerr.Unsupported("%s tables in the Iceberg catalog %s: its tables are Iceberg tables",
			t.Format, r.cat.Name())
	}
	if ok, err := r.cat.NamespaceExists(r.ctx, t.Database); err != nil || !ok {
		if err == nil {
			err = r.schemaNotFound(t.Database)
		}
		return metastore.Table{}, err
	}
	schema, err := schemaOfTable(t)
	if err != nil {
		return metastore.Table{}, err
	}
	sc, err := iceberg.IcebergSchema(schema)
	if err != nil {
		return metastore.Table{}, err
	}
	if _, err := r.cat.CreateTable(r.ctx, t.Database, t.Name, sc, t.PartitionBy, t.Location, t.Properties); err != nil {
		if errors.Is(err, icebergcatalog.ErrTableAlreadyExists) {
			return metastore.Table{}, r.alreadyExists(t.Database, t.Name)
		}
		return metastore.Table{}, err
	}
	created, ok, err := r.lookup(t.Database, t.Name)
	if err == nil && !ok {
		err = sparkerr.TableNotFound([]string{r.cat.Name(), t.Database, t.Name})
	}
	return created, err
}

// DropTable implements tableStore: the table leaves the catalog, its files stay (Iceberg's
// DROP TABLE without PURGE).
func (r restStore) DropTable(db, name string) (metastore.Table, bool, error) {
	t, ok, err := r.lookup(db, name)
	if err != nil || !ok {
		return t, false, err
	}
	dropped, err := r.cat.DropTable(r.ctx, db, name)
	return t, dropped, err
}

// createInStore creates t in store, its Iceberg metadata and its directory with it, and
// returns it as created (a REST catalog's table with the location the catalog gave it).
func (s *Session) createInStore(ctx context.Context, store tableStore, t metastore.Table) (metastore.Table, error) {
	if rs, ok := store.(restStore); ok {
		return rs.create(t)
	}
	if err := mkdirTable(t); err != nil {
		return t, err
	}
	if err := s.createIcebergMetadata(ctx, t); err != nil {
		return t, err
	}
	_, _, err := s.tables.CreateTable(t, false, false)
	return t, err
}

// mkdirTable creates the directory of t's files.
func mkdirTable(t metastore.Table) error {
	if err := os.MkdirAll(t.Location, 0o755); err != nil {
		return sparkerr.Internal("creating the directory of %s: %v", t.QualifiedName(), err)
	}
	return nil
}

// alreadyExists is TABLE_OR_VIEW_ALREADY_EXISTS for db.name of store.
func alreadyExists(store tableStore, db, name string) *sparkerr.Error {
	if rs, ok := store.(restStore); ok {
		return rs.alreadyExists(db, name)
	}
	return metastore.AlreadyExists(db, name)
}

// alreadyExistsOf is TABLE_OR_VIEW_ALREADY_EXISTS for t, named in its catalog.
func alreadyExistsOf(t metastore.Table) *sparkerr.Error {
	if t.Catalog == "" {
		return metastore.AlreadyExists(t.Database, t.Name)
	}
	return metastore.AlreadyExistsIn(t.Catalog, t.Database, t.Name)
}
