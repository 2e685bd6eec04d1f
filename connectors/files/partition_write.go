package files

import (
	"context"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// partitionColumns resolves partitionBy's names against the schema (case-insensitively, as
// Spark's default resolver): an unknown column, a repeated one, or all columns are Spark's
// AnalysisExceptions.
func partitionColumns(schema sqltypes.Schema, names []string) ([]int, error) {
	var out []int
	for _, n := range names {
		idx := -1
		for i, c := range schema {
			if strings.EqualFold(c.Name, n) {
				idx = i
				break
			}
		}
		if idx < 0 {
			cols := make([]string, len(schema))
			for i, c := range schema {
				cols[i] = c.Name
			}
			return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1126", "",
				"Partition column `"+n+"` not found in schema "+schema.AsStruct().String()).
				WithParams("col", n, "schemaCatalog", schema.AsStruct().String())
		}
		for _, seen := range out {
			if seen == idx {
				return nil, sparkerr.Analysis("COLUMN_ALREADY_EXISTS", "42711",
					"The column %s already exists. Choose another name or rename the existing column.",
					sparkerr.Quote(strings.ToLower(n))).WithParams("columnName", sparkerr.Quote(strings.ToLower(n)))
			}
		}
		if k := schema[idx].Type.Kind; k == sqltypes.Array || k == sqltypes.Map || k == sqltypes.Struct {
			return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1153", "",
				"Cannot use "+schema[idx].Type.SQL()+" for partition column").WithParams("field", schema[idx].Type.SQL())
		}
		out = append(out, idx)
	}
	if len(out) > 0 && len(out) == len(schema) {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1129", "",
			"Cannot use all columns for partition columns")
	}
	return out, nil
}

// partitionRows groups rec's rows by their partition directory ("k=1/j=a"), directories in
// order of first appearance.
func (s *fileSink) partitionRows(rec arrow.RecordBatch) (map[string][]int64, []string) {
	loc, err := expr.LoadZone(s.env.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	groups := map[string][]int64{}
	var order []string
	var b strings.Builder
	for r := 0; r < int(rec.NumRows()); r++ {
		b.Reset()
		for n, c := range s.parts {
			if n > 0 {
				b.WriteByte('/')
			}
			t := s.env.Schema[c].Type
			v := expr.ValueAt(rec.Column(c), r, t)
			text := ""
			if v != nil {
				text = partitionText(v, t, loc)
			}
			b.WriteString(PartitionDir(s.env.Schema[c].Name, text, v == nil))
		}
		key := b.String()
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], int64(r))
	}
	return groups, order
}

// partitionText is a partition value as Spark casts it to string for a directory name.
func partitionText(v any, t sqltypes.DataType, loc *time.Location) string {
	switch t.Kind {
	case sqltypes.Timestamp:
		return strings.TrimSuffix(strings.TrimRight(time.UnixMicro(v.(int64)).In(loc).Format("2006-01-02 15:04:05.000000"), "0"), ".")
	case sqltypes.TimestampNTZ:
		return strings.TrimSuffix(strings.TrimRight(time.UnixMicro(v.(int64)).UTC().Format("2006-01-02 15:04:05.000000"), "0"), ".")
	case sqltypes.Binary:
		return string(v.([]byte))
	}
	return scalarText(v, t, loc)
}

// dataRows is rec's rows at rows, with the files' columns only.
func (s *fileSink) dataRows(mem memory.Allocator, rec arrow.RecordBatch, rows []int64) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(rows, nil)
	idx := ib.NewArray()
	ib.Release()
	defer idx.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	cols := make([]arrow.Array, 0, len(s.dataCols))
	fields := make([]arrow.Field, 0, len(s.dataCols))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for _, c := range s.dataCols {
		col, err := compute.TakeArray(ctx, rec.Column(c), idx)
		if err != nil {
			release()
			return nil, sparkerr.Internal("split rows by partition: %v", err)
		}
		cols = append(cols, col)
		fields = append(fields, rec.Schema().Field(c))
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	release()
	return out, nil
}
