package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The test file: rowGroups row groups of groupRows rows, row k (0-based over the file) holding
// id k, d date 19000+k, price k.00 (decimal(15,2)), s "k%03d", ts k seconds after the epoch,
// n: NULL in row group 0, k in row groups 1 and 2, NULL on odd rows of row group 3.
const (
	rowGroups = 4
	groupRows = 100
)

var scanSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.LongType, Nullable: true},
	{Name: "d", Type: sqltypes.DateType, Nullable: true},
	{Name: "price", Type: sqltypes.DecimalType(15, 2), Nullable: true},
	{Name: "s", Type: sqltypes.StringType, Nullable: true},
	{Name: "ts", Type: sqltypes.TimestampType, Nullable: true},
	{Name: "n", Type: sqltypes.IntegerType, Nullable: true},
}

func writeScanFile(t *testing.T) string {
	t.Helper()
	mem := memory.NewGoAllocator()
	as := sqltypes.ToArrowSchema(scanSchema, "UTC")
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for k := 0; k < rowGroups*groupRows; k++ {
		b.Field(0).(*array.Int64Builder).Append(int64(k))
		b.Field(1).(*array.Date32Builder).Append(arrow.Date32(19000 + k))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(k * 100)))
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("k%03d", k))
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(k) * 1e6))
		g := k / groupRows
		if g == 0 || (g == 3 && k%2 == 1) {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.Int32Builder).Append(int32(k))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(as, []arrow.RecordBatch{rec})
	defer tbl.Release()
	path := filepath.Join(t.TempDir(), "part-0.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithStats(true))
	// WriteTable closes f.
	if err := pqarrow.WriteTable(tbl, f, groupRows, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	return path
}

func col(schema sqltypes.Schema, name string) *expr.Column {
	for i, f := range schema {
		if f.Name == name {
			return &expr.Column{Index: i, Name: name, T: f.Type, Null: true}
		}
	}
	panic(name)
}

func bind(t *testing.T, name string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.Bind(name, args, expr.Options{TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func lit(v any, typ sqltypes.DataType) expr.Expr { return expr.NewLiteral(v, typ) }

// scanRows reads path with schema, filters and a row-group share; it returns the rows read
// and the row groups pruned.
func scanRows(t *testing.T, path string, schema sqltypes.Schema, filters []expr.Expr, share func(int) bool) ([][]any, int) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := newFileReader(mem, fileOptions{format: "parquet"}, schema, "UTC", 0)
	r.pruner = newRowGroupPruner(filters, r.schema, r.arrow, r.mem, r.tz, r.loc)
	r.rowGroups = share
	var rows [][]any
	err := r.readFile(context.Background(), dataFile{Path: path}, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		if !rec.Schema().Equal(r.arrow) {
			return fmt.Errorf("batch schema %s, want %s", rec.Schema(), r.arrow)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, len(schema))
			for c, f := range schema {
				row[c] = expr.ValueAt(rec.Column(c), i, f.Type)
			}
			rows = append(rows, row)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, r.prunedRowGroups
}

func TestParquetRowGroupPruning(t *testing.T) {
	path := writeScanFile(t)
	id, d, price, s, ts, n := col(scanSchema, "id"), col(scanSchema, "d"), col(scanSchema, "price"),
		col(scanSchema, "s"), col(scanSchema, "ts"), col(scanSchema, "n")
	dec := func(units int64) expr.Expr { return lit(decimal128.FromI64(units), sqltypes.DecimalType(15, 2)) }
	for _, c := range []struct {
		name    string
		filter  expr.Expr
		kept    int // row groups read
		matches int // rows of those that pass the filter (checked by evaluating it)
	}{
		{"long =", bind(t, "=", id, lit(int64(250), sqltypes.LongType)), 1, 1},
		{"long = literal first", bind(t, "=", lit(int64(250), sqltypes.LongType), id), 1, 1},
		{"long = outside", bind(t, "=", id, lit(int64(1000), sqltypes.LongType)), 0, 0},
		{"long <", bind(t, "<", id, lit(int64(100), sqltypes.LongType)), 1, 100},
		{"long <=", bind(t, "<=", id, lit(int64(100), sqltypes.LongType)), 2, 101},
		{"long >", bind(t, ">", id, lit(int64(299), sqltypes.LongType)), 1, 100},
		{"long >=", bind(t, ">=", id, lit(int64(299), sqltypes.LongType)), 2, 101},
		{"int literal widened to long", bind(t, "<", id, lit(int32(50), sqltypes.IntegerType)), 1, 50},
		{"between as two", bind(t, "and", bind(t, ">=", id, lit(int64(120), sqltypes.LongType)),
			bind(t, "<=", id, lit(int64(180), sqltypes.LongType))), 1, 61},
		{"in", bind(t, "in", id, lit(int64(5), sqltypes.LongType), lit(int64(305), sqltypes.LongType), lit(nil, sqltypes.LongType)), 2, 2},
		{"date >=", bind(t, ">=", d, lit(int32(19000+350), sqltypes.DateType)), 1, 50},
		{"date cast to timestamp", bind(t, ">=", d, lit(int64(19000+350)*86400*1e6, sqltypes.TimestampType)), 1, 50},
		{"decimal <", bind(t, "<", price, dec(5000)), 1, 50},
		{"decimal vs wider literal", bind(t, "<", price, lit(decimal128.FromI64(50), sqltypes.DecimalType(3, 0))), 1, 50},
		{"string =", bind(t, "=", s, lit("k123", sqltypes.StringType)), 1, 1},
		{"string >", bind(t, ">", s, lit("k2", sqltypes.StringType)), 2, 200},
		{"timestamp <", bind(t, "<", ts, lit(int64(10e6), sqltypes.TimestampType)), 1, 10},
		{"is null", bind(t, "isnull", n), 2, 150},
		{"is not null", bind(t, "isnotnull", n), 3, 250},
		{"comparison over an all-null chunk", bind(t, "<", n, lit(int32(150), sqltypes.IntegerType)), 1, 50},
		{"or is not used", bind(t, "or", bind(t, "=", id, lit(int64(1), sqltypes.LongType)),
			bind(t, "=", id, lit(int64(2), sqltypes.LongType))), 4, 2},
		{"arithmetic is not used", bind(t, "<", bind(t, "+", id, lit(int64(1), sqltypes.LongType)), lit(int64(50), sqltypes.LongType)), 4, 49},
		{"null-safe equality is not used", bind(t, "<=>", id, lit(int64(7), sqltypes.LongType)), 4, 1},
		{"two filters", bind(t, "and", bind(t, ">=", id, lit(int64(100), sqltypes.LongType)),
			bind(t, "<", s, lit("k200", sqltypes.StringType))), 1, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, pruned := scanRows(t, path, scanSchema, []expr.Expr{c.filter}, nil)
			if got := rowGroups - pruned; got != c.kept {
				t.Errorf("read %d row groups, want %d", got, c.kept)
			}
			if len(rows) != c.kept*groupRows {
				t.Errorf("read %d rows, want %d", len(rows), c.kept*groupRows)
			}
			// No row that passes was pruned: the passing rows among those read are all of them.
			if got := countPassing(t, c.filter, rows); got != c.matches {
				t.Errorf("%d rows read pass the filter, want %d", got, c.matches)
			}
		})
	}
}

// countPassing evaluates filter over rows (of scanSchema) and counts the rows it is true for.
func countPassing(t *testing.T, filter expr.Expr, rows [][]any) int {
	t.Helper()
	if len(rows) == 0 {
		return 0
	}
	mem := memory.NewGoAllocator()
	cols := make([]arrow.Array, len(scanSchema))
	for c, f := range scanSchema {
		vals := make([]any, len(rows))
		for i, r := range rows {
			vals[i] = r[c]
		}
		cols[c] = expr.BuildArray(mem, f.Type, "UTC", vals)
		defer cols[c].Release()
	}
	batch := array.NewRecordBatch(sqltypes.ToArrowSchema(scanSchema, "UTC"), cols, int64(len(rows)))
	defer batch.Release()
	out, err := filter.Eval(&expr.Context{Mem: mem}, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	n := 0
	for i := 0; i < out.Len(); i++ {
		if v, _ := expr.ValueAt(out, i, sqltypes.BooleanType).(bool); v {
			n++
		}
	}
	return n
}

func TestParquetProjectionReadsColumnsByName(t *testing.T) {
	path := writeScanFile(t)
	// A subset of the columns, in another order and case, and a column the file lacks.
	schema := sqltypes.Schema{
		{Name: "S", Type: sqltypes.StringType, Nullable: true},
		{Name: "missing", Type: sqltypes.LongType, Nullable: true},
		{Name: "id", Type: sqltypes.LongType, Nullable: true},
	}
	rows, _ := scanRows(t, path, schema, nil, nil)
	if len(rows) != rowGroups*groupRows {
		t.Fatalf("read %d rows, want %d", len(rows), rowGroups*groupRows)
	}
	for k, r := range rows {
		if r[0] != fmt.Sprintf("k%03d", k) || r[1] != nil || r[2] != int64(k) {
			t.Fatalf("row %d is %v", k, r)
		}
	}
}

func TestParquetNoColumnsCountsRows(t *testing.T) {
	path := writeScanFile(t)
	rows, _ := scanRows(t, path, sqltypes.Schema{}, nil, nil)
	if len(rows) != rowGroups*groupRows {
		t.Fatalf("read %d rows, want %d", len(rows), rowGroups*groupRows)
	}
}

// Fewer files than partitions: each partition reads a contiguous range of the files' row
// groups, and the partitions read in turn give every row once, in file order.
func TestParquetRowGroupShares(t *testing.T) {
	files := []dataFile{{Path: writeScanFile(t)}, {Path: writeScanFile(t)}}
	schema := sqltypes.Schema{{Name: "id", Type: sqltypes.LongType, Nullable: true}}
	for _, parts := range []int{3, 5, 8, 11} {
		var got []int64
		for p := 0; p < parts; p++ {
			r := newFileReader(memory.NewGoAllocator(), fileOptions{format: "parquet"}, schema, "UTC", 0)
			err := FileBatch{}.readRowGroupShare(context.Background(), r, files, p, parts, func(rec arrow.RecordBatch) error {
				defer rec.Release()
				for i := 0; i < int(rec.NumRows()); i++ {
					got = append(got, expr.ValueAt(rec.Column(0), i, sqltypes.LongType).(int64))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != 2*rowGroups*groupRows {
			t.Fatalf("%d partitions: read %d rows, want %d", parts, len(got), 2*rowGroups*groupRows)
		}
		for i, v := range got {
			if v != int64(i%(rowGroups*groupRows)) {
				t.Fatalf("%d partitions: row %d is id %d, want %d", parts, i, v, i%(rowGroups*groupRows))
			}
		}
	}
}

// A partition column comes from the directory name even when the file holds a column of that
// name: the file's column is neither read nor pruned on.
func TestParquetPartitionColumnIsNotPrunedOnFileStats(t *testing.T) {
	path := writeScanFile(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := sqltypes.Schema{{Name: "s", Type: sqltypes.StringType, Nullable: true}, {Name: "id", Type: sqltypes.LongType, Nullable: true}}
	r := newFileReader(mem, fileOptions{format: "parquet"}, schema, "UTC", 0)
	filter := bind(t, "=", col(schema, "id"), lit(int64(1000), sqltypes.LongType))
	r.pruner = newRowGroupPruner([]expr.Expr{filter}, r.schema, r.arrow, r.mem, r.tz, r.loc)
	rows := 0
	err := r.readFile(context.Background(), dataFile{Path: path, Partition: []PartitionValue{{Name: "id", Value: "1000"}}},
		func(rec arrow.RecordBatch) error {
			defer rec.Release()
			for i := 0; i < int(rec.NumRows()); i++ {
				if v := expr.ValueAt(rec.Column(1), i, sqltypes.LongType); v != int64(1000) {
					return fmt.Errorf("row %d: id %v, want the directory's 1000", rows+i, v)
				}
			}
			rows += int(rec.NumRows())
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if rows != rowGroups*groupRows || r.prunedRowGroups != 0 {
		t.Fatalf("read %d rows, pruned %d row groups; want %d rows, none pruned", rows, r.prunedRowGroups, rowGroups*groupRows)
	}
}
