package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// python_worker_logs(): Spark 4.2's table function over the log records the session's Python
// workers wrote (their logging calls, prints and stderr, captured by PySpark's worker_io while
// spark.sql.pyspark.worker.logging.enabled is true). Options.PythonWorkerLogs is the session's
// store; nil (the setting off) is FEATURE_NOT_ENABLED, as in Spark.

// PythonWorkerLogSchema is python_worker_logs()'s schema.
var PythonWorkerLogSchema = func() sqltypes.Schema {
	str := sqltypes.StringType
	frame := sqltypes.StructType(
		sqltypes.Field{Name: "class", Type: str, Nullable: true}, sqltypes.Field{Name: "method", Type: str, Nullable: true},
		sqltypes.Field{Name: "file", Type: str, Nullable: true}, sqltypes.Field{Name: "line", Type: str, Nullable: true})
	exception := sqltypes.StructType(
		sqltypes.Field{Name: "class", Type: str, Nullable: true}, sqltypes.Field{Name: "msg", Type: str, Nullable: true},
		sqltypes.Field{Name: "stacktrace", Type: sqltypes.ArrayType(frame, true), Nullable: true})
	return sqltypes.Schema{
		{Name: "ts", Type: sqltypes.TimestampType, Nullable: true},
		{Name: "level", Type: str, Nullable: true},
		{Name: "msg", Type: str, Nullable: true},
		{Name: "context", Type: sqltypes.MapType(str, str, true), Nullable: true},
		{Name: "exception", Type: exception, Nullable: true},
		{Name: "logger", Type: str, Nullable: true},
	}
}()

func init() {
	generatorRegistry["python_worker_logs"] = generatorBinder{0, 0, bindPythonWorkerLogs}
	tableOnlyGenerators["python_worker_logs"] = true
}

func bindPythonWorkerLogs(_ string, args []Expr, opts Options) (*generator, error) {
	logs := opts.PythonWorkerLogs
	if logs == nil {
		return nil, sparkerr.Analysis("FEATURE_NOT_ENABLED", "56038",
			"The feature Python Worker Logging is not enabled. Consider setting the config spark.sql.pyspark.worker.logging.enabled to true to enable this capability.").
			WithParams("featureName", "Python Worker Logging", "configKey", "spark.sql.pyspark.worker.logging.enabled", "configValue", "true")
	}
	return &generator{args: args, out: PythonWorkerLogSchema, row: func(_ []any, emit func(...any)) {
		for _, r := range logs() {
			emit(r...)
		}
	}}, nil
}
