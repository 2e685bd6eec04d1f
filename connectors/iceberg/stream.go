package iceberg

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// stream reads a table as the stream of the rows its append snapshots add, oldest first
// (spark.readStream.table / format("iceberg")). An offset is a snapshot's sequence number (a
// JSON number: offsets must be ordered, and snapshot ids are random): the ancestor of the
// current snapshot with that number. Snapshots that do not append (overwrites, deletes) add
// nothing to the stream.
type stream struct {
	location string
	schema   sqltypes.Schema
	env      sources.StreamEnv
	parts    int
}

func openStream(_ context.Context, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
	schema, loc, err := streamSchema(env, options, userSchema)
	if err != nil {
		return nil, err
	}
	return &stream{location: loc, schema: schema, env: env, parts: max(1, env.DefaultPartitions)}, nil
}

func streamSchema(env sources.StreamEnv, options map[string]string, userSchema string) (sqltypes.Schema, string, error) {
	if userSchema != "" {
		return nil, "", sparkerr.Analysis("_LEGACY_ERROR_TEMP_1308", "", "Iceberg does not accept a user-specified schema")
	}
	tbl, loc, err := tableOf(context.Background(), env.Files, options, nil)
	if err != nil {
		return nil, "", err
	}
	schema, err := SparkSchema(tbl.Schema())
	return schema, loc, err
}

// Schema implements sources.StreamSource.
func (s *stream) Schema() sqltypes.Schema { return s.schema }

// Partitions implements sources.StreamSource.
func (s *stream) Partitions() int { return s.parts }

// Description implements sources.StreamSource.
func (s *stream) Description() string { return "IcebergSource[" + s.location + "]" }

// Initial implements sources.StreamSource: before the table's first snapshot.
func (s *stream) Initial(context.Context) (sources.Offset, error) { return sources.Offset("0"), nil }

// Latest implements sources.StreamSource: the current snapshot's sequence number.
func (s *stream) Latest(ctx context.Context) (sources.Offset, error) {
	tbl, err := Load(ctx, s.location)
	if err != nil {
		return nil, err
	}
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return sources.Offset("0"), nil
	}
	return sources.Offset(strconv.FormatInt(snap.SequenceNumber, 10)), nil
}

// Read implements sources.StreamSource.
func (s *stream) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	var from, to int64
	if err := json.Unmarshal(start, &from); err != nil {
		return sparkerr.Internal("iceberg: the offset %s: %v", start, err)
	}
	if err := json.Unmarshal(end, &to); err != nil {
		return sparkerr.Internal("iceberg: the offset %s: %v", end, err)
	}
	if to <= from {
		return nil
	}
	tbl, err := Load(ctx, s.location)
	if err != nil {
		return err
	}
	toSnap, fromSnap := ancestorAt(tbl, to), ancestorAt(tbl, from)
	if toSnap == nil || (from > 0 && fromSnap == nil) {
		return sparkerr.New("java.lang.IllegalStateException", "", "",
			"Cannot find the snapshots of the stream offsets "+string(start)+".."+string(end)+" in the history of "+s.location)
	}
	b := Batch{Location: s.location, SnapshotID: toSnap.SnapshotID, Schema: s.schema, TimeZone: s.env.TimeZone,
		Files: s.env.Files, Incremental: true}
	if fromSnap != nil {
		b.FromSnapshot = fromSnap.SnapshotID
	}
	return b.read(ctx, p, s.parts, emit, flow.Env{Mem: s.env.Mem})
}

// ancestorAt is the ancestor of the current snapshot with sequence number seq (nil: none).
func ancestorAt(tbl *table.Table, seq int64) *table.Snapshot {
	for snap := tbl.CurrentSnapshot(); snap != nil; {
		if snap.SequenceNumber == seq {
			return snap
		}
		if snap.ParentSnapshotID == nil {
			return nil
		}
		snap = tbl.SnapshotByID(*snap.ParentSnapshotID)
	}
	return nil
}

// Close implements sources.StreamSource.
func (s *stream) Close() error { return nil }
