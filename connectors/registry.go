package connectors

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Format is one data source format and everything it can do, declared once by its connector.
// A nil function means the format cannot do that: a format without Stream is no stream
// source, one without Sink no streaming sink, and so on.
type Format struct {
	// Name is the format's name as users give it (format("…")), lower-case.
	Name string

	// Stream opens the format as a stream source (spark.readStream); StreamSchema returns its
	// schema without opening it (analysis), validating options the same way. Both or neither.
	Stream       sources.StreamFactory
	StreamSchema sources.StreamSchemaFunc

	// BatchSchema returns the schema of a batch read (spark.read) of paths with options;
	// BatchRead plans it as a flow source and its parallelism. Both or neither.
	BatchSchema func(env BatchEnv, options map[string]string, paths []string, userSchema string) (sqltypes.Schema, error)
	BatchRead   func(env BatchEnv, options map[string]string, paths []string, schema sqltypes.Schema) (flow.Source, int, error)

	// Sink builds the format's streaming sink for the output modes in OutputModes.
	Sink        sinks.Factory
	OutputModes []flow.OutputMode
	// BatchSink builds the format's batch writer (df.write).
	BatchSink sinks.BatchFactory

	// Partitions: the sinks accept partitionBy (Hive-style directories).
	Partitions bool
	// Files: the format reads and writes files; its "path" option is a file path, checked with
	// the file-access policy when a stream read is analysed, and an overwrite of a path the
	// write reads is refused.
	Files bool

	// Recover, if set, settles when the server starts what a crash left half done under the
	// state directory (the file formats' interrupted overwrites). Formats sharing a recovery
	// give the same function; Recover runs it once.
	Recover func(ctx context.Context, stateDir string) error
}

// BatchEnv is what a batch read is planned with.
type BatchEnv struct {
	// Files is the session's file-access policy (nil: the always-on rules only).
	Files *fileaccess.Policy
	// TimeZone is the session time zone.
	TimeZone string
	// MaxLineBytes bounds a line of the text, JSON and CSV readers (≤ 0: the default).
	MaxLineBytes int64
	// DefaultPartitions is the default parallelism.
	DefaultPartitions int
	// Filters are the scan's advisory conjuncts over the read's schema
	// (logical.SourceScan.Filters): a format may skip data no row of which passes one; the
	// plan still filters the rows it reads.
	Filters []expr.Expr
}

var (
	mu      sync.RWMutex
	formats = map[string]Format{}
)

// Register registers a format; its connector calls it once per format, from its package's
// init (connectors/all imports every connector). Registering a name twice panics.
func Register(f Format) {
	name := strings.ToLower(f.Name)
	if (f.Stream == nil) != (f.StreamSchema == nil) || (f.BatchRead == nil) != (f.BatchSchema == nil) ||
		(f.Sink == nil) != (len(f.OutputModes) == 0) {
		panic("connectors: format " + name + " declares half a capability")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := formats[name]; dup {
		panic("connectors: format " + name + " registered twice")
	}
	f.Name = name
	formats[name] = f
}

// Unregister removes a format (tests registering their own formats clean up with it).
func Unregister(name string) {
	mu.Lock()
	defer mu.Unlock()
	delete(formats, strings.ToLower(name))
}

// Lookup returns the format named name (case-insensitively); an unknown name is Spark's
// DATA_SOURCE_NOT_FOUND, the one place that error is built.
func Lookup(name string) (Format, error) {
	mu.RLock()
	f, ok := formats[strings.ToLower(name)]
	mu.RUnlock()
	if !ok {
		return Format{}, sparkerr.Analysis("DATA_SOURCE_NOT_FOUND", "42K02",
			"Failed to find the data source: %s. Make sure the provider name is correct and the package is properly "+
				"registered and compatible with your Spark version.", name).
			WithParams("provider", name)
	}
	return f, nil
}

// Recover runs every registered format's recovery (Format.Recover) once, in format name order,
// and returns the first error after running them all.
func Recover(ctx context.Context, stateDir string) error {
	mu.RLock()
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	all := make(map[string]Format, len(formats))
	for n, f := range formats {
		all[n] = f
	}
	mu.RUnlock()
	sort.Strings(names)
	done := map[uintptr]bool{}
	var first error
	for _, n := range names {
		r := all[n].Recover
		if r == nil {
			continue
		}
		id := reflect.ValueOf(r).Pointer()
		if done[id] {
			continue
		}
		done[id] = true
		if err := r(ctx, stateDir); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// IsFileFormat reports whether format is registered as a file format (Format.Files).
func IsFileFormat(format string) bool {
	f, err := Lookup(format)
	return err == nil && f.Files
}

// OpenStream opens a stream source of format.
func OpenStream(ctx context.Context, format string, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
	f, err := streamFormat(format)
	if err != nil {
		return nil, err
	}
	return f.Stream(ctx, env, sources.NormalizeOptions(options), userSchema)
}

// StreamSchema returns the schema of a stream read of format.
func StreamSchema(format string, options map[string]string, userSchema string) (sqltypes.Schema, error) {
	f, err := streamFormat(format)
	if err != nil {
		return nil, err
	}
	return f.StreamSchema(sources.NormalizeOptions(options), userSchema)
}

func streamFormat(format string) (Format, error) {
	f, err := Lookup(format)
	if err != nil {
		return Format{}, err
	}
	if f.Stream == nil {
		return Format{}, sparkerr.Unsupported("Data source %s does not support streamed reading", f.Name)
	}
	return f, nil
}

// BatchSchema returns the schema of a batch read (spark.read) of format. A stream-only format
// is Spark's error for a table without the BATCH_READ capability.
func BatchSchema(format string, env BatchEnv, options map[string]string, paths []string, userSchema string) (sqltypes.Schema, error) {
	f, err := batchReadFormat(format)
	if err != nil {
		return nil, err
	}
	return f.BatchSchema(env, options, paths, userSchema)
}

// BatchRead plans a batch read of format with its analysed schema.
func BatchRead(format string, env BatchEnv, options map[string]string, paths []string, schema sqltypes.Schema) (flow.Source, int, error) {
	f, err := batchReadFormat(format)
	if err != nil {
		return nil, 0, err
	}
	return f.BatchRead(env, options, paths, schema)
}

func batchReadFormat(format string) (Format, error) {
	f, err := Lookup(format)
	if err != nil {
		return Format{}, err
	}
	if f.BatchRead == nil {
		name := sparkerr.Quote(format)
		return Format{}, sparkerr.Analysis("UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
			"The feature is not supported: Table %s does not support batch scan. Please check the current catalog "+
				"and namespace to make sure the qualified table name is expected, and also check the catalog "+
				"implementation which is configured by \"spark.sql.catalog\".", name).
			WithParams("tableName", name, "operation", "batch scan")
	}
	return f, nil
}

// NewSink builds the streaming sink of format; an output mode the format does not accept and
// partitionBy on a format without partitions are AnalysisExceptions as in Spark.
func NewSink(format string, env sinks.Env, options map[string]string) (sinks.Sink, error) {
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	if f.Sink == nil {
		return nil, sparkerr.Unsupported("Data source %s does not support streamed writing", f.Name)
	}
	okMode := false
	for _, m := range f.OutputModes {
		okMode = okMode || m == env.Mode
	}
	if !okMode {
		return nil, sparkerr.Analysis("STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE", "42KDE",
			"Invalid streaming output mode: %s. This output mode is not supported in Data Source %s.", env.Mode, format).
			WithParams("outputMode", string(env.Mode), "className", format)
	}
	if err := checkPartitioning(f, env); err != nil {
		return nil, err
	}
	return f.Sink(env, options)
}

// NewBatchSink builds the batch sink of format for a write in mode (see sinks.BatchFactory for
// the nil sink). env.Mode is ignored: a batch write appends its rows. A streaming-only sink
// (memory) is refused.
func NewBatchSink(ctx context.Context, format string, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
	f, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	if f.BatchSink == nil {
		return nil, sparkerr.Unsupported("Data source %s does not support batch writes (df.write); it is a streaming sink", format)
	}
	if err := checkPartitioning(f, env); err != nil {
		return nil, err
	}
	env.Mode = flow.OutputAppend
	return f.BatchSink(ctx, env, mode, options)
}

func checkPartitioning(f Format, env sinks.Env) error {
	if len(env.PartitionBy) > 0 && !f.Partitions {
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			"'"+f.Name+"' does not support partitioning.").WithParams("operation", f.Name)
	}
	return nil
}
