package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Functions of the file block the row was read from (Spark's InputFileName,
// InputFileBlockStart, InputFileBlockLength): input_file_name() is the file's URI
// (file:///…), input_file_block_start() the block's first byte and input_file_block_length()
// its length in bytes, or '' / -1 / -1 for rows no file scan feeds. Spark keeps the block in a
// task-local holder the scan sets; here a file source puts it in the environment of every
// batch it emits (InputFile.Metadata, the batch schema's metadata), operators that pass a
// batch's rows on pass it on, and these functions read it from the batch they evaluate over,
// one value for the whole batch. The functions are nondeterministic, as Spark's: the optimizer
// neither moves nor folds them.

func init() {
	registerScalar(0, 0, bindInputFile(inputFileName), "input_file_name")
	registerScalar(0, 0, bindInputFile(inputFileBlockStart), "input_file_block_start")
	registerScalar(0, 0, bindInputFile(inputFileBlockLength), "input_file_block_length")
}

// InputFile is the file block a batch's rows were read from.
type InputFile struct {
	// URI is the file's URI (file:///…).
	URI string
	// Start and Length are the block's byte range in the file (0 and the file's size for a
	// whole-file block).
	Start, Length int64
}

// Batch environment keys (flow.EnvSchema) of an InputFile.
const (
	inputFileURIKey    = "weir.input_file.uri"
	inputFileStartKey  = "weir.input_file.start"
	inputFileLengthKey = "weir.input_file.length"
)

// Metadata is f as a batch environment: the schema metadata a file source gives its batches.
func (f InputFile) Metadata() arrow.Metadata {
	return arrow.NewMetadata(
		[]string{inputFileURIKey, inputFileStartKey, inputFileLengthKey},
		[]string{f.URI, strconv.FormatInt(f.Start, 10), strconv.FormatInt(f.Length, 10)})
}

// InputFileOf is the input file in the environment of a batch of schema s; ok is false when
// no file scan fed the batch.
func InputFileOf(s *arrow.Schema) (f InputFile, ok bool) {
	md := s.Metadata()
	i := md.FindKey(inputFileURIKey)
	if i < 0 {
		return InputFile{}, false
	}
	f.URI = md.Values()[i]
	if j := md.FindKey(inputFileStartKey); j >= 0 {
		f.Start, _ = strconv.ParseInt(md.Values()[j], 10, 64)
	}
	if j := md.FindKey(inputFileLengthKey); j >= 0 {
		f.Length, _ = strconv.ParseInt(md.Values()[j], 10, 64)
	}
	return f, true
}

// inputFileField is which of the input file's facts a function returns.
type inputFileField int

const (
	inputFileName inputFileField = iota
	inputFileBlockStart
	inputFileBlockLength
)

func bindInputFile(field inputFileField) func(string, []Expr, Options) (Expr, error) {
	return func(string, []Expr, Options) (Expr, error) { return &inputFileExpr{field: field}, nil }
}

// inputFileExpr is input_file_name(), input_file_block_start() or input_file_block_length().
type inputFileExpr struct{ field inputFileField }

// Type implements Expr.
func (e *inputFileExpr) Type() sqltypes.DataType {
	if e.field == inputFileName {
		return sqltypes.StringType
	}
	return sqltypes.LongType
}

// Nullable implements Expr: never null (” and -1 without a file).
func (e *inputFileExpr) Nullable() bool { return false }

// String implements Expr.
func (e *inputFileExpr) String() string {
	return [...]string{"input_file_name()", "input_file_block_start()", "input_file_block_length()"}[e.field]
}

// Children implements Expr.
func (e *inputFileExpr) Children() []Expr { return nil }

// Eval implements Expr: the batch's input file fact, repeated for each row.
func (e *inputFileExpr) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	f, ok := InputFileOf(batch.Schema())
	n := int(batch.NumRows())
	if e.field == inputFileName {
		uri := ""
		if ok {
			uri = f.URI
		}
		b := array.NewStringBuilder(ctx.mem())
		defer b.Release()
		b.Reserve(n)
		b.ReserveData(n * len(uri))
		for i := 0; i < n; i++ {
			b.Append(uri)
		}
		return b.NewArray(), nil
	}
	v := int64(-1)
	if ok {
		v = f.Start
		if e.field == inputFileBlockLength {
			v = f.Length
		}
	}
	b := array.NewInt64Builder(ctx.mem())
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(v)
	}
	return b.NewArray(), nil
}

// InputFileCall is the first input file function call in e (nil if none).
func InputFileCall(e Expr) Expr {
	if f, ok := e.(*inputFileExpr); ok {
		return f
	}
	for _, c := range e.Children() {
		if f := InputFileCall(c); f != nil {
			return f
		}
	}
	return nil
}
