package analyzer_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// rows reads every row of a LocalData node as Go values.
func rows(t *testing.T, n logical.Node) [][]any {
	t.Helper()
	ld, ok := n.(*logical.LocalData)
	if !ok {
		t.Fatalf("got %T, want *logical.LocalData", n)
	}
	var out [][]any
	for _, rec := range ld.Records {
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = expr.ValueAt(rec.Column(c), r, ld.Out[c].Type)
			}
			out = append(out, row)
		}
	}
	return out
}

// TestValuesData checks VALUES rows are evaluated and coerced to each column's common type.
func TestValuesData(t *testing.T) {
	rel := &plan.Values{Names: []string{"n", "s"}, Rows: [][]plan.Expr{
		{i32(1), str("a")},
		{fn("+", i64(2), i64(3)), plan.Lit(nil, sqltypes.NullType)},
		{plan.Lit(2.5, sqltypes.DoubleType), fn("upper", str("b"))},
	}}
	n, err := newAnalyzer().Resolve(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Schema()[0].Type; got.Kind != sqltypes.Double {
		t.Fatalf("n has type %s, want double", got)
	}
	want := [][]any{{1.0, "a"}, {5.0, nil}, {2.5, "B"}}
	if got := rows(t, n); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}

// TestSelectWithoutFrom checks a FROM-less SELECT reads one row of no columns.
func TestSelectWithoutFrom(t *testing.T) {
	n, err := newAnalyzer().Resolve(context.Background(), project(nil, as(i32(7), "x")))
	if err != nil {
		t.Fatal(err)
	}
	p := n.(*logical.Project)
	ld := p.Input.(*logical.LocalData)
	if len(ld.Records) != 1 || ld.Records[0].NumRows() != 1 || ld.Records[0].NumCols() != 0 {
		t.Fatalf("input is %v", ld.Records)
	}
}

// TestLocalRelationKeepsRecords checks the user schema renames and casts the Arrow data with a
// Project and leaves the records to the caller (the analyzer retains nothing).
func TestLocalRelationKeepsRecords(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	as := arrow.NewSchema([]arrow.Field{{Name: "_1", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, as)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	s := sqltypes.Schema{{Name: "id", Type: sqltypes.IntegerType, Nullable: true}}
	n, err := newAnalyzer().Resolve(context.Background(),
		&plan.LocalRelation{Records: []arrow.RecordBatch{rec}, ArrowSchema: as, Schema: &s})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := n.(*logical.Project)
	if !ok {
		t.Fatalf("got %T, want a Project of casts", n)
	}
	if got := p.Input.(*logical.LocalData).Records[0]; got != rec {
		t.Fatal("the LocalData does not hold the relation's record")
	}
	if got := n.Schema(); got[0].Name != "id" || got[0].Type.Kind != sqltypes.Integer {
		t.Fatalf("schema %v", got)
	}
}
