package iceberg

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/sparkerr"
)

// An Iceberg REST catalog (iceberg-go's catalog/rest), configured as Iceberg's Spark runtime
// takes it: spark.sql.catalog.NAME = org.apache.iceberg.spark.SparkCatalog with type "rest"
// and the properties uri, warehouse, prefix, token, credential, oauth2-server-uri, scope and
// header.<name>. The catalog keeps the names, the metadata versions and the commits; the
// tables' files are where its table locations say, local paths only (no cloud file IO is
// imported), which the engine checks with the file-access policy like every other location.
//
// The rest of the connector addresses a table by its location: a REST table's location is
// bound here to its catalog and identifier (bindLocation) when the engine resolves its name, so
// Load, Exists and the commits of writes, sinks, streams and rewrites at that location go
// through the catalog (a table loaded from a REST catalog commits through it) instead of the
// Hadoop-style directory catalog.

// RESTCatalog is one REST catalog of the server (shared by the sessions configuring it alike).
type RESTCatalog struct {
	name string
	cat  *rest.Catalog
}

// restTable is a location bound to a REST catalog's table.
type restTable struct {
	cat   *RESTCatalog
	ident table.Identifier
}

var restCatalogs = struct {
	sync.Mutex
	byKey      map[string]*RESTCatalog
	byLocation map[string]restTable
}{byKey: map[string]*RESTCatalog{}, byLocation: map[string]restTable{}}

// OpenRESTCatalog is the REST catalog name with props (the spark.sql.catalog.NAME.* keys
// without the prefix): one client per distinct configuration, made on first use (which asks
// the server for its config, so an unreachable catalog fails here).
func OpenRESTCatalog(ctx context.Context, name string, props map[string]string) (*RESTCatalog, error) {
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(strings.ToLower(name))
	for _, k := range keys {
		fmt.Fprintf(&b, "\x00%s=%s", k, props[k])
	}
	key := b.String()
	restCatalogs.Lock()
	defer restCatalogs.Unlock()
	if c, ok := restCatalogs.byKey[key]; ok {
		return c, nil
	}
	uri := props["uri"]
	if uri == "" {
		return nil, sparkerr.New("java.lang.IllegalArgumentException", "", "",
			"Invalid uri for http client: null (spark.sql.catalog."+name+".uri is not set)")
	}
	var opts []rest.Option
	headers := map[string]string{}
	for _, k := range keys {
		v := props[k]
		switch {
		case k == "warehouse":
			opts = append(opts, rest.WithWarehouseLocation(v))
		case k == "prefix":
			opts = append(opts, rest.WithPrefix(v))
		case k == "token":
			opts = append(opts, rest.WithOAuthToken(v))
		case k == "credential":
			opts = append(opts, rest.WithCredential(v))
		case k == "scope":
			opts = append(opts, rest.WithScope(v))
		case k == "oauth2-server-uri":
			u, err := url.Parse(v)
			if err != nil {
				return nil, sparkerr.New("java.lang.IllegalArgumentException", "", "", "Invalid oauth2-server-uri "+v+": "+err.Error())
			}
			opts = append(opts, rest.WithAuthURI(u))
		case strings.HasPrefix(k, "header."):
			headers[strings.TrimPrefix(k, "header.")] = v
		}
	}
	if len(headers) > 0 {
		opts = append(opts, rest.WithHeaders(headers))
	}
	cat, err := rest.NewCatalog(ctx, name, uri, opts...)
	if err != nil {
		return nil, restError("connecting to the Iceberg REST catalog "+name+" at "+uri, err)
	}
	c := &RESTCatalog{name: name, cat: cat}
	restCatalogs.byKey[key] = c
	return c, nil
}

// Name is the catalog's name (spark.sql.catalog.NAME).
func (c *RESTCatalog) Name() string { return c.name }

// NamespaceExists reports whether namespace ns exists.
func (c *RESTCatalog) NamespaceExists(ctx context.Context, ns string) (bool, error) {
	ok, err := c.cat.CheckNamespaceExists(ctx, table.Identifier{ns})
	if err != nil {
		return false, restError("looking up the namespace "+ns, err)
	}
	return ok, nil
}

// Namespaces are the catalog's top-level namespaces.
func (c *RESTCatalog) Namespaces(ctx context.Context) ([]string, error) {
	ids, err := c.cat.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, restError("listing the namespaces of "+c.name, err)
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, strings.Join(id, "."))
	}
	sort.Strings(out)
	return out, nil
}

// CreateNamespace creates namespace ns with props; it reports false when ns exists already.
func (c *RESTCatalog) CreateNamespace(ctx context.Context, ns string, props map[string]string) (bool, error) {
	err := c.cat.CreateNamespace(ctx, table.Identifier{ns}, iceberg.Properties(props))
	if errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, restError("creating the namespace "+ns, err)
	}
	return true, nil
}

// DropNamespace drops the empty namespace ns; it reports false when ns does not exist. A
// namespace with tables is catalog.ErrNamespaceNotEmpty (wrapped).
func (c *RESTCatalog) DropNamespace(ctx context.Context, ns string) (bool, error) {
	err := c.cat.DropNamespace(ctx, table.Identifier{ns})
	if errors.Is(err, catalog.ErrNoSuchNamespace) {
		return false, nil
	}
	if err != nil {
		return false, restError("dropping the namespace "+ns, err)
	}
	return true, nil
}

// Tables are the names of namespace ns's tables, sorted.
func (c *RESTCatalog) Tables(ctx context.Context, ns string) ([]string, error) {
	var out []string
	for id, err := range c.cat.ListTables(ctx, table.Identifier{ns}) {
		if err != nil {
			return nil, restError("listing the tables of "+ns, err)
		}
		out = append(out, id[len(id)-1])
	}
	sort.Strings(out)
	return out, nil
}

// LoadTable loads table ns.name (found false when it does not exist) and binds its location.
func (c *RESTCatalog) LoadTable(ctx context.Context, ns, name string) (*table.Table, bool, error) {
	ident := table.Identifier{ns, name}
	tbl, err := c.cat.LoadTable(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, restError("loading the table "+ns+"."+name, err)
	}
	if err := c.bind(tbl.Location(), ident); err != nil {
		return nil, false, err
	}
	return tbl, true, nil
}

// CreateTable creates table ns.name with schema (field ids assigned by the catalog) and
// identity partitions on partitionBy, at location ("": where the catalog puts it), and binds
// its location.
func (c *RESTCatalog) CreateTable(ctx context.Context, ns, name string, schema *iceberg.Schema, partitionBy []string,
	location string, props map[string]string) (*table.Table, error) {
	spec, err := identitySpec(schema, partitionBy, 1000)
	if err != nil {
		return nil, err
	}
	opts := []catalog.CreateTableOpt{catalog.WithPartitionSpec(spec)}
	if location != "" {
		opts = append(opts, catalog.WithLocation(location))
	}
	if len(props) > 0 {
		opts = append(opts, catalog.WithProperties(iceberg.Properties(props)))
	}
	ident := table.Identifier{ns, name}
	tbl, err := c.cat.CreateTable(ctx, ident, schema, opts...)
	if err != nil {
		return nil, restError("creating the table "+ns+"."+name, err)
	}
	if err := c.bind(tbl.Location(), ident); err != nil {
		return nil, err
	}
	return tbl, nil
}

// DropTable drops table ns.name from the catalog, keeping its files (Iceberg's DROP TABLE
// without PURGE); it reports false when there is no such table.
func (c *RESTCatalog) DropTable(ctx context.Context, ns, name string) (bool, error) {
	err := c.cat.DropTable(ctx, table.Identifier{ns, name})
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return false, nil
	}
	if err != nil {
		return false, restError("dropping the table "+ns+"."+name, err)
	}
	return true, nil
}

// TableLocation is a REST table's location as a local path (a file: URI's path).
func TableLocation(tbl *table.Table) (string, error) {
	p, err := localPathOf(tbl.Location())
	if err != nil {
		return "", sparkerr.New("java.io.IOException", "", "",
			"The Iceberg table location "+tbl.Location()+" is not on the local file system: "+err.Error())
	}
	return filepath.Clean(p), nil
}

// BindLocation binds resolved, the location of REST table ns.name as the file-access policy
// resolved it, to the table, so the connector's reads and writes at that path go through the
// catalog.
func (c *RESTCatalog) BindLocation(resolved, ns, name string) {
	restCatalogs.Lock()
	defer restCatalogs.Unlock()
	restCatalogs.byLocation[filepath.Clean(resolved)] = restTable{cat: c, ident: table.Identifier{ns, name}}
}

func (c *RESTCatalog) bind(location string, ident table.Identifier) error {
	p, err := localPathOf(location)
	if err != nil {
		return sparkerr.New("java.io.IOException", "", "",
			"The Iceberg table location "+location+" is not on the local file system: "+err.Error())
	}
	c.BindLocation(p, ident[0], ident[1])
	return nil
}

// boundTable is the REST table bound to location, if any.
func boundTable(location string) (restTable, bool) {
	restCatalogs.Lock()
	defer restCatalogs.Unlock()
	t, ok := restCatalogs.byLocation[filepath.Clean(location)]
	return t, ok
}

// catalogOf is the catalog that commits to the table at location: its REST catalog when
// bound, else its own directory.
func catalogOf(location string) (table.CatalogIO, table.Identifier) {
	if rt, ok := boundTable(location); ok {
		return rt.cat.cat, rt.ident
	}
	return tableDir{location: location}, nil
}

// identitySpec is the partition spec of identity partitions on partitionBy, field ids from
// firstID.
func identitySpec(schema *iceberg.Schema, partitionBy []string, firstID int) (*iceberg.PartitionSpec, error) {
	if len(partitionBy) == 0 {
		return iceberg.UnpartitionedSpec, nil
	}
	var fields []iceberg.PartitionField
	for i, name := range partitionBy {
		f, ok := schema.FindFieldByNameCaseInsensitive(name)
		if !ok {
			return nil, sparkerr.Internal("iceberg: no partition column %s", name)
		}
		fields = append(fields, iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: firstID + i, Name: f.Name,
			Transform: iceberg.IdentityTransform{}})
	}
	s := iceberg.NewPartitionSpec(fields...)
	return &s, nil
}

// restError is err of a REST catalog call as the exception Iceberg's REST client throws.
func restError(what string, err error) error {
	var se *sparkerr.Error
	if errors.As(err, &se) {
		return se
	}
	class := "org.apache.iceberg.exceptions.RESTException"
	switch {
	case errors.Is(err, catalog.ErrNoSuchTable):
		class = "org.apache.iceberg.exceptions.NoSuchTableException"
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		class = "org.apache.iceberg.exceptions.NoSuchNamespaceException"
	case errors.Is(err, catalog.ErrTableAlreadyExists):
		class = "org.apache.iceberg.exceptions.AlreadyExistsException"
	case errors.Is(err, catalog.ErrNamespaceNotEmpty):
		class = "org.apache.iceberg.exceptions.NamespaceNotEmptyException"
	case errors.Is(err, table.ErrCommitFailed):
		class = "org.apache.iceberg.exceptions.CommitFailedException"
	}
	return sparkerr.New(class, "", "", what+": "+err.Error()).Wrap(err)
}
