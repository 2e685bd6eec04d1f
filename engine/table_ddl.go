package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// DDL of the persistent catalog: databases, tables and persistent views (Spark 4.2's
// behaviour and errors for file-source tables: parquet, json, csv, text).

func (s *Session) createDatabase(ctx context.Context, c *plan.CreateDatabase) (*Result, error) {
	store, name, err := s.storeOfNamespace(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	if isGlobalTempDatabase(name) {
		return nil, reservedGlobalTempDatabase()
	}
	db := metastore.Database{Name: name, Description: c.Comment, Properties: c.Properties}
	if c.Location != "" {
		if db.Location, err = s.files.CheckWrite(c.Location); err != nil {
			return nil, err
		}
	}
	if err := store.CreateDatabase(db, c.IfNotExists); err != nil {
		return nil, err
	}
	return s.empty()
}

func (s *Session) dropDatabase(ctx context.Context, c *plan.DropDatabase) (*Result, error) {
	store, name, err := s.storeOfNamespace(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	dropped, err := store.DropDatabase(name, c.IfExists, c.Cascade)
	if err != nil {
		return nil, err
	}
	for _, t := range dropped {
		if err := s.deleteManagedFiles(t); err != nil {
			return nil, err
		}
	}
	if _, rest := store.(restStore); !rest && s.views.currentDatabase() == name {
		s.views.setCurrentDatabase(metastore.DefaultDatabase)
	}
	return s.empty()
}

func (s *Session) useDatabase(name []string) (*Result, error) {
	db, err := qualifyDatabase(name)
	if err != nil {
		return nil, err
	}
	if _, ok := s.tables.Database(db); !ok {
		return nil, metastore.SchemaNotFound(db)
	}
	s.views.setCurrentDatabase(db)
	return s.empty()
}

// tableFormat is a table's data source: the given one or spark.sql.sources.default; only file
// formats make tables.
func (s *Session) tableFormat(format string, managed bool) (string, error) {
	if format == "" {
		format = s.defaultTableFormat(managed)
	}
	format = strings.ToLower(format)
	if !connectors.IsFileFormat(format) && !isIceberg(format) {
		return "", sparkerr.Unsupported("tables of the data source %s are not supported; Weir's tables are "+
			"Iceberg or file tables: USING iceberg, parquet, json, csv or text", format)
	}
	return format, nil
}

// newTable builds the catalog entry of a table to create: its database and name, format,
// columns with the partition columns moved last, and location (external when given; else
// managed in the warehouse, which must not hold files of that name yet).
func (s *Session) newTable(ctx context.Context, name []string, format string, schema sqltypes.Schema, partitionBy []string,
	location string, options, properties map[string]string, comment string) (metastore.Table, error) {
	store, db, table, err := s.storeOfName(ctx, name)
	if err != nil {
		return metastore.Table{}, err
	}
	rs, rest := store.(restStore)
	if _, ok := store.Database(db); !ok {
		if rest {
			return metastore.Table{}, rs.schemaNotFound(db)
		}
		return metastore.Table{}, metastore.SchemaNotFound(db)
	}
	// A "path" option (any case) is the table's location, as Spark takes OPTIONS (path ...):
	// kept in the options it would override the location on reads.
	kept := map[string]string{}
	for k, v := range options {
		if strings.EqualFold(k, "path") {
			if location == "" {
				location = v
			}
			continue
		}
		kept[k] = v
	}
	options = kept
	if format, err = s.tableFormat(format, location == ""); err != nil {
		return metastore.Table{}, err
	}
	if isIceberg(format) {
		if schema, err = icebergColumns(schema); err != nil {
			return metastore.Table{}, err
		}
	}
	t := metastore.Table{Database: db, Name: table, Format: format, Options: options, Properties: properties, Comment: comment}
	if rest {
		t.Catalog = rs.cat.Name()
	}
	cols, err := partitionLast(t, schema, partitionBy)
	if err != nil {
		return metastore.Table{}, err
	}
	t.Columns = cols
	for _, c := range cols[len(cols)-len(partitionBy):] {
		t.PartitionBy = append(t.PartitionBy, c.Name)
	}
	if location != "" {
		t.Kind = metastore.External
		if t.Location, err = s.files.CheckWrite(location); err != nil {
			return metastore.Table{}, err
		}
		return t, nil
	}
	t.Kind = metastore.Managed
	if rest {
		return t, nil // the catalog gives its tables their locations
	}
	managed, err := s.managedLocation(db, table)
	if err != nil {
		return metastore.Table{}, err
	}
	if t.Location, err = s.files.CheckWrite(managed); err != nil {
		return metastore.Table{}, err
	}
	if entries, err := os.ReadDir(t.Location); err == nil && len(entries) > 0 {
		uri := fileaccess.HadoopPath(t.Location)
		return metastore.Table{}, sparkerr.Analysis("LOCATION_ALREADY_EXISTS", "42710",
			"Cannot name the managed table as %s, as its associated location '%s' already exists. Please pick a "+
				"different table name, or remove the existing location first.", t.QualifiedName(), uri).
			WithParams("identifier", t.QualifiedName(), "location", "'"+uri+"'")
	}
	return t, nil
}

// partitionLast orders schema's columns as a partitioned table keeps them: data columns, then
// the partition columns in partitionBy's order.
func partitionLast(t metastore.Table, schema sqltypes.Schema, partitionBy []string) ([]metastore.Column, error) {
	cols := columnsOf(schema, true)
	if len(partitionBy) == 0 {
		return cols, nil
	}
	var data, parts []metastore.Column
	taken := map[int]bool{}
	for _, p := range partitionBy {
		i := columnIndex(cols, p)
		if i < 0 {
			names := make([]string, len(cols))
			for j, c := range cols {
				names[j] = sparkerr.Quote(c.Name)
			}
			return nil, sparkerr.Analysis("COLUMN_NOT_DEFINED_IN_TABLE", "42703",
				"partition column %s is not defined in table %s, defined table columns are: %s.",
				sparkerr.Quote(p), t.QualifiedName(), strings.Join(names, ", ")).
				WithParams("colType", "partition", "colName", sparkerr.Quote(p), "tableName", t.QualifiedName(),
					"tableCols", strings.Join(names, ", "))
		}
		taken[i] = true
		parts = append(parts, cols[i])
	}
	for i, c := range cols {
		if !taken[i] {
			data = append(data, c)
		}
	}
	return append(data, parts...), nil
}

func columnIndex(cols []metastore.Column, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func (s *Session) createTable(ctx context.Context, c *plan.CreateTable) (*Result, error) {
	store, db, table, err := s.storeOfName(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	if existing, ok := store.Table(db, table); ok {
		switch {
		case c.Replace && isIceberg(existing.Format) && !existing.IsView() && (c.Format == "" || isIceberg(c.Format)) &&
			(c.Query != nil || len(c.Columns) > 0):
			return s.empty2(s.replaceIcebergTable(ctx, existing, c.Query, c.Columns, c.PartitionBy, c.Properties))
		case c.Replace:
			return nil, replaceUnsupported(existing)
		case c.IfNotExists:
			return s.empty()
		}
		return nil, alreadyExists(store, db, table)
	}
	var schema sqltypes.Schema
	var input plan.Relation
	switch {
	case c.Query != nil:
		node, err := s.Analyze(ctx, c.Query)
		if err != nil {
			return nil, err
		}
		schema, input = node.Schema(), c.Query
	case len(c.Columns) > 0:
		schema = c.Columns
	case c.Location != "":
		format, err := s.tableFormat(c.Format, false)
		if err != nil {
			return nil, err
		}
		if schema, err = s.sources.Schema(format, withOption(c.Options, "path", c.Location), "", false); err != nil {
			return nil, err
		}
	default:
		format, err := s.tableFormat(c.Format, true)
		if err != nil {
			return nil, err
		}
		return nil, sparkerr.Analysis("UNABLE_TO_INFER_SCHEMA", "42KD9",
			"Unable to infer schema for %s. It must be specified manually.", format).WithParams("format", format)
	}
	t, err := s.newTable(ctx, c.Name, c.Format, schema, c.PartitionBy, c.Location, c.Options, c.Properties, c.Comment)
	if err != nil {
		return nil, err
	}
	return s.empty2(s.createAndFill(ctx, t, input, false))
}

// replaceUnsupported is Spark's refusal to replace a file-source table (CREATE OR REPLACE
// TABLE, writeTo().replace/createOrReplace of an existing one).
func replaceUnsupported(t metastore.Table) *sparkerr.Error {
	q := t.QualifiedName()
	return sparkerr.New(sparkerr.AnalysisException, "UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
		"The feature is not supported: Table "+q+" does not support REPLACE TABLE. Please check the current catalog "+
			"and namespace to make sure the qualified table name is expected, and also check the catalog implementation "+
			"which is configured by \"spark.sql.catalog\".").WithParams("tableName", q, "operation", "REPLACE TABLE")
}

// createAndFill creates t in its catalog (its directory too) and, with input, writes input's
// rows into it; a failed write drops the new table again (as Spark's CTAS does).
func (s *Session) createAndFill(ctx context.Context, t metastore.Table, input plan.Relation, byName bool) error {
	store, err := s.storeOf(ctx, t)
	if err != nil {
		return err
	}
	if t, err = s.createInStore(ctx, store, t); err != nil {
		return err
	}
	if input == nil {
		return nil
	}
	if err := s.insertRows(ctx, t, &plan.InsertInto{Input: input}, byName); err != nil {
		if dropped, ok, _ := store.DropTable(t.Database, t.Name); ok {
			s.deleteManagedFiles(dropped)
		}
		return err
	}
	return nil
}

// empty2 is the empty result of a command whose work returned err.
func (s *Session) empty2(err error) (*Result, error) {
	if err != nil {
		return nil, err
	}
	return s.empty()
}

func withOption(opts map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(opts)+1)
	for key, val := range opts {
		out[key] = val
	}
	out[k] = v
	return out
}

func (s *Session) createPersistentView(ctx context.Context, c *plan.CreatePersistentView) (*Result, error) {
	if c.Language != "" {
		return s.createMetricView(ctx, c)
	}
	db, name, err := s.qualify(c.Name)
	if err != nil {
		return nil, err
	}
	node, err := s.Analyze(ctx, c.Query)
	if err != nil {
		return nil, err
	}
	schema := node.Schema()
	if len(c.Columns) > 0 {
		if len(c.Columns) != len(schema) {
			return nil, sparkerr.Analysis("CREATE_VIEW_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS", "21S01",
				"Cannot create view %s, the reason is not enough data columns: View columns: %s. Data columns: %s.",
				sparkerr.Quote(catalogName, db, name), strings.Join(c.Columns, ", "), strings.Join(schema.Names(), ", "))
		}
		renamed := append(sqltypes.Schema(nil), schema...)
		for i := range renamed {
			renamed[i].Name = c.Columns[i]
		}
		schema = renamed
	}
	if existing, ok := s.tables.Table(db, name); ok && c.Replace && !existing.IsView() {
		return nil, sparkerr.Analysis("EXPECT_VIEW_NOT_TABLE.NO_ALTERNATIVE", "42809",
			"The table %s does not support CREATE OR REPLACE VIEW.", existing.QualifiedName()).
			WithParams("tableName", existing.QualifiedName(), "operation", "CREATE OR REPLACE VIEW")
	}
	v := metastore.Table{Database: db, Name: name, Kind: metastore.View, ViewText: c.Text, ViewDatabase: s.views.currentDatabase(),
		Columns: columnsOf(schema, false), Comment: c.Comment}
	if _, _, err := s.tables.CreateTable(v, c.Replace, c.IfNotExists); err != nil {
		return nil, err
	}
	return s.empty()
}

// dropView is DROP VIEW|TABLE: a temp view first (an unqualified name), then the catalog's.
func (s *Session) dropView(ctx context.Context, c *plan.DropView) (*Result, error) {
	if len(c.Name) == 1 && s.views.drop(c.Name[0]) {
		return s.empty()
	}
	if v, ok := globalViewName(c.Name); ok {
		if !s.global.c.drop(v) && !c.IfExists {
			return nil, sparkerr.TableNotFound([]string{catalogName, GlobalTempDatabase, v})
		}
		return s.empty()
	}
	store, db, name, err := s.storeOfName(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	t, ok := store.Table(db, name)
	if !ok {
		if c.IfExists {
			return s.empty()
		}
		if rs, rest := store.(restStore); rest {
			return nil, sparkerr.TableNotFound([]string{rs.cat.Name(), db, name})
		}
		return nil, metastore.NotFound(db, name)
	}
	if !c.IsTable && !t.IsView() {
		plain := strings.Join([]string{catalogName, db, name}, ".")
		return nil, sparkerr.Analysis("WRONG_COMMAND_FOR_OBJECT_TYPE", "42809",
			"The operation DROP VIEW requires a VIEW or METRIC_VIEW. But %s is a %s. Use DROP TABLE instead.", plain, t.Kind).
			WithParams("operation", "DROP VIEW", "requiredType", "VIEW or METRIC_VIEW", "objectName", plain,
				"foundType", t.Kind, "alternative", "DROP TABLE")
	}
	dropped, ok, err := store.DropTable(db, name)
	if err != nil || !ok {
		return nil, err
	}
	return s.empty2(s.deleteManagedFiles(dropped))
}

func (s *Session) alterTable(ctx context.Context, c *plan.AlterTable) (*Result, error) {
	t, err := s.mustTable(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	switch {
	case c.RenameTo != nil:
		return s.renameTable(t, c.RenameTo)
	case c.AddColumns != nil:
		if t.IsView() {
			return nil, sparkerr.Unsupported("ALTER TABLE ... ADD COLUMNS on the view %s", t.QualifiedName())
		}
		_, err = s.tables.AlterTable(t.Database, t.Name, func(nt *metastore.Table) error {
			added := columnsOf(c.AddColumns, true)
			for _, a := range added {
				if columnIndex(nt.Columns, a.Name) >= 0 {
					return sparkerr.Analysis("COLUMN_ALREADY_EXISTS", "42711",
						"The column %s already exists. Choose another name or rename the existing column.",
						sparkerr.Quote(strings.ToLower(a.Name))).WithParams("columnName", sparkerr.Quote(strings.ToLower(a.Name)))
				}
			}
			data := nt.Columns[:len(nt.Columns)-len(nt.PartitionBy)]
			parts := nt.Columns[len(nt.Columns)-len(nt.PartitionBy):]
			nt.Columns = append(append(append([]metastore.Column(nil), data...), added...), parts...)
			return nil
		})
	case c.SetProperties != nil:
		_, err = s.tables.AlterTable(t.Database, t.Name, func(nt *metastore.Table) error {
			if nt.Properties == nil {
				nt.Properties = map[string]string{}
			}
			for k, v := range c.SetProperties {
				nt.Properties[k] = v
			}
			return nil
		})
	default:
		_, err = s.tables.AlterTable(t.Database, t.Name, func(nt *metastore.Table) error {
			for _, k := range c.UnsetProperties {
				delete(nt.Properties, k)
			}
			return nil
		})
	}
	return s.empty2(err)
}

// renameTable is ALTER TABLE RENAME TO: within the table's database; a managed table's
// directory moves to its new name's location.
func (s *Session) renameTable(t metastore.Table, to []string) (*Result, error) {
	db, name := t.Database, strings.ToLower(to[len(to)-1])
	if len(to) > 1 {
		var err error
		if db, name, err = s.qualify(to); err != nil {
			return nil, err
		}
		if db != t.Database {
			return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1073", "",
				"RENAME TABLE source and destination databases do not match: '%s' != '%s'.", t.Database, db)
		}
	}
	if _, exists := s.tables.Table(db, name); exists {
		return nil, metastore.AlreadyExists(db, name)
	}
	location := ""
	if t.Kind == metastore.Managed {
		from, err := s.files.CheckReplace(t.Location)
		if err != nil {
			return nil, err
		}
		managed, err := s.managedLocation(db, name)
		if err != nil {
			return nil, err
		}
		if location, err = s.files.CheckWrite(managed); err != nil {
			return nil, err
		}
		if _, err := os.Stat(location); err == nil {
			uri := fileaccess.HadoopPath(location)
			return nil, sparkerr.Analysis("LOCATION_ALREADY_EXISTS", "42710",
				"Cannot name the managed table as %s, as its associated location '%s' already exists. Please pick a "+
					"different table name, or remove the existing location first.", sparkerr.Quote(catalogName, db, name), uri)
		}
		if err := os.Rename(from, location); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, sparkerr.Internal("moving the files of %s: %v", t.QualifiedName(), err)
		}
	}
	if err := s.tables.RenameTable(db, t.Name, name, location); err != nil {
		if location != "" {
			os.Rename(location, t.Location)
		}
		return nil, err
	}
	return s.empty()
}

func (s *Session) truncateTable(ctx context.Context, c *plan.TruncateTable) (*Result, error) {
	t, err := s.mustTable(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	if t.Kind != metastore.Managed {
		return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1266", "",
			"Operation not allowed: TRUNCATE TABLE on external tables: %s.", t.QualifiedName()).
			WithParams("tableIdentWithDB", t.QualifiedName())
	}
	dir, err := s.files.CheckWrite(t.Location)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, sparkerr.Internal("listing %s: %v", t.QualifiedName(), err)
	}
	for _, e := range entries {
		p, err := s.files.CheckReplace(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := os.RemoveAll(p); err != nil {
			return nil, sparkerr.Internal("truncating %s: %v", t.QualifiedName(), err)
		}
	}
	return s.empty()
}

func (s *Session) showTableProperties(ctx context.Context, c *plan.ShowTableProperties) (*Result, error) {
	t, err := s.mustTable(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	schema := sqltypes.Schema{stringField("key"), stringField("value")}
	if c.Key != "" {
		v, ok := t.Properties[c.Key]
		if !ok {
			v = "Table " + t.QualifiedName() + " does not have property: " + c.Key
		}
		return s.rowsResult(schema, [][]any{{c.Key, v}})
	}
	var rows [][]any
	for _, k := range sortedKeys(t.Properties) {
		rows = append(rows, []any{k, t.Properties[k]})
	}
	return s.rowsResult(schema, rows)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// showCreateTable renders the statement that creates the table, as Spark 4.2 does.
func (s *Session) showCreateTable(ctx context.Context, c *plan.ShowCreateTable) (*Result, error) {
	t, err := s.mustTable(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	if t.IsMetricView() {
		return nil, sparkerr.Analysis("UNSUPPORTED_SHOW_CREATE_TABLE.ON_METRIC_VIEW", "0A000",
			"Unsupported a SHOW CREATE TABLE command. The command is not supported on a metric view %s.", sparkerr.Quote(t.Name)).
			WithParams("tableName", sparkerr.Quote(t.Name))
	}
	var b strings.Builder
	full := catalogName + "." + t.Database + "." + t.Name
	if t.IsView() {
		b.WriteString("CREATE VIEW " + full + " (\n")
		for i, col := range t.Columns {
			b.WriteString("  " + quoteIdent(col.Name))
			if i < len(t.Columns)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(")\nAS " + t.ViewText + "\n")
	} else {
		b.WriteString("CREATE TABLE " + full + " (\n")
		for i, col := range t.Columns {
			typ := col.Type
			if typ == "STRING" {
				typ += " COLLATE UTF8_BINARY"
			}
			b.WriteString("  " + quoteIdent(col.Name) + " " + typ)
			if !col.Nullable {
				b.WriteString(" NOT NULL")
			}
			if col.Comment != "" {
				b.WriteString(" COMMENT '" + strings.ReplaceAll(col.Comment, "'", "\\'") + "'")
			}
			if i < len(t.Columns)-1 {
				b.WriteString(",\n")
			}
		}
		b.WriteString(")\nUSING " + t.Format + "\n")
		if len(t.Options) > 0 {
			b.WriteString("OPTIONS (\n" + propertyLines(t.Options) + ")\n")
		}
		if len(t.PartitionBy) > 0 {
			b.WriteString("PARTITIONED BY (" + strings.Join(t.PartitionBy, ", ") + ")\n")
		}
		if t.Comment != "" {
			b.WriteString("COMMENT '" + t.Comment + "'\n")
		}
		if t.Kind == metastore.External {
			b.WriteString("LOCATION '" + fileaccess.HadoopPath(t.Location) + "'\n")
		}
		if len(t.Properties) > 0 {
			b.WriteString("TBLPROPERTIES (\n" + propertyLines(t.Properties) + ")\n")
		}
	}
	return s.rowsResult(sqltypes.Schema{stringField("createtab_stmt")}, [][]any{{b.String()}})
}

func propertyLines(m map[string]string) string {
	keys := sortedKeys(m)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = "  '" + k + "' = '" + m[k] + "'"
	}
	return strings.Join(lines, ",\n")
}

// quoteIdent backquotes a name only when Spark's SHOW CREATE TABLE would.
func quoteIdent(name string) string {
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return sparkerr.Quote(name)
		}
	}
	return name
}

func (s *Session) showDatabases(pattern string) (*Result, error) {
	var rows [][]any
	for _, db := range s.tables.Databases() {
		if pattern == "" || likeSparkPattern(pattern, db.Name) {
			rows = append(rows, []any{db.Name})
		}
	}
	return s.rowsResult(sqltypes.Schema{stringField("namespace")}, rows)
}

// describeTableRows are DESCRIBE's rows after the columns for a catalog table: its partition
// columns, and with EXTENDED its details, as Spark 4.2 lists them.
func describeTableRows(t *metastore.Table, schema sqltypes.Schema, extended bool) [][]any {
	var rows [][]any
	if len(t.PartitionBy) > 0 {
		rows = append(rows, []any{"# Partition Information", "", ""}, []any{"# col_name", "data_type", "comment"})
		for _, p := range t.PartitionBy {
			if i := fieldIndex(schema, p); i >= 0 {
				rows = append(rows, []any{schema[i].Name, schema[i].Type.String(), nullIfEmpty(fieldComment(schema[i]))})
			}
		}
	}
	if !extended {
		return rows
	}
	rows = append(rows, []any{"", "", ""}, []any{"# Detailed Table Information", "", ""},
		[]any{"Catalog", catalogName, ""}, []any{"Database", t.Database, ""}, []any{"Table", t.Name, ""})
	if t.Comment != "" {
		rows = append(rows, []any{"Comment", t.Comment, ""})
	}
	rows = append(rows, []any{"Created Time", t.Created.Format("Mon Jan 02 15:04:05 MST 2006"), ""},
		[]any{"Last Access", "UNKNOWN", ""}, []any{"Created By", "Weir", ""}, []any{"Type", t.Kind, ""})
	if t.IsMetricView() {
		rows = append(rows, []any{"View Text", t.ViewText, ""}, []any{"Language", "YAML", ""})
		return append(rows, tablePropertiesRow(t)...)
	}
	if t.IsView() {
		rows = append(rows, []any{"View Text", t.ViewText, ""})
		return rows
	}
	rows = append(rows, []any{"Provider", t.Format, ""})
	rows = append(rows, tablePropertiesRow(t)...)
	rows = append(rows, []any{"Location", fileaccess.HadoopPath(t.Location), ""})
	if len(t.PartitionBy) > 0 {
		rows = append(rows, []any{"Partition Provider", "Catalog", ""})
	}
	return rows
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// tablePropertiesRow is DESCRIBE EXTENDED's "Table Properties" row, none without properties.
func tablePropertiesRow(t *metastore.Table) [][]any {
	if len(t.Properties) == 0 {
		return nil
	}
	props := make([]string, 0, len(t.Properties))
	for _, k := range sortedKeys(t.Properties) {
		props = append(props, k+"="+t.Properties[k])
	}
	return [][]any{{"Table Properties", "[" + strings.Join(props, ", ") + "]", ""}}
}
