package protoconv

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Bounds on decoding LocalRelation data (see decodeIPC).
const (
	ipcExpansionLimit = 16
	ipcBudgetSlack    = 1 << 20
)

// rangeRel is spark.range: start defaults to 0. The client always sends step (PySpark's
// default is 1), so a zero step is the user's and the analyzer rejects it as Spark does.
func rangeRel(r *pb.Range) (plan.Relation, error) {
	if r == nil {
		r = &pb.Range{}
	}
	step := r.GetStep()
	return &plan.Range{Start: r.GetStart(), End: r.GetEnd(), Step: step, NumPartitions: r.GetNumPartitions(),
		HasNumPartitions: r.NumPartitions != nil}, nil
}

// localRelation decodes createDataFrame data: an Arrow IPC stream and/or a schema string.
func (t *translation) localRelation(l *pb.LocalRelation) (plan.Relation, error) {
	if l == nil {
		l = &pb.LocalRelation{}
	}
	out := &plan.LocalRelation{}
	if l.Schema != nil {
		s, err := ParseSchema(l.GetSchema())
		if err != nil {
			return nil, err
		}
		out.Schema = &s
	}
	if len(l.GetData()) == 0 {
		if out.Schema == nil {
			return nil, invalidPlan("Schema for LocalRelation is required when the input data is not provided.")
		}
		return out, nil
	}
	recs, arrowSchema, err := t.decodeIPC(l.GetData())
	if err != nil {
		return nil, err
	}
	out.Records, out.ArrowSchema = recs, arrowSchema
	if out.Schema != nil && len(*out.Schema) != len(out.ArrowSchema.Fields()) {
		return nil, invalidPlan("LocalRelation schema has %d fields but its data has %d columns",
			len(*out.Schema), len(out.ArrowSchema.Fields()))
	}
	return out, nil
}

// decodeIPC reads every record of an Arrow IPC stream, retained; on success they are also
// recorded in t.decoded (released if the rest of the translation fails).
//
// Decoding is bounded: an uncompressed stream's buffers all come from data, so the decoded
// records may use at most ipcExpansionLimit times its size (plus ipcBudgetSlack for padding
// and small streams); a stream claiming more is rejected as corrupt.
func (t *translation) decodeIPC(data []byte) (recs []arrow.RecordBatch, schema *arrow.Schema, err error) {
	scope := newScopedAllocator(t.alloc, ipcExpansionLimit*len(data)+ipcBudgetSlack)
	fail := func(format string, err error) ([]arrow.RecordBatch, *arrow.Schema, error) {
		for _, r := range recs {
			r.Release()
		}
		scope.freeLive()
		return nil, nil, invalidPlan(format, err).Wrap(err)
	}
	defer func() {
		// The reader recovers from most panics on malformed input itself; this catches the rest.
		if p := recover(); p != nil {
			recs, schema, err = fail("LocalRelation data is not a valid Arrow IPC stream: %v", fmt.Errorf("%v", p))
		}
	}()
	if err := checkIPCStream(data); err != nil {
		return fail("LocalRelation data is not a valid Arrow IPC stream: %v", err)
	}
	rd, err := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(scope),
		ipc.WithMetadataSizeLimit(int64(len(data))), ipc.WithBodySizeLimit(int64(len(data))))
	if err != nil {
		return fail("LocalRelation data is not an Arrow IPC stream: %v", err)
	}
	schema = rd.Schema()
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	err = rd.Err()
	rd.Release()
	if err != nil {
		return fail("LocalRelation data is not a valid Arrow IPC stream: %v", err)
	}
	scope.detach()
	t.decoded = append(t.decoded, recs...)
	return recs, schema, nil
}

// ParseSchema parses a schema string as Spark's Connect server does: JSON
// (StructType.json(), what PySpark sends) when it starts with "{", else a DDL table schema
// ("a INT, b STRING"). A JSON type that is not a struct becomes a single nullable column
// "value", as Spark does for createDataFrame with an atomic type.
func ParseSchema(s string) (sqltypes.Schema, error) {
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "\"") {
		return parser.ParseTableSchema(s)
	}
	t, err := ParseJSONType(trimmed)
	if err != nil {
		return nil, err
	}
	if t.Kind != sqltypes.Struct {
		return sqltypes.Schema{{Name: "value", Type: t, Nullable: true}}, nil
	}
	return sqltypes.Schema(t.Fields), nil
}

// sqlRelation is spark.sql(text, args): the text stays unparsed.
func (t *translation) sqlRelation(s *pb.SQL) (plan.Relation, error) {
	return t.sqlQuery(s.GetQuery(), s.GetArgs(), s.GetPosArgs(), s.GetNamedArguments(), s.GetPosArguments())
}

func (t *translation) sqlQuery(query string, args map[string]*pb.Expression_Literal, posArgs []*pb.Expression_Literal,
	namedArgs map[string]*pb.Expression, posArguments []*pb.Expression) (*plan.SQLQuery, error) {
	out := &plan.SQLQuery{Query: query}
	if len(args)+len(namedArgs) > 0 {
		out.Args = make(map[string]plan.Expr, len(args)+len(namedArgs))
	}
	for k, v := range args {
		lit, err := Literal(v)
		if err != nil {
			return nil, err
		}
		out.Args[k] = lit
	}
	for k, v := range namedArgs {
		e, err := t.required(v, "SQL named argument "+k)
		if err != nil {
			return nil, err
		}
		out.Args[k] = e
	}
	for _, v := range posArgs {
		lit, err := Literal(v)
		if err != nil {
			return nil, err
		}
		out.PosArgs = append(out.PosArgs, lit)
	}
	for i, v := range posArguments {
		e, err := t.required(v, "SQL positional argument "+itoa(int64(i)))
		if err != nil {
			return nil, err
		}
		out.PosArgs = append(out.PosArgs, e)
	}
	return out, nil
}

// read is spark.table / spark.read / spark.readStream.
func (t *translation) read(r *pb.Read) (plan.Relation, error) {
	switch x := r.GetReadType().(type) {
	case *pb.Read_NamedTable_:
		if x.NamedTable.GetUnparsedIdentifier() == "" {
			return nil, invalidPlan("Read.named_table is missing unparsed_identifier")
		}
		name, err := SplitIdentifier(x.NamedTable.GetUnparsedIdentifier())
		if err != nil {
			return nil, err
		}
		return &plan.NamedTable{Name: name, Options: cloneMap(x.NamedTable.GetOptions()), IsStreaming: r.GetIsStreaming()}, nil
	case *pb.Read_DataSource_:
		ds := x.DataSource
		if r.GetIsStreaming() && len(ds.GetPaths()) > 1 {
			return nil, invalidPlan("Multiple paths are not supported for streaming source")
		}
		// source_name (a stable name for a streaming source's checkpoint metadata) is not
		// needed by Weir's checkpoints, which key sources by position.
		return &plan.DataSource{
			Format:      ds.GetFormat(),
			Schema:      ds.GetSchema(),
			Options:     cloneMap(ds.GetOptions()),
			Paths:       cloneStrings(ds.GetPaths()),
			Predicates:  cloneStrings(ds.GetPredicates()),
			IsStreaming: r.GetIsStreaming(),
		}, nil
	}
	return nil, invalidPlan("Read is missing read_type")
}
