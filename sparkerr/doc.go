// Package sparkerr defines Weir's domain errors: every error that can reach a client carries the
// Spark error class it maps to (e.g. UNRESOLVED_COLUMN.WITH_SUGGESTION), its SQLSTATE, its message
// parameters and the Java exception class PySpark turns it into (AnalysisException,
// ParseException, IllegalArgumentException, StreamingQueryException, …).
//
// Packages below connect/ create errors with New/Newf or wrap causes with Wrap; they never import
// gRPC. connect/ maps an error to a google.rpc.Status exactly once, at the edge, with As: the
// outermost *Error in the chain decides the class; an error with none becomes an internal
// SparkException.
package sparkerr
