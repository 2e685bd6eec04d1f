package protoconv

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql"
	"github.com/weirhq/weir/sqltypes"
)

// rangeRel is spark.range: start defaults to 0 and step 0 (unset) to 1.
func rangeRel(r *pb.Range) (plan.Relation, error) {
	step := r.GetStep()
	if step == 0 {
		step = 1
	}
	if r.NumPartitions != nil && r.GetNumPartitions() <= 0 {
		return nil, invalidPlan("Range num_partitions must be positive, got %d", r.GetNumPartitions())
	}
	return &plan.Range{Start: r.GetStart(), End: r.GetEnd(), Step: step, NumPartitions: r.GetNumPartitions()}, nil
}

// localRelation decodes createDataFrame data: an Arrow IPC stream and/or a schema string.
func (t *translation) localRelation(l *pb.LocalRelation) (plan.Relation, error) {
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
	rd, err := ipc.NewReader(bytes.NewReader(l.GetData()), ipc.WithAllocator(t.alloc))
	if err != nil {
		return nil, invalidPlan("LocalRelation data is not an Arrow IPC stream: %v", err).Wrap(err)
	}
	defer rd.Release()
	out.ArrowSchema = rd.Schema()
	for rd.Next() {
		rec := rd.RecordBatch()
		rec.Retain()
		t.decoded = append(t.decoded, rec)
		out.Records = append(out.Records, rec)
	}
	if err := rd.Err(); err != nil {
		return nil, invalidPlan("LocalRelation data is not a valid Arrow IPC stream: %v", err).Wrap(err)
	}
	if out.Schema != nil && len(*out.Schema) != len(out.ArrowSchema.Fields()) {
		return nil, invalidPlan("LocalRelation schema has %d fields but its data has %d columns",
			len(*out.Schema), len(out.ArrowSchema.Fields()))
	}
	return out, nil
}

// ParseSchema parses a schema string as Spark's Connect server does: JSON
// (StructType.json(), what PySpark sends) when it starts with "{", else a DDL table schema
// ("a INT, b STRING"). A JSON type that is not a struct becomes a single nullable column
// "value", as Spark does for createDataFrame with an atomic type.
func ParseSchema(s string) (sqltypes.Schema, error) {
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "\"") {
		return sql.ParseTableSchema(s)
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
func sqlRelation(s *pb.SQL) (plan.Relation, error) {
	return sqlQuery(s.GetQuery(), s.GetArgs(), s.GetPosArgs(), s.GetNamedArguments(), s.GetPosArguments())
}

func sqlQuery(query string, args map[string]*pb.Expression_Literal, posArgs []*pb.Expression_Literal,
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
		e, err := required(v, "SQL named argument "+k)
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
		e, err := required(v, "SQL positional argument "+itoa(int64(i)))
		if err != nil {
			return nil, err
		}
		out.PosArgs = append(out.PosArgs, e)
	}
	return out, nil
}

// read is spark.table / spark.read / spark.readStream.
func read(r *pb.Read) (plan.Relation, error) {
	switch x := r.GetReadType().(type) {
	case *pb.Read_NamedTable_:
		if x.NamedTable.GetUnparsedIdentifier() == "" {
			return nil, invalidPlan("Read.named_table is missing unparsed_identifier")
		}
		name, err := SplitIdentifier(x.NamedTable.GetUnparsedIdentifier())
		if err != nil {
			return nil, err
		}
		if r.GetIsStreaming() {
			return nil, sparkerr.Unsupported("streaming reads of tables (spark.readStream.table) are not supported")
		}
		return &plan.NamedTable{Name: name, Options: cloneMap(x.NamedTable.GetOptions())}, nil
	case *pb.Read_DataSource_:
		ds := x.DataSource
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
