package files

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// VARIANT columns in Parquet files, as Spark 4.2 writes and reads them: a group annotated with
// the Parquet VARIANT logical type holding binary metadata and value (Spark also shreds fields
// into typed_value columns, which a reader reassembles). Weir writes top-level VARIANT columns
// that way, unshredded; a variant nested in a struct, array or map is written as Weir's Arrow
// struct of value and metadata. Reading takes both layouts.

// parquetWriteSchema is the Arrow schema a Parquet file of schema is written with: top-level
// VARIANT columns are Arrow's variant extension type (the Parquet VARIANT logical type).
func parquetWriteSchema(schema sqltypes.Schema, tz string) *arrow.Schema {
	as := sqltypes.ToArrowSchema(schema, tz)
	if !hasTopLevelVariant(schema) {
		return as
	}
	fs := as.Fields()
	for i, f := range schema {
		if f.Type.Kind == sqltypes.Variant {
			fs[i].Type = extensions.NewDefaultVariantType()
			fs[i].Metadata = arrow.Metadata{}
		}
	}
	md := as.Metadata()
	return arrow.NewSchema(fs, &md)
}

func hasTopLevelVariant(schema sqltypes.Schema) bool {
	for _, f := range schema {
		if f.Type.Kind == sqltypes.Variant {
			return true
		}
	}
	return false
}

// toParquetVariants returns rec with its top-level VARIANT columns (Weir's struct of value and
// metadata) as Arrow variant extension arrays of out's types (the same buffers, children
// reordered to metadata, value).
func toParquetVariants(rec arrow.RecordBatch, schema sqltypes.Schema, out *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		col := rec.Column(i)
		vt, ok := out.Field(i).Type.(*extensions.VariantType)
		if !ok || schema[i].Type.Kind != sqltypes.Variant {
			col.Retain()
			cols[i] = col
			continue
		}
		d := col.Data()
		kids := d.Children() // value, metadata
		storage := array.NewData(vt.StorageType(), d.Len(), d.Buffers()[:1], []arrow.ArrayData{kids[1], kids[0]}, d.NullN(), d.Offset())
		sa := array.MakeFromData(storage)
		storage.Release()
		cols[i] = array.NewExtensionArrayWithStorage(vt, sa)
		sa.Release()
	}
	r := array.NewRecordBatch(out, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return r
}

// fromParquetVariant converts a column read as Arrow's variant extension type (shredded or not)
// to Weir's VARIANT layout, a struct of value and metadata.
func fromParquetVariant(col *extensions.VariantArray, mem memory.Allocator) (arrow.Array, error) {
	b := array.NewStructBuilder(mem, sqltypes.VariantArrow)
	defer b.Release()
	vb := b.FieldBuilder(0).(*array.BinaryBuilder)
	mb := b.FieldBuilder(1).(*array.BinaryBuilder)
	b.Reserve(col.Len())
	err := unshredVariants(col, func(value, meta []byte) {
		if value == nil {
			b.AppendNull()
			return
		}
		b.Append(true)
		vb.Append(value)
		mb.Append(meta)
	})
	if err != nil {
		return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "MALFORMED_VARIANT", "22023",
			"Variant binary is malformed. Please check the data source is valid. (%v)", err)
	}
	return b.NewArray(), nil
}
