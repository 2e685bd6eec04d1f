package sparkerr

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Java exception classes PySpark knows how to map (pyspark/errors/exceptions/connect.py).
const (
	AnalysisException        = "org.apache.spark.sql.AnalysisException"
	ParseException           = "org.apache.spark.sql.catalyst.parser.ParseException"
	IllegalArgumentException = "java.lang.IllegalArgumentException"
	ArithmeticException      = "java.lang.ArithmeticException"
	NumberFormatException    = "java.lang.NumberFormatException"
	DateTimeException        = "java.time.DateTimeException"
	StreamingQueryException  = "org.apache.spark.sql.streaming.StreamingQueryException"
	SparkException           = "org.apache.spark.SparkException"
	SparkRuntimeException    = "org.apache.spark.SparkRuntimeException"
	// SparkIllegalArgumentException is Spark's IllegalArgumentException with an error class.
	SparkIllegalArgumentException = "org.apache.spark.SparkIllegalArgumentException"
	UnsupportedOperation          = "java.lang.UnsupportedOperationException"
	TempTableAlreadyExists        = "org.apache.spark.sql.catalyst.analysis.TempTableAlreadyExistsException"
	NoSuchTableException          = "org.apache.spark.sql.catalyst.analysis.NoSuchTableException"
)

// javaHierarchy lists, for a Java class, the superclasses PySpark walks after it in the
// `classes` metadata, most specific first.
var javaHierarchy = map[string][]string{
	ParseException:                {AnalysisException},
	TempTableAlreadyExists:        {AnalysisException},
	NoSuchTableException:          {AnalysisException},
	NumberFormatException:         {IllegalArgumentException},
	ArithmeticException:           {},
	SparkRuntimeException:         {"java.lang.RuntimeException"},
	SparkIllegalArgumentException: {IllegalArgumentException, "java.lang.RuntimeException"},
	StreamingQueryException:       {SparkException},

	// java.util.Formatter's exceptions (format_string) are IllegalFormatExceptions.
	"java.util.IllegalFormatConversionException":    {"java.util.IllegalFormatException", IllegalArgumentException},
	"java.util.MissingFormatArgumentException":      {"java.util.IllegalFormatException", IllegalArgumentException},
	"java.util.UnknownFormatConversionException":    {"java.util.IllegalFormatException", IllegalArgumentException},
	"java.util.IllegalFormatArgumentIndexException": {"java.util.IllegalFormatException", IllegalArgumentException},
	// Array index errors (INVALID_ARRAY_INDEX, INVALID_ARRAY_INDEX_IN_ELEMENT_AT).
	"org.apache.spark.SparkArrayIndexOutOfBoundsException": {"java.lang.ArrayIndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException", "java.lang.RuntimeException"},
	// Spark's memory failures (UNABLE_TO_ACQUIRE_MEMORY).
	"org.apache.spark.memory.SparkOutOfMemoryError": {"java.lang.OutOfMemoryError", "java.lang.VirtualMachineError", "java.lang.Error"},
}

// Error is a Spark-shaped error.
type Error struct {
	// Class is the Spark error class, e.g. "UNRESOLVED_COLUMN.WITH_SUGGESTION"; may be empty for
	// errors Spark reports without one.
	Class string
	// SQLState is the five-character SQLSTATE, e.g. "42703".
	SQLState string
	// JavaClass is the Java exception class PySpark maps to a Python exception type.
	JavaClass string
	// Params are the message parameters of the error class.
	Params map[string]string
	// Message is the human-readable message (without the "[CLASS]" prefix).
	Message string
	// Cause is the wrapped error, if any.
	Cause error
}

// Error renders like Spark: "[CLASS] message SQLSTATE: xxxxx".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Class != "" {
		fmt.Fprintf(&b, "[%s] ", e.Class)
	}
	b.WriteString(e.Message)
	if e.SQLState != "" && e.Class != "" {
		fmt.Fprintf(&b, " SQLSTATE: %s", e.SQLState)
	}
	if e.Cause != nil && e.Message == "" {
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Classes is the Java class chain PySpark reads from the `classes` metadata.
func (e *Error) Classes() []string {
	jc := e.JavaClass
	if jc == "" {
		jc = SparkException
	}
	return append([]string{jc}, javaHierarchy[jc]...)
}

// New makes an error of a class with a literal message.
func New(javaClass, class, sqlState, msg string) *Error {
	return &Error{JavaClass: javaClass, Class: class, SQLState: sqlState, Message: msg}
}

// Newf is New with a formatted message.
func Newf(javaClass, class, sqlState, format string, args ...any) *Error {
	return New(javaClass, class, sqlState, fmt.Sprintf(format, args...))
}

// WithParams sets message parameters and returns e.
func (e *Error) WithParams(kv ...string) *Error {
	if e.Params == nil {
		e.Params = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Params[kv[i]] = kv[i+1]
	}
	return e
}

// Wrap attaches cause to e and returns e.
func (e *Error) Wrap(cause error) *Error {
	e.Cause = cause
	return e
}

// As finds the outermost *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// ParamsString renders the params deterministically (for logs and tests).
func (e *Error) ParamsString() string {
	keys := make([]string, 0, len(e.Params))
	for k := range e.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + e.Params[k]
	}
	return strings.Join(parts, ",")
}
