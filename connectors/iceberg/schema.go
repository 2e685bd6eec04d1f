package iceberg

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Types between Spark and Iceberg, as Spark's Iceberg integration maps them: Iceberg has no
// 8- or 16-bit integers (TINYINT and SMALLINT columns become INT, as Spark's Iceberg catalog
// stores them) and no intervals (refused); the rest map one to one.

// TableType is the Spark type a column of type t has in an Iceberg table.
func TableType(t sqltypes.DataType) sqltypes.DataType {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short:
		return sqltypes.IntegerType
	case sqltypes.Array:
		e := TableType(*t.Elem)
		out := t
		out.Elem = &e
		return out
	case sqltypes.Map:
		k, v := TableType(*t.Key), TableType(*t.Value)
		out := t
		out.Key, out.Value = &k, &v
		return out
	case sqltypes.Struct:
		out := t
		out.Fields = TableSchema(t.Fields)
		return out
	}
	return t
}

// TableSchema is schema as an Iceberg table keeps it (TableType of each column).
func TableSchema(schema sqltypes.Schema) sqltypes.Schema {
	out := make(sqltypes.Schema, len(schema))
	for i, f := range schema {
		out[i] = f
		out[i].Type = TableType(f.Type)
	}
	return out
}

// IcebergSchema is the Iceberg schema of a Spark schema (fresh field ids).
func IcebergSchema(schema sqltypes.Schema) (*iceberg.Schema, error) {
	for _, f := range schema {
		if err := checkStorable(f.Name, f.Type); err != nil {
			return nil, err
		}
	}
	sc, err := table.ArrowSchemaToIcebergWithFreshIDs(sqltypes.ToArrowSchema(TableSchema(schema), "UTC"), false)
	if err != nil {
		return nil, sparkerr.Internal("iceberg: the schema %s: %v", schema.AsStruct().String(), err)
	}
	return sc, nil
}

func checkStorable(name string, t sqltypes.DataType) error {
	switch t.Kind {
	case sqltypes.DayTimeInterval, sqltypes.YearMonthInterval, sqltypes.Null:
		return sparkerr.Analysis("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", "0A000",
			"The Iceberg datasource doesn't support the column %s of the type %s.", sparkerr.Quote(name), t.SQL()).
			WithParams("columnName", sparkerr.Quote(name), "columnType", t.SQL(), "format", "Iceberg")
	case sqltypes.Array:
		return checkStorable(name, *t.Elem)
	case sqltypes.Map:
		if err := checkStorable(name, *t.Key); err != nil {
			return err
		}
		return checkStorable(name, *t.Value)
	case sqltypes.Struct:
		for _, f := range t.Fields {
			if err := checkStorable(name+"."+f.Name, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// SparkSchema is the Spark schema of an Iceberg schema.
func SparkSchema(sc *iceberg.Schema) (sqltypes.Schema, error) {
	as, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		return nil, sparkerr.Internal("iceberg: the schema %s: %v", sc, err)
	}
	plain := make([]arrow.Field, as.NumFields())
	for i, f := range as.Fields() {
		plain[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable}
	}
	return sqltypes.FromArrowSchema(arrow.NewSchema(plain, nil))
}

// conform casts rec's columns to want's types (Iceberg's Arrow types to Weir's: the time
// zone of timestamps, large strings, widened integers); rec is released.
func conform(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, want *arrow.Schema) (arrow.RecordBatch, error) {
	defer rec.Release()
	cols := make([]arrow.Array, want.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	ctx = compute.WithAllocator(ctx, mem)
	for i, f := range want.Fields() {
		col := rec.Column(i)
		switch {
		case arrow.TypeEqual(col.DataType(), f.Type):
			col.Retain()
			cols[i] = col
		case isTimestamp(col.DataType()) && isTimestamp(f.Type) &&
			col.DataType().(*arrow.TimestampType).Unit == f.Type.(*arrow.TimestampType).Unit:
			data := array.NewSliceData(col.Data(), 0, int64(col.Len()))
			d := array.NewData(f.Type, data.Len(), data.Buffers(), data.Children(), data.NullN(), data.Offset())
			data.Release()
			cols[i] = array.MakeFromData(d)
			d.Release()
		default:
			c, err := compute.CastArray(ctx, col, compute.SafeCastOptions(f.Type))
			if err != nil {
				return nil, sparkerr.Internal("iceberg: reading the column %s as %s: %v", f.Name, f.Type, err)
			}
			cols[i] = c
		}
	}
	return array.NewRecordBatch(want, cols, rec.NumRows()), nil
}

func isTimestamp(t arrow.DataType) bool { _, ok := t.(*arrow.TimestampType); return ok }
