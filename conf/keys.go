package conf

// The names of the configuration keys that no runtime package owns: the SQL session's
// settings, read by the engine, the SQL parser and the front door. Keys a package owns are
// constants there (query.PollingDelayConf, state.MemoryBudgetConf, ...); engine's registry
// (engine/conf_keys.go) lists them all once.
const (
	TimeZoneKey      = "spark.sql.session.timeZone"
	ANSIKey          = "spark.sql.ansi.enabled"
	CaseSensitiveKey = "spark.sql.caseSensitive"
	// TimeTypeKey enables the TIME type (off by default, as in Spark 4.2).
	TimeTypeKey = "spark.sql.timeType.enabled"
	// EnforceReservedKeywordsKey makes Spark's ANSI reserved keywords reserved (sql_keywords()
	// reports them so).
	EnforceReservedKeywordsKey = "spark.sql.ansi.enforceReservedKeywords"
	SourcesDefaultKey          = "spark.sql.sources.default"
	MaxRecordsPerBatchKey      = "spark.sql.execution.arrow.maxRecordsPerBatch"
	MaxResultSizeKey           = "spark.driver.maxResultSize"
	DefaultParallelismKey      = "spark.default.parallelism"
	// LegacyPathOptionKey lets a path given to save()/start() replace a "path" option (else both
	// set is an error, as Spark 3.1+).
	LegacyPathOptionKey = "spark.sql.legacy.pathOptionBehavior.enabled"
	// QueryMemoryBudgetKey is a query's memory budget in bytes (flow.MemoryBudget; a quarter of it
	// bounds one value of a function sized by an argument).
	QueryMemoryBudgetKey = "spark.weir.query.memoryBudgetBytes"
	// OptimizerEnabledKey turns the logical optimizer (package sql/optimizer) on or off.
	OptimizerEnabledKey = "spark.weir.optimizer.enabled"
	// BroadcastJoinThresholdKey is the largest estimated build side a batch join broadcasts
	// (-1: none).
	BroadcastJoinThresholdKey = "spark.sql.autoBroadcastJoinThreshold"
)
