package iceberg

import (
	"context"
	"strconv"
	"strings"

	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// Summary properties of the snapshots a streaming query commits: the query's id and the
// epoch, as Flink's Iceberg sink records its job id and checkpoint id. A query restarted from
// its checkpoint replays the epochs after the last one its checkpoint completed; the sink
// skips those whose snapshot is in the table already, so each epoch's rows are in the table
// exactly once.
const (
	QueryIDProperty = "weir.query-id"
	EpochProperty   = "weir.epoch-id"
)

// PartitionOverwriteModeOption is the option the engine passes a batch overwrite with
// spark.sql.sources.partitionOverwriteMode ("static" or "dynamic").
const PartitionOverwriteModeOption = "partitionoverwritemode"

// BaseSnapshotOption makes a batch overwrite a copy-on-write rewrite of the snapshot it names
// (the engine's DELETE and UPDATE): its rows replace every data file of that snapshot, and the
// commit fails with Iceberg's ValidationException if another writer committed since.
const BaseSnapshotOption = "weir.base-snapshot-id"

// sink is the Iceberg streaming sink (append output mode) and, through sinks.BatchAdapter,
// its batch writer.
type sink struct {
	w        *writer
	location string
}

// Description implements sinks.Sink.
func (s *sink) Description() string { return "IcebergSink[" + s.location + "]" }

// Parallelism implements sinks.Sink: every upstream partition writes its own data files.
func (s *sink) Parallelism(upstream int) int { return max(1, upstream) }

// OutputRows implements sinks.Sink.
func (s *sink) OutputRows() int64 { return s.w.written.Take() }

// NewOperator implements sinks.Sink.
func (s *sink) NewOperator(env flow.Env) (flow.Operator, error) {
	return &operator{w: s.w, env: env}, nil
}

// location is the "path" option, checked with the file-access policy for writing.
func location(env sinks.Env, options map[string]string) (string, error) {
	opts := sinks.NewOptions(options)
	path := opts["path"]
	if path == "" {
		return "", sparkerr.Analysis("_LEGACY_ERROR_TEMP_1307", "", "Iceberg writes need a table: a path or a table name")
	}
	return env.Files.CheckWrite(path)
}

// openForWrite loads the table at loc, creating it from the rows' schema when missing.
func openForWrite(ctx context.Context, env sinks.Env, loc string) (*table.Table, error) {
	if Exists(ctx, loc) {
		return Load(ctx, loc)
	}
	sc, err := IcebergSchema(env.Schema)
	if err != nil {
		return nil, err
	}
	return Create(ctx, loc, sc, env.PartitionBy, nil)
}

func newSink(env sinks.Env, options map[string]string) (sinks.Sink, error) {
	if sinks.NewOptions(options)["checkpointlocation"] == "" {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			`checkpointLocation must be specified either through option("checkpointLocation", ...) or `+
				`SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...)`).
			WithParams("config", "spark.sql.streaming.checkpointLocation")
	}
	loc, err := location(env, options)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	tbl, err := openForWrite(ctx, env, loc)
	if err != nil {
		return nil, err
	}
	w := newWriter(loc, commitAppend, env.Schema)
	committed := lastEpoch(tbl, env.QueryID)
	w.skip = func(epoch int64) bool {
		if epoch <= committed {
			return true
		}
		// Another run of the query may have committed since the sink was built.
		if t, err := Load(ctx, loc); err == nil {
			committed = max(committed, lastEpoch(t, env.QueryID))
		}
		return epoch <= committed
	}
	w.props = func(epoch int64) iceberg.Properties {
		return iceberg.Properties{QueryIDProperty: env.QueryID, EpochProperty: strconv.FormatInt(epoch, 10)}
	}
	return &sink{w: w, location: loc}, nil
}

// lastEpoch is the newest epoch of query queryID among tbl's snapshots (-1: none).
func lastEpoch(tbl *table.Table, queryID string) int64 {
	last := int64(-1)
	if queryID == "" {
		return last
	}
	for _, snap := range tbl.Metadata().Snapshots() {
		if snap.Summary == nil || snap.Summary.Properties[QueryIDProperty] != queryID {
			continue
		}
		if e, err := strconv.ParseInt(snap.Summary.Properties[EpochProperty], 10, 64); err == nil && e > last {
			last = e
		}
	}
	return last
}

func newBatchSink(ctx context.Context, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
	loc, err := location(env, options)
	if err != nil {
		return nil, err
	}
	exists := Exists(ctx, loc)
	switch {
	case exists && mode == sinks.SaveIgnore:
		return nil, nil
	case exists && mode == sinks.SaveErrorIfExists:
		return nil, sparkerr.Analysis("PATH_ALREADY_EXISTS", "42K04",
			"Path %s already exists. Set mode as \"overwrite\" to overwrite the existing path.", loc).WithParams("outputPath", loc)
	}
	if _, err := openForWrite(ctx, env, loc); err != nil {
		return nil, err
	}
	kind := commitAppend
	if mode == sinks.SaveOverwrite {
		kind = commitOverwrite
		if strings.EqualFold(sinks.NewOptions(options)[PartitionOverwriteModeOption], "dynamic") && len(env.PartitionBy) > 0 {
			kind = commitDynamicOverwrite
		}
	}
	w := newWriter(loc, kind, env.Schema)
	if base, ok := sinks.NewOptions(options)[BaseSnapshotOption]; ok && mode == sinks.SaveOverwrite {
		if w.base, err = strconv.ParseInt(base, 10, 64); err != nil {
			return nil, sparkerr.Internal("iceberg: the base snapshot %q: %v", base, err)
		}
		w.kind = commitOverwrite
	}
	s := &sink{w: w, location: loc}
	return sinks.BatchAdapter{Sink: s}, nil
}
