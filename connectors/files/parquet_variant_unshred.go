package files

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/weirhq/weir/sql/types/variant"
)

// Reassembling shredded variants (the Parquet variant shredding spec, as Spark 4.2 writes it):
// a shredded column holds, next to the binary metadata, a binary value and a typed_value whose
// type follows the values' shape: a struct of per-field groups {value, typed_value} for objects,
// a list of element groups for arrays, a primitive column for scalars. A row's variant is its
// typed_value when set (an object's residual fields in value merged in), else its value. Arrow's
// own UnshredVariant fails on element groups without typed_value, which Spark writes for
// arrays of mixed types.

// unshredRow rebuilds row i of the shredded group (value, typed) into b; false when both are
// missing (an absent object field).
func unshredRow(b *variant.Builder, meta []byte, value, typed arrow.Array, i int) (bool, error) {
	if typed != nil && typed.IsValid(i) {
		switch t := typed.(type) {
		case *array.Struct:
			return true, unshredObject(b, meta, value, t, i)
		case array.ListLike:
			start := b.Pos()
			from, to := t.ValueOffsets(i)
			elems, ok := t.ListValues().(*array.Struct)
			if !ok {
				return false, fmt.Errorf("shredded array elements are %s, not groups", t.ListValues().DataType())
			}
			ev, et := shreddedParts(elems)
			offs := make([]int, 0, to-from)
			for j := from; j < to; j++ {
				offs = append(offs, b.Pos()-start)
				ok, err := unshredRow(b, meta, ev, et, int(j))
				if err != nil {
					return false, err
				}
				if !ok {
					b.AppendNull()
				}
			}
			b.FinishArray(start, offs)
			return true, nil
		}
		return true, appendTypedScalar(b, typed, i)
	}
	if value != nil && value.IsValid(i) {
		b.AppendValue(variant.Value{Buf: binaryAt(value, i), Meta: meta})
		return true, nil
	}
	return false, nil
}

// unshredObject rebuilds a shredded object: its shredded fields, then the residual fields the
// value column holds (an object of the fields not shredded).
func unshredObject(b *variant.Builder, meta []byte, value arrow.Array, typed *array.Struct, i int) error {
	start := b.Pos()
	st := typed.DataType().(*arrow.StructType)
	var fields []variant.FieldEntry
	for f := 0; f < typed.NumField(); f++ {
		group, ok := typed.Field(f).(*array.Struct)
		if !ok {
			return fmt.Errorf("shredded field %q is %s, not a group", st.Field(f).Name, typed.Field(f).DataType())
		}
		fv, ft := shreddedParts(group)
		key := st.Field(f).Name
		pos := b.Pos()
		present, err := unshredRow(b, meta, fv, ft, i)
		if err != nil {
			return err
		}
		if present {
			fields = append(fields, variant.FieldEntry{Key: key, ID: b.AddKey(key), Offset: pos - start})
		}
	}
	if value != nil && value.IsValid(i) {
		rest := variant.Value{Buf: binaryAt(value, i), Meta: meta}
		if rest.Type() != variant.Object {
			return fmt.Errorf("the residual value of a shredded object is not an object")
		}
		for k := 0; k < rest.Len(); k++ {
			key, fv := rest.Field(k)
			fields = append(fields, variant.FieldEntry{Key: key, ID: b.AddKey(key), Offset: b.Pos() - start})
			b.AppendValue(fv)
		}
	}
	b.FinishObject(start, fields)
	return b.Err()
}

// shreddedParts are a shredded group's value and typed_value columns (nil when absent).
func shreddedParts(group *array.Struct) (value, typed arrow.Array) {
	st := group.DataType().(*arrow.StructType)
	for f := 0; f < st.NumFields(); f++ {
		switch st.Field(f).Name {
		case "value":
			value = group.Field(f)
		case "typed_value":
			typed = group.Field(f)
		}
	}
	return value, typed
}

// appendTypedScalar writes row i of a shredded primitive column.
func appendTypedScalar(b *variant.Builder, col arrow.Array, i int) error {
	switch c := col.(type) {
	case *array.Boolean:
		b.AppendBool(c.Value(i))
	case *array.Int8:
		b.AppendLong(int64(c.Value(i)))
	case *array.Int16:
		b.AppendLong(int64(c.Value(i)))
	case *array.Int32:
		b.AppendLong(int64(c.Value(i)))
	case *array.Int64:
		b.AppendLong(c.Value(i))
	case *array.Float32:
		b.AppendFloat(c.Value(i))
	case *array.Float64:
		b.AppendDouble(c.Value(i))
	case *array.Decimal128:
		b.AppendDecimal(c.Value(i).BigInt(), int(c.DataType().(*arrow.Decimal128Type).Scale))
	case *array.Decimal64:
		b.AppendDecimal(big.NewInt(int64(c.Value(i))), int(c.DataType().(*arrow.Decimal64Type).Scale))
	case *array.Decimal32:
		b.AppendDecimal(big.NewInt(int64(c.Value(i))), int(c.DataType().(*arrow.Decimal32Type).Scale))
	case *array.Date32:
		b.AppendDate(int32(c.Value(i)))
	case *array.Timestamp:
		t := c.DataType().(*arrow.TimestampType)
		micros := int64(c.Value(i))
		switch t.Unit {
		case arrow.Nanosecond:
			micros /= 1000
		case arrow.Millisecond:
			micros *= 1000
		case arrow.Second:
			micros *= 1_000_000
		}
		if t.TimeZone == "" {
			b.AppendTimestampNTZ(micros)
		} else {
			b.AppendTimestamp(micros)
		}
	case *array.String:
		b.AppendString(c.Value(i))
	case *array.LargeString:
		b.AppendString(c.Value(i))
	case *array.Binary:
		b.AppendBinary(c.Value(i))
	case *array.LargeBinary:
		b.AppendBinary(c.Value(i))
	default:
		return fmt.Errorf("unsupported shredded type %s", col.DataType())
	}
	return nil
}

// unshredVariants turns a variant extension column (shredded or not) into value and metadata
// buffers per row (nil for a SQL NULL row).
func unshredVariants(col *extensions.VariantArray, emit func(value, meta []byte)) error {
	storage := col.Storage().(*array.Struct)
	st := storage.DataType().(*arrow.StructType)
	var meta arrow.Array
	for f := 0; f < st.NumFields(); f++ {
		if st.Field(f).Name == "metadata" {
			meta = storage.Field(f)
		}
	}
	if meta == nil {
		return fmt.Errorf("a variant column without metadata")
	}
	value, typed := shreddedParts(storage)
	for i := 0; i < col.Len(); i++ {
		if storage.IsNull(i) {
			emit(nil, nil)
			continue
		}
		m := binaryAt(meta, i)
		if typed == nil {
			emit(binaryAt(value, i), m)
			continue
		}
		var b variant.Builder
		ok, err := unshredRow(&b, m, value, typed, i)
		if err != nil {
			return err
		}
		if !ok {
			b.AppendNull()
		}
		v, newMeta, err := b.Result()
		if err != nil {
			return err
		}
		emit(v, newMeta)
	}
	return nil
}

// binaryAt is row i of a binary column of any layout.
func binaryAt(col arrow.Array, i int) []byte {
	switch c := col.(type) {
	case *array.Binary:
		return c.Value(i)
	case *array.LargeBinary:
		return c.Value(i)
	case *array.BinaryView:
		return c.Value(i)
	case *array.Dictionary:
		return binaryAt(c.Dictionary(), c.GetValueIndex(i))
	}
	return nil
}
