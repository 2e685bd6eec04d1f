package pyworker

// EvalType is PySpark's PythonEvalType (pyspark/util.py): how worker.py reads a task's input,
// calls its functions and writes their output.
type EvalType int32

// The eval types Weir runs (values from pyspark.util.PythonEvalType).
const (
	NonUDF                   EvalType = 0   // foreach writers: pickled rows in, nothing out
	SQLBatchedUDF            EvalType = 100 // @udf (pickled rows)
	SQLArrowBatchedUDF       EvalType = 101 // @udf(useArrow=True)
	SQLScalarPandasUDF       EvalType = 200 // @pandas_udf scalar
	SQLGroupedMapPandasUDF   EvalType = 201 // groupBy().applyInPandas
	SQLGroupedAggPandasUDF   EvalType = 202 // @pandas_udf grouped aggregate
	SQLWindowAggPandasUDF    EvalType = 203
	SQLScalarPandasIterUDF   EvalType = 204 // @pandas_udf scalar iterator
	SQLMapPandasIterUDF      EvalType = 205 // mapInPandas
	SQLCogroupedMapPandasUDF EvalType = 206 // cogroup().applyInPandas
	SQLMapArrowIterUDF       EvalType = 207 // mapInArrow
	SQLGroupedMapArrowUDF    EvalType = 209 // groupBy().applyInArrow
	SQLCogroupedMapArrowUDF  EvalType = 210 // cogroup().applyInArrow
	SQLScalarArrowUDF        EvalType = 250 // @arrow_udf scalar
	SQLScalarArrowIterUDF    EvalType = 251
	SQLGroupedAggArrowUDF    EvalType = 252
	SQLTableUDF              EvalType = 300 // @udtf
	SQLArrowTableUDF         EvalType = 301
)
