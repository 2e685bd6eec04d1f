package files

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBatchRows is how many rows a batch read from a Parquet file holds.
const parquetBatchRows = 8192

// readParquet reads a Parquet file and conforms its batches to the schema. It reads only the
// column chunks of the schema's columns (matched by name, case-insensitively), only the row
// groups r.rowGroups takes (all when nil), and skips those whose statistics prove that no row
// passes the pushed-down filters (r.pruner). Arrow types the file and the schema share
// (integers, Date32, Decimal128 of the same precision and scale, timestamps) are kept as read.
func (r *fileReader) readParquet(ctx context.Context, path string, emit func(arrow.RecordBatch) error) error {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return fileError("open the Parquet file", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetBatchRows}, r.mem)
	if err != nil {
		return fileError("read the Parquet file", path, err)
	}
	fields := r.parquetFields(fr.Manifest)
	groups := r.parquetRowGroups(pf, fr.Manifest, fields)
	if len(groups) == 0 {
		return nil
	}
	var leaves []int
	for _, j := range fields {
		if j >= 0 {
			leaves = appendLeaves(leaves, &fr.Manifest.Fields[j])
		}
	}
	if len(leaves) == 0 {
		// No column of the file is read (count(*), or only partition columns): the rows
		// are counted from the footer.
		return r.emitRowCounts(pf, groups, emit)
	}
	rr, err := fr.GetRecordReader(ctx, leaves, groups)
	if err != nil {
		return fileError("read the Parquet file", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec, err := r.conform(rr.RecordBatch())
		if err != nil {
			return err
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fileError("read the Parquet file", path, err)
	}
	return nil
}

// parquetFields maps each schema column to the index of the file's top-level field of that
// name (case-insensitively), -1 when the file has none or the column is one of the file's
// partition columns (filled from its directory names).
func (r *fileReader) parquetFields(m *pqarrow.SchemaManifest) []int {
	out := make([]int, len(r.schema))
	for i, f := range r.schema {
		out[i] = -1
		if partitionValueIndex(r.partition, f.Name) >= 0 {
			continue
		}
		for j := range m.Fields {
			if strings.EqualFold(m.Fields[j].Field.Name, f.Name) {
				out[i] = j
				break
			}
		}
	}
	return out
}

func partitionValueIndex(parts []PartitionValue, name string) int {
	for i, p := range parts {
		if strings.EqualFold(p.Name, name) {
			return i
		}
	}
	return -1
}

// appendLeaves appends the leaf column indices of f (one for a primitive field, each leaf
// of a nested one).
func appendLeaves(out []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for i := range f.Children {
		out = appendLeaves(out, &f.Children[i])
	}
	return out
}

// parquetRowGroups lists the row groups to read: those r.rowGroups takes, less those the
// pruner rules out from their statistics.
func (r *fileReader) parquetRowGroups(pf *file.Reader, m *pqarrow.SchemaManifest, fields []int) []int {
	md := pf.MetaData()
	groups := make([]int, 0, md.NumRowGroups())
	for g := 0; g < md.NumRowGroups(); g++ {
		if r.rowGroups != nil && !r.rowGroups(g) {
			continue
		}
		rg := md.RowGroup(g)
		if r.pruner.skips(func(col int) (columnRange, bool) {
			j := fields[col]
			if j < 0 || !m.Fields[j].IsLeaf() {
				return columnRange{}, false
			}
			have := m.Fields[j].Field.Type
			if !readsAsIs(have, r.arrow.Field(col).Type) {
				return columnRange{}, false
			}
			cc, err := rg.ColumnChunk(m.Fields[j].ColIndex)
			if err != nil {
				return columnRange{}, false
			}
			return chunkRange(cc, rg.NumRows(), r.schema[col].Type, have)
		}) {
			r.prunedRowGroups++
			continue
		}
		groups = append(groups, g)
	}
	return groups
}

// readsAsIs reports whether a file column of Arrow type have holds the values of schema
// type want without a cast that could change their order or nullness: the same type, a
// string of another layout, or a timestamp of another unit.
func readsAsIs(have, want arrow.DataType) bool {
	if arrow.TypeEqual(have, want) {
		return true
	}
	isString := func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
			return true
		}
		return false
	}
	if isString(have) && isString(want) {
		return true
	}
	return have.ID() == arrow.TIMESTAMP && want.ID() == arrow.TIMESTAMP
}

// emitRowCounts emits the rows of the row groups without reading any column: batches with
// every schema column null (partition columns are filled by the caller).
func (r *fileReader) emitRowCounts(pf *file.Reader, groups []int, emit func(arrow.RecordBatch) error) error {
	empty := arrow.NewSchema(nil, nil)
	for _, g := range groups {
		for left := pf.MetaData().RowGroup(g).NumRows(); left > 0; left -= parquetBatchRows {
			n := min(left, parquetBatchRows)
			none := array.NewRecordBatch(empty, nil, n)
			rec, err := r.conform(none)
			none.Release()
			if err != nil {
				return err
			}
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
	return nil
}
