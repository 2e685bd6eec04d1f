package engine

import (
	"strconv"
	"time"

	"github.com/weirhq/weir/barrier"
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/planner"
	"github.com/weirhq/weir/query"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/state"
)

// ConfKind is the type of a configuration value; it decides how Conf.Set validates it.
type ConfKind uint8

// The kinds of configuration values, named after Spark's ConfigBuilder types.
const (
	ConfString   ConfKind = iota // any text
	ConfBool                     // true or false, any case
	ConfInt                      // a 32-bit integer
	ConfLong                     // a 64-bit integer
	ConfBytes                    // a size: "512" (bytes), "64k", "1g", ...
	ConfTime                     // a duration: a bare number counts in the entry's TimeUnit
	ConfEnum                     // one of Values, any case
	ConfTimeZone                 // a Spark session time zone id (expr.LoadZone)
)

// ConfEntry is one configuration key Weir knows: its type, default, validation and doc.
type ConfEntry struct {
	Key  string
	Kind ConfKind
	// Default is the value reported when the key is not set; NoDefault keys have none
	// (spark.conf.get fails, as Spark's optional entries do).
	Default   string
	NoDefault bool
	// DocDefault, when set, describes the default in docs/configuration.md instead of Default
	// (for a default that depends on the machine).
	DocDefault string
	// Static keys cannot be set at run time (CANNOT_MODIFY_CONFIG).
	Static bool
	// Values are ConfEnum's accepted values, in the order Spark's error lists them.
	Values []string
	// TimeUnit is what a bare ConfTime number counts (milliseconds when zero).
	TimeUnit time.Duration
	// Valid (ConfInt, ConfLong, ConfBytes, ConfTime: on the number, a duration counted in
	// TimeUnits) and ValidIn (ConfString, ConfEnum: on the value) are Spark's checkValue;
	// Invalid is its message.
	Valid   func(n int64) bool
	ValidIn func(v string) bool
	Invalid string
	// Doc says what the key does in Weir.
	Doc string
}

func positive(n int64) bool    { return n > 0 }
func nonNegative(n int64) bool { return n >= 0 }

// confEntries is the registry of the keys Weir reads or reports, each once. Unknown keys
// are still settable (and reported as set), as Spark allows.
var confEntries = []ConfEntry{
	// SQL semantics.
	{Key: conf.TimeZoneKey, Kind: ConfTimeZone, Default: "UTC",
		Doc: "The session time zone: a region id (America/Los_Angeles), Z, UTC, GMT, an offset (+08:00) or GMT+8."},
	{Key: conf.ANSIKey, Kind: ConfBool, Default: "true",
		Doc: "ANSI SQL semantics: errors instead of NULL on overflow, invalid casts and out-of-range indexes."},
	{Key: conf.CaseSensitiveKey, Kind: ConfBool, Default: "false",
		Doc: "Whether column and field names are resolved case-sensitively."},
	{Key: conf.EnforceReservedKeywordsKey, Kind: ConfBool, Default: "false",
		Doc: "Whether Spark's ANSI reserved keywords are reserved: sql_keywords() reports them so " +
			"(Weir's parser reserves its own set either way)."},
	{Key: conf.TimeTypeKey, Kind: ConfBool, Default: "false",
		Doc: "Whether the TIME type (TIME literals and casts, make_time, to_time and the other TIME functions) may be used; " +
			"off, a query that uses it fails with UNSUPPORTED_TIME_TYPE, as in Spark 4.2."},
	{Key: "spark.sql.timestampType", Kind: ConfEnum, Default: "TIMESTAMP_LTZ",
		Values: []string{"TIMESTAMP_NTZ", "TIMESTAMP_LTZ"},
		Doc: "Read by the client: TIMESTAMP_NTZ makes createDataFrame infer timestamp_ntz columns " +
			"(Weir's SQL TIMESTAMP is always TIMESTAMP_LTZ)."},
	{Key: conf.DefaultParallelismKey, Kind: ConfInt, Default: strconv.Itoa(flow.DefaultParallelism()), Static: true,
		DocDefault: "the number of cores",
		Doc:        "Partitions of batch file and Kafka reads, and the default of " + query.ShufflePartitionsConf + "."},
	{Key: query.ShufflePartitionsConf, Kind: ConfInt, Default: strconv.Itoa(flow.DefaultParallelism()),
		DocDefault: "`" + conf.DefaultParallelismKey + "`",
		Valid:      positive, Invalid: "The value of " + query.ShufflePartitionsConf + " must be positive",
		Doc: "Partitions of shuffles (joins, aggregations) and of a new streaming query's state; " +
			"a query resumed from a checkpoint keeps the checkpoint's count."},
	{Key: conf.SourcesDefaultKey, Kind: ConfString, Default: "parquet",
		Doc: "The format of df.write.save and spark.read.load without a format."},
	{Key: conf.LegacyPathOptionKey, Kind: ConfBool, Default: "false",
		Doc: "Whether a path given to writeStream.start(path) replaces a 'path' option (else setting both is an error)."},

	// Results.
	{Key: conf.MaxRecordsPerBatchKey, Kind: ConfInt, Default: "10000",
		Doc: "At most this many rows per Arrow batch sent to the client (0 or less: no limit)."},
	{Key: conf.MaxResultSizeKey, Kind: ConfBytes, Default: "1g", Valid: nonNegative,
		Invalid: "The value of " + conf.MaxResultSizeKey + " must not be negative",
		Doc:     "Largest total size of the Arrow batches of one result (collect, toPandas); 0: no limit."},
	{Key: "spark.sql.repl.eagerEval.enabled", Kind: ConfBool, Default: "false",
		Doc: "Whether notebooks show DataFrames eagerly (read by the client)."},
	{Key: "spark.sql.repl.eagerEval.maxNumRows", Kind: ConfInt, Default: "20",
		Doc: "Rows shown by eager evaluation (read by the client)."},
	{Key: "spark.sql.repl.eagerEval.truncate", Kind: ConfInt, Default: "20",
		Doc: "Characters per cell shown by eager evaluation (read by the client)."},

	// Bounds on one query's work (issue 10).
	{Key: conf.QueryMemoryBudgetKey, Kind: ConfBytes, NoDefault: true, Valid: positive,
		Invalid: "The value of " + conf.QueryMemoryBudgetKey + " must be positive",
		Doc: "Memory one query may hold (unset: a quarter of what the process may use; held to that limit); " +
			"a quarter of it bounds one value of a function such as repeat or lpad."},
	{Key: PersistMemoryBudgetConf, Kind: ConfBytes, NoDefault: true, Valid: nonNegative,
		Invalid: "The value of " + PersistMemoryBudgetConf + " must not be negative",
		Doc: "Memory all persisted and checkpointed DataFrames of the server may hold (unset: half the default query budget); " +
			"past it the least recently read go to disk (levels with disk, checkpoints) or are recomputed when read."},
	{Key: sources.MaxLineBytesConf, Kind: ConfBytes, Default: "64m", Valid: positive,
		Invalid: "The value of " + sources.MaxLineBytesConf + " must be positive",
		Doc:     "Longest line the text, JSON and CSV readers accept."},
	{Key: planner.MaxPartitionsConf, Kind: ConfInt, Default: "4096", Valid: positive,
		Invalid: "The value of " + planner.MaxPartitionsConf + " must be positive",
		Doc:     "Most partitions any step of a query may have (repartition, range, shuffles)."},
	{Key: conf.BroadcastJoinThresholdKey, Kind: ConfBytes, Default: "10485760b",
		Doc: "A batch equi-join (inner, left outer, semi, anti) whose right side the optimizer estimates " +
			"at most this size (from Parquet row counts and column sizes) builds it in every partition of " +
			"the left instead of hash-partitioning both sides; -1 turns this off."},
	{Key: conf.OptimizerEnabledKey, Kind: ConfBool, Default: "true",
		Doc: "Whether queries go through the logical optimizer (pushdown, join keys and order, pruning) before they are planned."},

	// Streaming.
	{Key: query.CheckpointLocationConf, Kind: ConfString, Default: "",
		Doc: "The root under which streaming queries without a checkpointLocation option keep their checkpoints."},
	{Key: query.PollingDelayConf, Kind: ConfTime, Default: "1ms", TimeUnit: time.Millisecond, Valid: nonNegative,
		Invalid: "The polling delay must not be negative",
		Doc:     "How long the default trigger waits before asking idle sources again (Spark: 10ms)."},
	{Key: barrier.PolicyConf, Kind: ConfEnum, Default: "min", Values: []string{"min", "max"},
		Invalid: "Invalid value for 'spark.sql.streaming.multipleWatermarkPolicy'. Valid values are 'min' and 'max'",
		Doc:     "How the global watermark combines several inputs' watermarks."},
	{Key: state.MemoryBudgetConf, Kind: ConfLong, NoDefault: true,
		Doc: "In-memory state budget of one stateful operator instance in bytes; above it state spills (unset or ≤ 0: never)."},
	{Key: state.SpillDirConf, Kind: ConfString, NoDefault: true,
		Doc: "Parent directory of the state spill stores (unset: the system temporary directory)."},
	{Key: query.SourcePollIntervalConf, Kind: ConfTime, Default: sources.DefaultPollInterval.String(),
		TimeUnit: time.Millisecond, Valid: positive, Invalid: "The value must be a positive time",
		Doc: "How often continuous processing asks a source for new rows."},

	// Python functions.
	{Key: PythonMaxWorkersConf, Kind: ConfInt, Default: strconv.Itoa(defaultPythonWorkers()),
		DocDefault: "eight per core, at least 32", Valid: positive, Invalid: "The value of " + PythonMaxWorkersConf + " must be positive",
		Doc: "Most Python workers one session runs at once (UDFs, mapInPandas, applyInPandas: one per partition and Python operator); a plan needing more is refused."},
	{Key: PythonWorkerLoggingConf, Kind: ConfBool, Default: "false",
		Doc: "Whether the Python workers' log records, prints and stderr are kept for python_worker_logs() (the newest 10000 of the session)."},
	{Key: arrowSafeConversionConf, Kind: ConfBool, Default: "false",
		Doc: "Whether Python workers check for unsafe (overflowing, truncating) conversions of pandas results to Arrow."},
	{Key: assignColumnsByNameConf, Kind: ConfBool, Default: defaultAssignColumnsByName,
		Doc: "Whether applyInPandas matches its result's columns to the schema by name (else by position)."},

	// Read by the PySpark client (createDataFrame, toPandas, UDFs, error display); Weir only
	// reports them. Plan compression keys are deliberately absent: a missing key makes the
	// client send plans uncompressed.
	{Key: "spark.sql.session.localRelationCacheThreshold", Kind: ConfLong, Default: "67108864",
		Doc: "createDataFrame data above this many bytes is uploaded as an artifact (client)."},
	{Key: "spark.sql.session.localRelationSizeLimit", Kind: ConfLong, Default: "2147483647",
		Doc: "Largest local relation the client sends (client)."},
	{Key: "spark.sql.session.localRelationChunkSizeRows", Kind: ConfLong, Default: "10000",
		Doc: "Rows per chunk of a large local relation (client)."},
	{Key: "spark.sql.session.localRelationChunkSizeBytes", Kind: ConfLong, Default: "16777216",
		Doc: "Bytes per chunk of a large local relation (client)."},
	{Key: "spark.sql.session.localRelationBatchOfChunksSizeBytes", Kind: ConfLong, Default: "67108864",
		Doc: "Bytes per batch of chunks of a large local relation (client)."},
	{Key: "spark.sql.execution.pandas.inferPandasDictAsMap", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.execution.pandas.structHandlingMode", Kind: ConfString, Default: "legacy", Doc: "Client."},
	{Key: "spark.sql.execution.arrow.pyspark.selfDestruct.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.execution.arrow.useLargeVarTypes", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.execution.pyspark.binaryAsBytes", Kind: ConfBool, Default: "true", Doc: "Client."},
	{Key: "spark.sql.execution.pythonUDF.arrow.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.execution.pythonUDTF.arrow.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.pyspark.inferNestedDictAsStruct.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.connect.serverStacktrace.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},
	{Key: "spark.sql.pyspark.jvmStacktrace.enabled", Kind: ConfBool, Default: "false", Doc: "Client."},

	// Static.
	{Key: "spark.app.name", Kind: ConfString, Default: "weir", Static: true, Doc: "The application name."},
	{Key: WarehouseConf, Kind: ConfString, NoDefault: true, Static: true,
		Doc: "The directory of managed tables' files: <state-dir>/warehouse (SET shows the server's)."},
	{Key: "spark.master", Kind: ConfString, Default: "local[*]", Static: true, Doc: "Where queries run: in this process."},
}

// confByKey indexes confEntries.
var confByKey = func() map[string]*ConfEntry {
	m := make(map[string]*ConfEntry, len(confEntries))
	for i := range confEntries {
		e := &confEntries[i]
		if m[e.Key] != nil {
			panic("engine: configuration key registered twice: " + e.Key)
		}
		m[e.Key] = e
	}
	return m
}()

// LookupConf returns the registry entry of key.
func LookupConf(key string) (ConfEntry, bool) {
	e, ok := confByKey[key]
	if !ok {
		return ConfEntry{}, false
	}
	return *e, true
}

// ConfEntries returns every registered key, in registration order.
func ConfEntries() []ConfEntry { return append([]ConfEntry(nil), confEntries...) }
