package sources

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
)

type collector struct{ ids []int64 }

func (c *collector) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	c.ids = append(c.ids, rec.Column(flow.UserOffset).(*array.Int64).Int64Values()...)
	return nil
}

var idSchema = flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil))

func TestRangeSplitsLikeSpark(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		r     Range
		parts int
		want  [][]int64
	}{
		{Range{0, 10, 1}, 3, [][]int64{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}}},
		{Range{0, 10, 3}, 2, [][]int64{{0, 3}, {6, 9}}},
		{Range{5, 0, -2}, 2, [][]int64{{5}, {3, 1}}},
		{Range{0, 2, 1}, 4, [][]int64{{}, {0}, {}, {1}}},
		{Range{0, -5, 1}, 2, [][]int64{{}, {}}},
	} {
		for p := 0; p < tc.parts; p++ {
			c := &collector{}
			if err := tc.r.Run(context.Background(), flow.Env{Mem: mem, Partition: p, Partitions: tc.parts, OutSchema: idSchema}, c); err != nil {
				t.Fatal(err)
			}
			if len(c.ids) != len(tc.want[p]) {
				t.Fatalf("%+v partition %d: got %v want %v", tc.r, p, c.ids, tc.want[p])
			}
			for i := range c.ids {
				if c.ids[i] != tc.want[p][i] {
					t.Fatalf("%+v partition %d: got %v want %v", tc.r, p, c.ids, tc.want[p])
				}
			}
		}
	}
	// Counts near the int64 limits do not overflow.
	full := Range{math.MinInt64, math.MaxInt64, 1}
	if first, n := full.Slice(3, 4); first != 3*(math.MaxUint64/4)+2 || n != math.MaxUint64/4+1 {
		t.Fatalf("slice %d %d", first, n)
	}
	c := &collector{}
	tail := Range{math.MaxInt64 - 2, math.MaxInt64, 1}
	if err := tail.Run(context.Background(), flow.Env{Mem: mem, Partition: 1, Partitions: 2, OutSchema: idSchema}, c); err != nil || len(c.ids) != 1 || c.ids[0] != math.MaxInt64-1 {
		t.Fatalf("near the limit: %v %v", c.ids, err)
	}
	if err := (Range{0, 1, 0}).Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: idSchema}, &collector{}); err == nil {
		t.Fatal("step 0 accepted")
	}
}

func TestLocalDataEmitsFromPartitionZero(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{7, 8}, nil)
	a := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(flow.UserSchema(idSchema), []arrow.Array{a}, 2)
	a.Release()
	defer rec.Release()
	src := LocalData{Records: []arrow.RecordBatch{rec}}
	for p, want := range []int{2, 0} {
		c := &collector{}
		if err := src.Run(context.Background(), flow.Env{Mem: mem, Partition: p, Partitions: 2, OutSchema: idSchema}, c); err != nil {
			t.Fatal(err)
		}
		if len(c.ids) != want {
			t.Fatalf("partition %d emitted %v", p, c.ids)
		}
	}
	bad := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil))
	if err := src.Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: bad}, &collector{}); err == nil {
		t.Fatal("type mismatch accepted")
	}
}

// TestLocalDataConformsRepresentations checks that inline data in another Arrow representation
// of the schema's Spark type (pandas 3's large_utf8 strings, a pandas category's dictionary) is
// cast to the schema's type, while a different type stays an error.
func TestLocalDataConformsRepresentations(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	want := flow.EventSchema(arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil))
	lb := array.NewLargeStringBuilder(mem)
	lb.AppendValues([]string{"x", "y"}, nil)
	large := lb.NewArray()
	lb.Release()
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	_ = db.AppendString("cat")
	_ = db.AppendString("cat")
	dict := db.NewArray()
	db.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: large.DataType()}, {Name: "c", Type: dict.DataType()}}, nil),
		[]arrow.Array{large, dict}, 2)
	large.Release()
	dict.Release()
	defer rec.Release()
	emit := &stringCollector{}
	if err := (LocalData{Records: []arrow.RecordBatch{rec}}).Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: want}, emit); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(emit.rows, " "); got != "x/cat y/cat" {
		t.Fatalf("rows %v", got)
	}
	ints := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.PrimitiveTypes.Int64}, {Name: "c", Type: arrow.BinaryTypes.String}}, nil))
	if err := (LocalData{Records: []arrow.RecordBatch{rec}}).Run(context.Background(), flow.Env{Mem: mem, Partitions: 1, OutSchema: ints}, emit); err == nil {
		t.Fatal("a string column accepted as bigint")
	}
}

// stringCollector keeps the rows of two string user columns as "a/b".
type stringCollector struct{ rows []string }

func (c *stringCollector) Emit(_ context.Context, b arrow.RecordBatch) error {
	defer b.Release()
	for i := 0; i < int(b.NumRows()); i++ {
		c.rows = append(c.rows, b.Column(flow.UserOffset).(*array.String).Value(i)+"/"+b.Column(flow.UserOffset+1).(*array.String).Value(i))
	}
	return nil
}
