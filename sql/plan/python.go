package plan

import sqltypes "github.com/weirhq/weir/sql/types"

// PythonFunction is a Python function as a Spark Connect client sends it (PythonUDF without its
// output type): its pickled payload, the client's Python version and Spark's PythonEvalType.
// foreachBatch functions, foreach writers and UDFs carry one.
type PythonFunction struct {
	// Command is the client's cloudpickled payload, passed to a PySpark worker unchanged.
	Command []byte
	// PythonVer is the client's Python "major.minor"; a worker of another version refuses it.
	PythonVer string
	// EvalType is pyspark.util.PythonEvalType.
	EvalType int32
	// Includes are the client's additional Python includes (artifact names).
	Includes []string
}

// CachedRemoteRelation is a DataFrame the server holds for a client under an id (Spark Connect's
// CachedRemoteRelation): foreachBatch's epoch output, read by the function's worker.
type CachedRemoteRelation struct {
	RelCommon
	ID string
}

// PythonUDF is a call of a Python user-defined function the client sent (Spark Connect's
// CommonInlineUserDefinedFunction with a PythonUDF): the pickled function and how to run it.
// It is only ever used by pointer: the analyzer tells calls apart by identity.
type PythonUDF struct {
	// Name is the function's name (the column name of a call is Name(args)).
	Name string
	// PythonFunction is the pickled (function, return type), its eval type and Python version.
	PythonFunction
	// OutputType is the declared return type (a struct for the map and grouped-map kinds).
	OutputType    sqltypes.DataType
	Deterministic bool
	Args          []Expr
	// ArgNames are the keyword names of the arguments ("" for positional ones); nil when all
	// are positional.
	ArgNames []string
}

func (*PythonUDF) isExpr() {}

// MapInPython is mapInPandas / mapInArrow (Spark Connect MapPartitions): Func (an
// SQL_MAP_PANDAS_ITER_UDF or SQL_MAP_ARROW_ITER_UDF, no arguments: it reads every input column)
// maps each partition's batches to rows of Func.OutputType's struct fields.
type MapInPython struct {
	RelCommon
	Input     Relation
	Func      *PythonUDF
	IsBarrier bool
}

// GroupMapInPython is groupBy(...).applyInPandas / applyInArrow (Spark Connect GroupMap): Func
// maps the rows of each group to rows of Func.OutputType's struct fields.
type GroupMapInPython struct {
	RelCommon
	Input    Relation
	Grouping []Expr
	Func     *PythonUDF
}

// CoGroupMapInPython is groupBy(...).cogroup(other.groupBy(...)).applyInPandas / applyInArrow
// (Spark Connect CoGroupMap): Func maps both sides' rows of each key to rows of
// Func.OutputType's struct fields.
type CoGroupMapInPython struct {
	RelCommon
	Left, Right                 Relation
	LeftGrouping, RightGrouping []Expr
	Func                        *PythonUDF
}

// RegisterPythonFunction is spark.udf.register(name, f) of a Python function: Func (without
// arguments) joins the session's functions under Func.Name, so SQL text can call it.
type RegisterPythonFunction struct {
	Func *PythonUDF
}

func (RegisterPythonFunction) isCommand() {}

// PythonUDTF is a call of a Python user-defined table function (Spark Connect's
// CommonInlineUserDefinedTableFunction with a PythonUDTF): the pickled handler class, its eval
// type (SQL_TABLE_UDF, SQL_ARROW_TABLE_UDF, …), its declared return type and the call's
// arguments.
type PythonUDTF struct {
	// Name is the function's name (spark.udtf.register's, else the handler class's).
	Name string
	// PythonFunction is the cloudpickled handler class, its eval type and Python version.
	PythonFunction
	// ReturnType is the declared return type (a struct); nil when the handler declares none and
	// computes it in its analyze method.
	ReturnType *sqltypes.DataType
	// AnalyzeResult is the pickled AnalyzeResult the analyze method returned, which the
	// handler's __init__ receives (set by the analyzer when it ran analyze).
	AnalyzeResult []byte
	Deterministic bool
	Args          []Expr
	// ArgNames are the keyword names of the arguments ("" for positional ones); nil when all
	// are positional.
	ArgNames []string
}

// PythonTableFunction is a Python UDTF call used as a relation (udtf_obj(lit(1), …) as a
// DataFrame, or a registered UDTF called in FROM): the rows its handler returns for arguments
// that read no column. With Input set it is the call lateral-joined to Input
// (df.lateralJoin(udtf_obj(col("a").outer()))): the arguments read Input's columns per row and
// each returned row follows its input row's columns, the function's columns qualified by Alias.
type PythonTableFunction struct {
	RelCommon
	Func  *PythonUDTF
	Input Relation
	Alias string
}

// RegisterPythonTableFunction is spark.udtf.register(name, f): Func (without arguments) joins
// the session's table functions under Func.Name, so SQL text can call it in FROM.
type RegisterPythonTableFunction struct {
	Func *PythonUDTF
}

func (RegisterPythonTableFunction) isCommand() {}

// TableArgument is a TABLE argument of a table function call (SQL's f(TABLE t PARTITION BY k
// ORDER BY v), Spark's FunctionTableSubqueryArgumentExpression): the function sees Input's rows,
// partitioned by PartitionBy (or all in one partition when SinglePartition) and ordered by
// OrderBy within each partition.
type TableArgument struct {
	Input           Relation
	PartitionBy     []Expr
	SinglePartition bool
	OrderBy         []SortOrder
}

func (*TableArgument) isExpr() {}

// Persisted marks a relation the session may hold persisted (df.cache()/persist()) under Key: the
// analyzer resolves Input and, when the catalog holds a persisted DataFrame under Key with the
// same schema, reads that instead.
type Persisted struct {
	RelCommon
	Key   string
	Input Relation
}
