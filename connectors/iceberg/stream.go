package iceberg

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
// current snapshot with that number. Replace snapshots (compactions) add nothing; an
// overwrite or delete snapshot fails the stream as Iceberg's Spark source does, unless the
// streaming-skip-overwrite-snapshots / streaming-skip-delete-snapshots option says to skip it.
type stream struct {
	location string
	schema   sqltypes.Schema
	env      sources.StreamEnv
	parts    int
	// skipOverwrite and skipDelete are the streaming-skip-*-snapshots options.
	skipOverwrite, skipDelete bool
}

// Read options of the stream source, as Iceberg's SparkReadOptions names them.
const (
	SkipOverwriteOption = "streaming-skip-overwrite-snapshots"
	SkipDeleteOption    = "streaming-skip-delete-snapshots"
)

func openStream(_ context.Context, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
	schema, loc, err := streamSchema(env, options, userSchema)
	if err != nil {
		return nil, err
	}
	opts := sources.NormalizeOptions(options)
	return &stream{location: loc, schema: schema, env: env, parts: max(1, env.DefaultPartitions),
		skipOverwrite: strings.EqualFold(opts[SkipOverwriteOption], "true"),
		skipDelete:    strings.EqualFold(opts[SkipDeleteOption], "true")}, nil
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
	if err := s.checkOperations(tbl, toSnap, fromSnap); err != nil {
		return err
	}
	b := Batch{Location: s.location, SnapshotID: toSnap.SnapshotID, Schema: s.schema, TimeZone: s.env.TimeZone,
		Files: s.env.Files, Incremental: true}
	if fromSnap != nil {
		b.FromSnapshot = fromSnap.SnapshotID
	}
	return b.read(ctx, p, s.parts, emit, flow.Env{Mem: s.env.Mem})
}

// checkOperations fails on the oldest snapshot after from up to to that the stream cannot
// take: an overwrite or a delete not skipped by the options (Iceberg's shouldProcess).
func (s *stream) checkOperations(tbl *table.Table, to, from *table.Snapshot) error {
	var refused *table.Snapshot
	for snap := to; snap != nil && (from == nil || snap.SnapshotID != from.SnapshotID); {
		if snap.Summary != nil {
			switch snap.Summary.Operation {
			case table.OpOverwrite:
				if !s.skipOverwrite {
					refused = snap
				}
			case table.OpDelete:
				if !s.skipDelete {
					refused = snap
				}
			}
		}
		if snap.ParentSnapshotID == nil {
			break
		}
		snap = tbl.SnapshotByID(*snap.ParentSnapshotID)
	}
	if refused == nil {
		return nil
	}
	op, option := "overwrite", SkipOverwriteOption
	if refused.Summary.Operation == table.OpDelete {
		op, option = "delete", SkipDeleteOption
	}
	return sparkerr.New("java.lang.IllegalStateException", "", "",
		fmt.Sprintf("Cannot process %s snapshot: %d, to ignore %ss, set %s=true", op, refused.SnapshotID, op, option))
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
