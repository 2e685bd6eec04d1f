package protoconv_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// ipcStream writes batches of (id int64, name utf8) with the given row counts as an Arrow IPC
// stream, the way PySpark's createDataFrame serialises its table.
func ipcStream(t testing.TB, rows ...int) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	next := int64(0)
	for _, n := range rows {
		b := array.NewRecordBuilder(mem, schema)
		for i := 0; i < n; i++ {
			b.Field(0).(*array.Int64Builder).Append(next)
			if next%2 == 0 {
				b.Field(1).(*array.StringBuilder).Append("n" + string(rune('a'+next%26)))
			} else {
				b.Field(1).(*array.StringBuilder).AppendNull()
			}
			next++
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const idNameJSON = `{"fields":[{"metadata":{},"name":"id","nullable":false,"type":"long"},{"metadata":{},"name":"name","nullable":true,"type":"string"}],"type":"struct"}`

func TestLocalRelationDecodesArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := idNameJSON
	id := int64(7)
	rel := &pb.Relation{
		Common:  &pb.RelationCommon{PlanId: &id},
		RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: ipcStream(t, 3, 0, 2), Schema: &schema}},
	}
	got, err := protoconv.Converter{Alloc: mem}.Relation(rel)
	if err != nil {
		t.Fatal(err)
	}
	lr, ok := got.(*plan.LocalRelation)
	if !ok {
		t.Fatalf("got %T", got)
	}
	if lr.PlanID != 8 {
		t.Errorf("PlanID = %d, want 8 (client id 7 shifted by one)", lr.PlanID)
	}
	want := sqltypes.Schema{{Name: "id", Type: sqltypes.LongType}, {Name: "name", Type: sqltypes.StringType, Nullable: true}}
	if lr.Schema == nil || !lr.Schema.AsStruct().Equal(want.AsStruct()) {
		t.Errorf("Schema = %v", lr.Schema)
	}
	if lr.ArrowSchema == nil || lr.ArrowSchema.NumFields() != 2 || lr.ArrowSchema.Field(1).Type.ID() != arrow.STRING {
		t.Errorf("ArrowSchema = %v", lr.ArrowSchema)
	}
	if len(lr.Records) != 3 {
		t.Fatalf("%d records, want 3", len(lr.Records))
	}
	var ids []int64
	var names []string
	for _, rec := range lr.Records {
		idCol := rec.Column(0).(*array.Int64)
		nameCol := rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			ids = append(ids, idCol.Value(i))
			if nameCol.IsNull(i) {
				names = append(names, "<null>")
			} else {
				names = append(names, nameCol.Value(i))
			}
		}
	}
	if want := []int64{0, 1, 2, 3, 4}; !equalSlices(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	if want := []string{"na", "<null>", "nc", "<null>", "ne"}; !equalSlices(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if mem.CurrentAlloc() == 0 {
		t.Error("records should hold allocator memory until released")
	}
	protoconv.ReleaseRecords(got)
	if lr.Records != nil {
		t.Error("ReleaseRecords should clear the records")
	}
	protoconv.ReleaseRecords(got) // idempotent
}

func equalSlices[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A failure anywhere in the tree releases the records decoded before it.
func TestLocalRelationReleasedOnError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	local := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: ipcStream(t, 4)}}}
	join := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{
		Left:     local,
		Right:    &pb.Relation{RelType: &pb.Relation_Sample{Sample: &pb.Sample{}}}, // missing input
		JoinType: pb.Join_JOIN_TYPE_INNER,
	}}}
	if _, err := (protoconv.Converter{Alloc: mem}).Relation(join); err == nil {
		t.Fatal("want an error for the malformed right side")
	}
	cmd := &pb.Command{CommandType: &pb.Command_CreateDataframeView{CreateDataframeView: &pb.CreateDataFrameViewCommand{
		Name: "v", Input: &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{
			Input:       local,
			Expressions: []*pb.Expression{{}},
		}}},
	}}}
	if _, err := (protoconv.Converter{Alloc: mem}).Command(cmd); err == nil {
		t.Fatal("want an error for the empty expression")
	}
}

// A corrupt stream after a good batch is an error and leaks nothing.
func TestLocalRelationTruncatedStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	data := ipcStream(t, 2, 2)
	for cut := 1; cut < len(data); cut += 7 {
		rel := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data[:cut]}}}
		got, err := protoconv.Converter{Alloc: mem}.Relation(rel)
		if err == nil {
			// A cut exactly at a message boundary is a shorter valid stream.
			protoconv.ReleaseRecords(got)
		}
	}
}

// Corrupting any byte of the stream gives a record set or an error, and never leaks: arrow-go's
// reader drops buffers when it recovers from a panic on a malformed batch, which the converter
// reclaims.
func TestLocalRelationCorruptStreamDoesNotLeak(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	data := append(ipcStream(t, 3, 2), nestedStream(t)...)
	failures := 0
	for pos := range data {
		for _, flip := range []byte{0x01, 0x08, 0x40, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[pos] ^= flip
			rel := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: bad}}}
			got, err := protoconv.Converter{Alloc: mem}.Relation(rel)
			if err != nil {
				failures++
				continue
			}
			protoconv.ReleaseRecords(got)
		}
		if mem.CurrentAlloc() != 0 {
			t.Fatalf("corrupting byte %d leaked %d bytes", pos, mem.CurrentAlloc())
		}
	}
	if failures == 0 {
		t.Error("no corruption was detected; the test exercises nothing")
	}
}

// nestedStream is an IPC stream with a list<struct<a:int32, m:map<utf8,utf8>>> column and
// schema metadata, so corruption reaches children and custom metadata vectors.
func nestedStream(t testing.TB) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	elem := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), Nullable: true},
	)
	md := arrow.NewMetadata([]string{"k"}, []string{"v"})
	schema := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(elem), Nullable: true, Metadata: md}}, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	for i := 0; i < 3; i++ {
		lb.Append(true)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		mb := sb.FieldBuilder(1).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("key")
		mb.ItemBuilder().(*array.StringBuilder).Append("val")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLocalRelationNestedStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rel := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: nestedStream(t)}}}
	got, err := protoconv.Converter{Alloc: mem}.Relation(rel)
	if err != nil {
		t.Fatal(err)
	}
	defer protoconv.ReleaseRecords(got)
	lr := got.(*plan.LocalRelation)
	if len(lr.Records) != 1 || lr.Records[0].NumRows() != 3 {
		t.Fatalf("records = %v", lr.Records)
	}
	list := lr.Records[0].Column(0).(*array.List)
	a := list.ListValues().(*array.Struct).Field(0).(*array.Int32)
	if a.Len() != 3 || a.Value(0) != 0 || a.Value(2) != 2 {
		t.Errorf("struct field a = %v", a)
	}
	if v, ok := lr.ArrowSchema.Metadata().GetValue("k"); !ok || v != "v" {
		t.Errorf("schema metadata lost: %v", lr.ArrowSchema.Metadata())
	}
}

func TestLocalRelationSchemaMismatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := `{"type":"struct","fields":[{"name":"only","type":"long","nullable":true,"metadata":{}}]}`
	rel := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: ipcStream(t, 1), Schema: &schema}}}
	if _, err := (protoconv.Converter{Alloc: mem}).Relation(rel); err == nil {
		t.Fatal("want an error: schema has 1 field, data 2 columns")
	}
}
