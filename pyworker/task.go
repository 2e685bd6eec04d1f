package pyworker

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// UDF is one Python function of a task, as the client sent it.
type UDF struct {
	// Name is the function's name; worker.py reads it for a UDTF (its error messages name it).
	Name string
	// Command is the client's pickled payload (PythonUDF.command: cloudpickle of (func,
	// return_type); PythonUDTF.command: cloudpickle of the handler class), passed to the worker
	// unchanged.
	Command []byte
	// ArgOffsets are the columns of the task's input batches that are the function's arguments,
	// in order.
	ArgOffsets []int
	// ArgNames are keyword-argument names per argument ("" for a positional one); nil when all are
	// positional.
	ArgNames []string
	// Chained are the functions whose result this one's input is (Spark's ChainedPythonFunctions:
	// worker.py calls Command on the result of the last, which was called on the previous ...),
	// innermost first, each a pickled payload like Command; nil for a lone function.
	Chained [][]byte
	// Sides are, for the grouped-map and cogrouped-map kinds, the grouping-key and value columns
	// of each side's input batches (one side for grouped map, left then right for cogrouped), in
	// place of ArgOffsets (Spark's BasePandasGroupExec.resolveArgOffsets).
	Sides []SideOffsets
	// PartitionChildIndexes are, for a UDTF whose TABLE argument is partitioned (PARTITION BY),
	// the fields of that argument's struct holding the partitioning values: worker.py starts a
	// new handler (terminate, then a fresh instance) where they change between consecutive rows
	// and drops them from the row eval sees.
	PartitionChildIndexes []int
	// AnalyzeResult is, for a UDTF whose analyze method ran, the pickled AnalyzeResult its
	// handler's __init__ receives (AnalyzeUDTF's UDTFAnalysis.Pickled).
	AnalyzeResult []byte
	// ReturnType is the Arrow type of the function's result column(s) (a struct for the map and
	// grouped-map kinds: one field per output column).
	ReturnType arrow.DataType
}

// SideOffsets are the grouping-key and value columns of one side of a grouped or cogrouped input.
type SideOffsets struct {
	Keys, Values []int
}

// Task is one evaluation on a worker: what worker.py's main reads before the data.
type Task struct {
	EvalType EvalType
	UDFs     []UDF
	// PartitionIndex is the task's partition (TaskContext.partitionId, foreach's partition_id).
	PartitionIndex int
	// LocalProperties are the task's TaskContext local properties (getLocalProperty): a foreach
	// writer's task has "streaming.sql.batchId", its epoch id.
	LocalProperties map[string]string
	// PythonVersion is the client's Python "major.minor" (PythonUDF.python_ver); the worker fails
	// with PYTHON_VERSION_MISMATCH when its own differs.
	PythonVersion string
	// Conf is the runner conf worker.py reads (spark.sql.session.timeZone,
	// spark.sql.execution.arrow.maxRecordsPerBatch, spark.sql.legacy.execution.pandas.
	// groupedMap.assignColumnsByName, spark.sql.execution.pandas.convertToArrowArraySafely, ...).
	Conf map[string]string
	// Alloc allocates the result batches read from the worker (the query's memory budget).
	Alloc memory.Allocator
	// InputSchemas are the schemas of the input batches, one per side (two for the cogrouped
	// kinds): the worker needs a schema for an input or a cogroup side that has no batch. When
	// nil, the schema of the first batch sent is used (an input without batches then has no
	// columns).
	InputSchemas []*arrow.Schema
	// SparkFilesDir is the directory worker.py puts first on sys.path and SparkFiles reads
	// (the session's artifacts); empty for a fresh empty directory of the pool.
	SparkFilesDir string
	// PythonIncludes are files of SparkFilesDir (zip, egg) added to sys.path as well.
	PythonIncludes []string
	// Barrier, when set, makes the task one of a barrier stage (barrier.go): its TaskContext is
	// a BarrierTaskContext served by the Barrier, which the task joins while it runs.
	Barrier *Barrier

	// barrierPort and barrierSecret are the joined Barrier's (set by the pool).
	barrierPort   int
	barrierSecret string
}

// Group is one unit of a task's input: one batch for the scalar and map kinds, all the rows of
// one group for the grouped kinds (Batches[0]), the two sides' rows of one key for the cogrouped
// kinds (Batches[0], Batches[1]).
type Group struct {
	Batches [][]arrow.RecordBatch
}
