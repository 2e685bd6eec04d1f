package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	iceberg "github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// The Hadoop-style catalog of one table: the table is its directory. Its metadata files are
// <location>/metadata/v<N>.metadata.json, N counting commits from 1, and version-hint.text
// names the newest N (a hint: readers probe past it). A commit writes the next version's file
// under a temporary name and links it to v<N+1>.metadata.json; link fails if the name exists,
// so of two writers committing on the same version exactly one wins and the other gets
// table.ErrCommitFailed, which iceberg-go retries on the new version. Nothing outside the
// directory is needed to read or write the table: Weir's metastore maps names to locations,
// and Spark's HadoopTables and PyIceberg's StaticTable read the same layout.

const (
	metadataDir = "metadata"
	versionHint = "version-hint.text"
)

// versionFile matches a metadata file: Hadoop's v<N> and the <NNNNN>-<uuid> of the other
// catalogs (PyIceberg's SQL catalog, Java's), so an external table over a table another
// catalog wrote reads its newest version.
var versionFile = regexp.MustCompile(`^(?:v([0-9]+)|([0-9]{5,})-[0-9a-fA-F-]{36})\.metadata\.json$`)

// localFS is the file system of Weir's tables: the local one.
func localFS(context.Context) (icebergio.IO, error) { return icebergio.LocalFS{}, nil }

// tableDir is one table's catalog (table.CatalogIO).
type tableDir struct {
	location string // absolute, checked by the caller with the file-access policy
}

func metadataPath(location string, version int) string {
	return filepath.Join(location, metadataDir, fmt.Sprintf("v%d.metadata.json", version))
}

// Exists reports whether location holds an Iceberg table (a metadata file), or for a location
// bound to a REST catalog's table whether the catalog still has the table.
func Exists(ctx context.Context, location string) bool {
	if rt, ok := boundTable(location); ok {
		found, err := rt.cat.cat.CheckTableExists(ctx, rt.ident)
		return err == nil && found
	}
	v, _, err := currentVersion(location)
	return err == nil && v > 0
}

// currentVersion is the newest committed metadata version and its file (0: none).
func currentVersion(location string) (int, string, error) {
	dir := filepath.Join(location, metadataDir)
	v := 0
	if b, err := os.ReadFile(filepath.Join(dir, versionHint)); err == nil {
		v, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if v > 0 {
		for {
			if _, err := os.Stat(metadataPath(location, v+1)); err != nil {
				break
			}
			v++
		}
		if _, err := os.Stat(metadataPath(location, v)); err == nil {
			return v, metadataPath(location, v), nil
		}
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	v = 0
	path := ""
	for _, e := range entries {
		m := versionFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1] + m[2])
		if n > v || (n == v && m[1] != "") {
			v, path = n, filepath.Join(dir, e.Name())
		}
	}
	return v, path, nil
}

// Load opens the table at location as of its newest commit (through its REST catalog when the
// location is bound to one: rest.go).
func Load(ctx context.Context, location string) (*table.Table, error) {
	if rt, ok := boundTable(location); ok {
		tbl, err := rt.cat.cat.LoadTable(ctx, rt.ident)
		if err != nil {
			return nil, restError("loading the Iceberg table "+strings.Join(rt.ident, ".")+" of the catalog "+rt.cat.name, err)
		}
		return tbl, nil
	}
	v, path, err := currentVersion(location)
	if err != nil {
		return nil, ioError("reading the Iceberg metadata of "+location, err)
	}
	if v == 0 {
		return nil, notATable(location)
	}
	tbl, err := table.NewFromLocation(ctx, table.Identifier{filepath.Base(location)}, path, localFS,
		tableDir{location: location})
	if err != nil {
		return nil, ioError("reading the Iceberg metadata of "+location, err)
	}
	return tbl, nil
}

// LoadTable implements table.CatalogIO.
func (d tableDir) LoadTable(ctx context.Context, _ table.Identifier) (*table.Table, error) {
	return Load(ctx, d.location)
}

// CommitTable implements table.CatalogIO: the updates applied to the newest metadata become
// the next version, if the requirements hold of it and no other writer took that version.
func (d tableDir) CommitTable(ctx context.Context, _ table.Identifier, reqs []table.Requirement, updates []table.Update) (table.Metadata, string, error) {
	v, _, err := currentVersion(d.location)
	if err != nil {
		return nil, "", err
	}
	var base table.Metadata
	current := ""
	if v > 0 {
		cur, err := Load(ctx, d.location)
		if err != nil {
			return nil, "", err
		}
		base, current = cur.Metadata(), cur.MetadataLocation()
	}
	for _, r := range reqs {
		if err := r.Validate(base); err != nil {
			return nil, "", fmt.Errorf("%w: %w", table.ErrCommitFailed, err)
		}
	}
	if base == nil {
		return nil, "", errors.New("iceberg: a table is created with Create, not by a commit")
	}
	updated, err := table.UpdateTableMetadata(base, updates, current)
	if err != nil {
		return nil, "", err
	}
	path, err := writeVersion(d.location, v+1, updated)
	if err != nil {
		return nil, "", err
	}
	return updated, path, nil
}

// writeVersion writes meta as version v, failing with table.ErrCommitFailed when v exists.
func writeVersion(location string, v int, meta table.Metadata) (string, error) {
	data, err := json.Marshal(meta)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(location, metadataDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(dir, "."+sources.RandomID()+".metadata.json.tmp")
	if err := writeSynced(tmp, data); err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	path := metadataPath(location, v)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("%w: version %d of %s was committed by another writer", table.ErrCommitFailed, v, location)
		}
		return "", err
	}
	syncDir(dir)
	// The hint is advisory: readers probe past it, so a crash before it is written loses nothing.
	hint := filepath.Join(dir, "."+sources.RandomID()+".hint.tmp")
	if writeSynced(hint, []byte(strconv.Itoa(v))) == nil {
		if os.Rename(hint, filepath.Join(dir, versionHint)) != nil {
			os.Remove(hint)
		}
	}
	return path, nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Create makes a new table at location with schema (Iceberg field ids assigned afresh) and
// identity partitions on partitionBy; an existing table there is an error.
func Create(ctx context.Context, location string, schema *iceberg.Schema, partitionBy []string, props map[string]string) (*table.Table, error) {
	if rt, ok := boundTable(location); ok {
		// A REST catalog's table (or one it dropped): tables there are the catalog's to create.
		return nil, sparkerr.New("org.apache.iceberg.exceptions.NoSuchTableException", "", "",
			fmt.Sprintf("Table does not exist: %s (the location %s belongs to the Iceberg catalog %s)",
				strings.Join(rt.ident, "."), location, rt.cat.name))
	}
	if Exists(ctx, location) {
		return nil, sparkerr.Analysis("LOCATION_ALREADY_EXISTS", "42710",
			"Cannot create the Iceberg table at '%s': an Iceberg table is already there.", location)
	}
	spec, err := identitySpec(schema, partitionBy, 1000)
	if err != nil {
		return nil, err
	}
	meta, err := table.NewMetadata(schema, spec, table.UnsortedSortOrder, location, iceberg.Properties(props))
	if err != nil {
		return nil, sparkerr.Analysis("INVALID_ICEBERG_TABLE", "42000", "Cannot create the Iceberg table at %s: %v", location, err)
	}
	if _, err := writeVersion(location, 1, meta); err != nil {
		return nil, ioError("creating the Iceberg table at "+location, err)
	}
	return Load(ctx, location)
}

func notATable(location string) *sparkerr.Error {
	return sparkerr.Analysis("PATH_NOT_FOUND", "42K03", "Path does not exist: %s (no Iceberg table metadata there).",
		location).WithParams("path", location)
}

func ioError(what string, err error) *sparkerr.Error {
	return sparkerr.New("java.io.IOException", "", "", what+": "+err.Error())
}

// Replace makes the table at location a new table with schema and identity partitions on
// partitionBy in the same metadata, as Iceberg's REPLACE TABLE transaction: the new schema
// and spec (fresh field ids past the table's last) become current, the main branch is
// removed (the table has no rows until the next commit), and the old snapshots stay for time
// travel. props are set on the table.
func Replace(ctx context.Context, location string, schema *iceberg.Schema, partitionBy []string, props map[string]string) error {
	tbl, err := Load(ctx, location)
	if err != nil {
		return err
	}
	meta := tbl.Metadata()
	next := meta.LastColumnID()
	fresh, err := iceberg.AssignFreshSchemaIDs(schema, func() int { next++; return next })
	if err != nil {
		return sparkerr.Internal("iceberg: new field ids: %v", err)
	}
	schemaID := 0
	for _, s := range meta.Schemas() {
		schemaID = max(schemaID, s.ID+1)
	}
	specID, partID := 0, 999
	for _, sp := range meta.PartitionSpecs() {
		specID = max(specID, sp.ID()+1)
	}
	if last := meta.LastPartitionSpecID(); last != nil {
		partID = max(partID, *last)
	}
	newSchema := iceberg.NewSchema(schemaID, fresh.Fields()...)
	var fields []iceberg.PartitionField
	for _, name := range partitionBy {
		f, ok := newSchema.FindFieldByNameCaseInsensitive(name)
		if !ok {
			return sparkerr.Internal("iceberg: no partition column %s", name)
		}
		partID++
		fields = append(fields, iceberg.PartitionField{SourceIDs: []int{f.ID}, FieldID: partID, Name: f.Name,
			Transform: iceberg.IdentityTransform{}})
	}
	spec := iceberg.NewPartitionSpecID(specID, fields...)
	updates := []table.Update{
		table.NewAddSchemaUpdate(newSchema), table.NewSetCurrentSchemaUpdate(-1),
		table.NewAddPartitionSpecUpdate(&spec, false), table.NewSetDefaultSpecUpdate(-1),
	}
	if tbl.CurrentSnapshot() != nil {
		updates = append(updates, table.NewRemoveSnapshotRefUpdate(table.MainBranch))
	}
	if len(props) > 0 {
		updates = append(updates, table.NewSetPropertiesUpdate(props))
	}
	cat, ident := catalogOf(location)
	if _, _, err := cat.CommitTable(ctx, ident, nil, updates); err != nil {
		return sparkerr.New("org.apache.iceberg.exceptions.CommitFailedException", "", "",
			fmt.Sprintf("Failed to replace the Iceberg table %s: %v", location, err))
	}
	return nil
}
