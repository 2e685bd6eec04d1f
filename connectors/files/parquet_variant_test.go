package files

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/weirhq/weir/sql/expr"

	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/sql/types/variant"
)

var variantSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.IntegerType, Nullable: true},
	{Name: "v", Type: sqltypes.VariantType, Nullable: true},
}

// variantHex renders a read VARIANT value as hex value/metadata (nil for SQL NULL), checking that
// it is well-formed.
func variantHex(t *testing.T, x any) any {
	t.Helper()
	if x == nil {
		return nil
	}
	vv := x.(sqltypes.VariantValue)
	if err := variant.Validate(vv.Value, vv.Metadata); err != nil {
		t.Fatalf("invalid variant %x / %x: %v", vv.Value, vv.Metadata, err)
	}
	return fmt.Sprintf("%x/%x", vv.Value, vv.Metadata)
}

// testdata/spark42_variant holds the files Apache Spark 4.2 wrote for
// SELECT id, parse_json(j) AS v FROM VALUES (1, '{"a":1,"b":[true,"x"]}'), (2, NULL), (3, '2.5'):
// VARIANT-annotated groups with shredded typed_value columns, which the reader reassembles.
func TestParquetReadsSparkShreddedVariant(t *testing.T) {
	var got [][2]any
	for _, f := range []string{"shredded-0.parquet", "shredded-1.parquet"} {
		rows, _ := scanRows(t, filepath.Join("testdata", "spark42_variant", f), variantSchema, nil, nil)
		for _, r := range rows {
			got = append(got, [2]any{r[0], variantHex(t, r[1])})
		}
	}
	// Spark 4.2 reads these files back as these bytes.
	want := [][2]any{
		{int32(1), "0202000100020a0c0103020001030405" + "78/0102000102" + "6162"},
		{int32(2), nil},
		{int32(3), "200119000000/010000"},
	}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// A VARIANT column is written as Spark 4.2 writes one (a VARIANT-annotated group of binary
// metadata and value, which Spark's reader takes) and reads back with the same bytes.
func TestParquetWritesVariantColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []any{
		int32(1), sqltypes.VariantValue{Value: []byte{0x0c, 0x07}, Metadata: []byte{1, 0, 0}},
		int32(2), nil,
		int32(3), sqltypes.VariantValue{Value: []byte{0x02, 0x01, 0x00, 0x00, 0x02, 0x05, 'x'}, Metadata: []byte{1, 1, 0, 1, 'k'}},
	}
	as := sqltypes.ToArrowSchema(variantSchema, "UTC")
	cols := make([]arrow.Array, 2)
	for c := range cols {
		var col []any
		for r := 0; r < 3; r++ {
			col = append(col, vals[2*r+c])
		}
		cols[c] = expr.BuildArray(mem, variantSchema[c].Type, "UTC", col)
	}
	rec := array.NewRecordBatch(as, cols, 3)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "v.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := fileFormat{name: "parquet"}.newWriter(f, mem, variantSchema, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	node := pf.MetaData().Schema.Root().Field(1)
	pf.Close()
	if lt := node.LogicalType(); !lt.Equals(schema.VariantLogicalType{}) {
		t.Fatalf("column v has logical type %s, want VARIANT", lt)
	}
	rows, _ := scanRows(t, path, variantSchema, nil, nil)
	want := []any{"0c07/010000", nil, "02010000020578/010100016b"}
	for i, r := range rows {
		if got := variantHex(t, r[1]); got != want[i] {
			t.Errorf("row %d: %v, want %v", i, got, want[i])
		}
	}
}
