package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors/iceberg"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Iceberg tables (connectors/iceberg): the default format of managed tables unless the
// session set spark.sql.sources.default (which still rules df.write.save). A table's Iceberg
// metadata is created with its catalog entry; reads, writes and streams go through the
// connector like a file table's, with Iceberg's own snapshot commits instead of files in a
// directory.

// PartitionOverwriteModeConf is spark.sql.sources.partitionOverwriteMode (static, dynamic).
const PartitionOverwriteModeConf = "spark.sql.sources.partitionOverwriteMode"

// defaultTableFormat is the format of a table created without one: iceberg for a managed
// table while spark.sql.sources.default is the server's default, else that setting.
func (s *Session) defaultTableFormat(managed bool) string {
	if managed && !s.conf.isSet(conf.SourcesDefaultKey) {
		return iceberg.FormatName
	}
	return s.conf.GetOr(conf.SourcesDefaultKey, "parquet")
}

func isIceberg(format string) bool { return strings.EqualFold(format, iceberg.FormatName) }

// icebergColumns is schema as an Iceberg table stores it, or Spark's error for a column type
// Iceberg cannot store.
func icebergColumns(schema sqltypes.Schema) (sqltypes.Schema, error) {
	if _, err := iceberg.IcebergSchema(schema); err != nil {
		return nil, err
	}
	return iceberg.TableSchema(schema), nil
}

// createIcebergMetadata writes the first metadata version of t, unless its location holds an
// Iceberg table already (an external table over an existing one).
func (s *Session) createIcebergMetadata(ctx context.Context, t metastore.Table) error {
	if !isIceberg(t.Format) || iceberg.Exists(ctx, t.Location) {
		return nil
	}
	schema, err := schemaOfTable(t)
	if err != nil {
		return err
	}
	sc, err := iceberg.IcebergSchema(schema)
	if err != nil {
		return err
	}
	_, err = iceberg.Create(ctx, t.Location, sc, t.PartitionBy, t.Properties)
	return err
}

// icebergWriteOptions are the batch sink options of an overwrite of an Iceberg table: dynamic
// partition overwrite for INSERT OVERWRITE ... PARTITION (static values) and
// overwritePartitions, else as spark.sql.sources.partitionOverwriteMode says.
func (s *Session) icebergWriteOptions(t metastore.Table, dynamic bool) map[string]string {
	mode := s.conf.GetOr(PartitionOverwriteModeConf, "static")
	if dynamic {
		mode = "dynamic"
	}
	return withOption(withOption(t.Options, "path", t.Location), iceberg.PartitionOverwriteModeOption, strings.ToLower(mode))
}

// writeToIceberg runs df.writeTo(name)'s append, overwrite, overwritePartitions, replace and
// createOrReplace on an Iceberg table (Spark's v2 tables take them all).
func (s *Session) writeToIceberg(ctx context.Context, w *plan.WriteTo, t metastore.Table) (*Result, error) {
	switch w.Mode {
	case plan.WriteToAppend:
		return s.empty2(s.insertRows(ctx, t, &plan.InsertInto{Input: w.Input}, true))
	case plan.WriteToOverwritePartitions:
		return s.empty2(s.insertRowsDynamic(ctx, t, &plan.InsertInto{Input: w.Input, Overwrite: true}, true, true))
	case plan.WriteToOverwrite:
		if lit, ok := w.Condition.(plan.Literal); w.Condition != nil && (!ok || lit.Value != true) {
			return nil, sparkerr.Unsupported("overwrite(condition) of an Iceberg table with a condition other than lit(True)")
		}
		return s.empty2(s.insertRows(ctx, t, &plan.InsertInto{Input: w.Input, Overwrite: true}, true))
	}
	return nil, sparkerr.Internal("writeTo mode %v on an Iceberg table", w.Mode)
}

// icebergTimeTravel are the read options of VERSION AS OF / TIMESTAMP AS OF (analyzed: the
// timestamp a TIMESTAMP literal in microseconds), as Iceberg's SparkCatalog.loadTable takes
// them: a version is a snapshot id or a branch or tag name; a timestamp picks the snapshot
// current at that millisecond.
func icebergTimeTravel(tt *plan.TimeTravel) map[string]string {
	switch {
	case tt == nil:
		return nil
	case tt.Timestamp != nil:
		lit, _ := tt.Timestamp.(plan.Literal)
		micros, _ := lit.Value.(int64)
		return map[string]string{iceberg.AsOfTimestampOpts: strconv.FormatInt(micros/1000, 10)}
	}
	return map[string]string{iceberg.VersionAsOfOption: tt.Version}
}

// replaceIceberg runs writeTo(name).replace()/createOrReplace() on the Iceberg table t as
// Iceberg's REPLACE TABLE AS SELECT (replaceIcebergTable).
func (s *Session) replaceIceberg(ctx context.Context, t metastore.Table, w *plan.WriteTo) error {
	return s.replaceIcebergTable(ctx, t, w.Input, nil, w.PartitionBy, w.Properties)
}

// replaceIcebergTable replaces the Iceberg table t as Iceberg's REPLACE TABLE [AS SELECT]: the
// new schema (input's, else columns) and partitioning become the table's in the same
// metadata, then input's rows (if any) are its first snapshot since; the snapshots before
// stay for time travel. The catalog entry takes the new columns (and properties, if given).
func (s *Session) replaceIcebergTable(ctx context.Context, t metastore.Table, input plan.Relation,
	columns sqltypes.Schema, partitionBy []string, properties map[string]string) error {
	if _, err := s.files.CheckReplace(t.Location); err != nil {
		return err
	}
	if input != nil {
		node, err := s.analyzer().Resolve(ctx, input)
		if err != nil {
			return err
		}
		columns = node.Schema()
	}
	schema, err := icebergColumns(columns)
	if err != nil {
		return err
	}
	nt := t
	if nt.Columns, err = partitionLast(t, schema, partitionBy); err != nil {
		return err
	}
	nt.PartitionBy = nil
	for _, c := range nt.Columns[len(nt.Columns)-len(partitionBy):] {
		nt.PartitionBy = append(nt.PartitionBy, c.Name)
	}
	if len(properties) > 0 {
		nt.Properties = properties
	}
	ordered, err := schemaOfTable(nt)
	if err != nil {
		return err
	}
	sc, err := iceberg.IcebergSchema(ordered)
	if err != nil {
		return err
	}
	if err := iceberg.Replace(ctx, t.Location, sc, nt.PartitionBy, properties); err != nil {
		return err
	}
	store, err := s.storeOf(ctx, t)
	if err != nil {
		return err
	}
	if _, _, err := store.CreateTable(nt, true, false); err != nil {
		return err
	}
	if input == nil {
		return nil
	}
	return s.insertRows(ctx, nt, &plan.InsertInto{Input: input}, true)
}

// writeToProvider is the format df.writeTo(name) creates its table with.
func (s *Session) writeToProvider(w *plan.WriteTo) string {
	if w.Provider != "" {
		return w.Provider
	}
	_, external := w.Options["path"]
	return s.defaultTableFormat(!external)
}
