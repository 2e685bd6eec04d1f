// Package pickle is Spark's pickled row path to and from PySpark's worker.py, for the eval types
// that exchange Python pickles instead of Arrow: SQL_BATCHED_UDF (a plain @udf) and NON_UDF
// (writeStream.foreach).
//
// Sending (RowEncoder): rows of Arrow columns are pickled the way the JVM does it —
// EvaluatePython.toJava, then Pyrolite's Pickler (protocol 2) with Spark's Row and StructType
// picklers. A batch is a tuple of rows. A row is a plain tuple of values (BatchedUDF mode when no
// argument needs conversion in Python) or a pyspark Row built by
// pyspark.sql.types._create_row_inbound_converter(schema)(*values), which turns internal dates,
// timestamps and intervals into datetime objects and structs into Rows. Values: NULL → None,
// integers and dates/timestamps/intervals (internal ints) → int, float/double → float, decimal →
// decimal.Decimal(BigDecimal.toString()), string → str (invalid UTF-8 replaced by U+FFFD),
// binary → bytearray, array → list, map → dict, struct → Row. UDFBatchRows and AutoBatchSize are
// the JVM's batch sizes (100 rows per UDF batch; foreach batches sized by SerDeUtil's
// AutoBatchedPickler).
//
// Receiving (Decode, AppendFromJava, AppendUDFResults): a pickle of protocol 0-5 as CPython writes
// it is decoded into the objects Pyrolite's Unpickler would give the JVM (see value.go), then
// appended to Arrow builders with EvaluatePython.makeFromJava semantics: an unexpected Python
// type is NULL, integers narrow like Java casts, strings take any value's Java toString, decimals
// round HALF_UP and fail when they do not fit. Only builtin types, datetime, decimal.Decimal,
// bytes/bytearray and set/frozenset are accepted; any other class is an error (Spark's Pyrolite
// fails on them too, except that it turns a class called without arguments into a ClassDict).
//
// Bounds: decoding is linear in the pickle's size (lengths are checked against the input before
// any allocation, integers are at most MaxIntBytes long); what a decoded value expands to is
// bounded by a Budget, since memo references can share (even cycle) parts of it. Corrupt input
// fails with a PickleException-classed sparkerr.Error, never a panic.
//
// Imports: the standard library, Arrow, sparkerr, sql/types and sql/expr (Java's rendering of a
// double, shared with Spark's casts).
package pickle
