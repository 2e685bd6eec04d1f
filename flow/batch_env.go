package flow

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A data batch's environment is its schema's metadata: facts that hold for every row of the
// batch and say where the rows came from, such as the file a file source read them from
// (expr.InputFile, which input_file_name() reads). A source sets it on the batches it emits;
// operators that transform the rows of one batch into one batch (project, filter, sample,
// generate, union, Python evaluation) pass it on with EnvSchema; operators that gather rows of
// many batches (aggregates, sorts, joins, limits) and shuffles (WithoutEnv) do not, as Spark's
// task-local input file block does not survive an exchange. Node schemas never carry an
// environment, and arrow.Schema.Equal ignores it.

// EnvSchema is schema carrying the environment of from (schema itself when from has none).
func EnvSchema(schema *arrow.Schema, from arrow.RecordBatch) *arrow.Schema {
	md := from.Schema().Metadata()
	if md.Len() == 0 {
		return schema
	}
	return arrow.NewSchema(schema.Fields(), &md)
}

// WithoutEnv is rec without its environment, retained: rec itself when it has none, else the
// same columns under a schema without metadata. The caller releases the result.
func WithoutEnv(rec arrow.RecordBatch) arrow.RecordBatch {
	if rec.Schema().Metadata().Len() == 0 {
		rec.Retain()
		return rec
	}
	return array.NewRecordBatch(arrow.NewSchema(rec.Schema().Fields(), nil), rec.Columns(), rec.NumRows())
}
