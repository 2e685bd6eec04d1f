package expr

import (
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Spark's implicit type coercion: widening, decimal precision, string promotion.

// numericRank orders the non-decimal numeric kinds for widening.
func numericRank(k sqltypes.Kind) int {
	switch k {
	case sqltypes.Byte:
		return 1
	case sqltypes.Short:
		return 2
	case sqltypes.Integer:
		return 3
	case sqltypes.Long:
		return 4
	case sqltypes.Float:
		return 6
	case sqltypes.Double:
		return 7
	}
	return 0
}

// decimalForIntegral is the decimal type exactly holding an integral kind.
func decimalForIntegral(t sqltypes.DataType) sqltypes.DataType {
	switch t.Kind {
	case sqltypes.Byte:
		return sqltypes.DecimalType(3, 0)
	case sqltypes.Short:
		return sqltypes.DecimalType(5, 0)
	case sqltypes.Integer:
		return sqltypes.DecimalType(10, 0)
	case sqltypes.Long:
		return sqltypes.DecimalType(20, 0)
	}
	return t
}

// boundedDecimal caps precision and scale at 38.
func boundedDecimal(p, s int32) sqltypes.DataType {
	if p > 38 {
		p = 38
	}
	if s > p {
		s = p
	}
	return sqltypes.DecimalType(p, s)
}

// widerDecimal is Spark's DecimalPrecision.widerDecimalType.
func widerDecimal(a, b sqltypes.DataType) sqltypes.DataType {
	s := max(a.Scale, b.Scale)
	r := max(a.Precision-a.Scale, b.Precision-b.Scale)
	return boundedDecimal(r+s, s)
}

// adjustPrecisionScale is DecimalType.adjustPrecisionScale (allowPrecisionLoss = true).
func adjustPrecisionScale(p, s int32) sqltypes.DataType {
	if p <= 38 {
		return sqltypes.DecimalType(p, s)
	}
	if s < 0 {
		return sqltypes.DecimalType(38, s)
	}
	intDigits := p - s
	minScale := min(s, 6)
	return sqltypes.DecimalType(38, max(38-intDigits, minScale))
}

// widerNumeric is the common type of two numeric types.
func widerNumeric(a, b sqltypes.DataType) sqltypes.DataType {
	if a.Kind == sqltypes.Decimal || b.Kind == sqltypes.Decimal {
		if a.IsFractional() || b.IsFractional() {
			return sqltypes.DoubleType
		}
		return widerDecimal(decimalForIntegral(a), decimalForIntegral(b))
	}
	if numericRank(a.Kind) >= numericRank(b.Kind) {
		return a
	}
	return b
}

func isDatetime(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.Date || t.Kind == sqltypes.Timestamp || t.Kind == sqltypes.TimestampNTZ
}

func isAtomic(t sqltypes.DataType) bool {
	switch t.Kind {
	case sqltypes.Array, sqltypes.Map, sqltypes.Struct:
		return false
	}
	return true
}

// CommonType is the type two inputs widen to for union, CASE, coalesce, IN and comparison
// (Spark's findWiderTypeForTwo), and false when there is none.
func CommonType(a, b sqltypes.DataType) (sqltypes.DataType, bool) {
	if a.Kind == sqltypes.String && b.Kind == sqltypes.String && a.StringCollation != b.StringCollation {
		// Strings of two collations have none (Spark's INCOMPATIBLE_COLUMN_TYPE in a union);
		// a call's arguments settle theirs before binding (coerceCollations).
		return sqltypes.DataType{}, false
	}
	if a.EqualIgnoreNullable(b) {
		if a.Equal(b) {
			return a, true
		}
		return mergeNullability(a, b), true
	}
	switch {
	case a.Kind == sqltypes.Null:
		return b, true
	case b.Kind == sqltypes.Null:
		return a, true
	case isSpatial(a) && a.Kind == b.Kind:
		// Spatial types of different SRIDs widen to the ANY type of their kind.
		return sqltypes.DataType{Kind: a.Kind, SRID: sqltypes.MixedSRID}, true
	case a.IsNumeric() && b.IsNumeric():
		return widerNumeric(a, b), true
	case isDatetime(a) && isDatetime(b):
		if a.Kind == sqltypes.Timestamp || b.Kind == sqltypes.Timestamp {
			return sqltypes.TimestampType, true
		}
		return sqltypes.TimestampNTZType, true
	case a.Kind == sqltypes.String && isAtomic(b) && b.Kind != sqltypes.Binary:
		return sqltypes.DataType{Kind: sqltypes.String, StringCollation: a.StringCollation}, true
	case b.Kind == sqltypes.String && isAtomic(a) && a.Kind != sqltypes.Binary:
		return sqltypes.DataType{Kind: sqltypes.String, StringCollation: b.StringCollation}, true
	case a.Kind == sqltypes.Array && b.Kind == sqltypes.Array:
		e, ok := CommonType(*a.Elem, *b.Elem)
		if !ok {
			return sqltypes.DataType{}, false
		}
		return sqltypes.ArrayType(e, a.ElemNullable || b.ElemNullable), true
	case a.Kind == sqltypes.Map && b.Kind == sqltypes.Map:
		k, ok1 := CommonType(*a.Key, *b.Key)
		v, ok2 := CommonType(*a.Value, *b.Value)
		if !ok1 || !ok2 {
			return sqltypes.DataType{}, false
		}
		return sqltypes.MapType(k, v, a.ValueNullable || b.ValueNullable), true
	case a.Kind == sqltypes.Struct && b.Kind == sqltypes.Struct && len(a.Fields) == len(b.Fields):
		fs := make([]sqltypes.Field, len(a.Fields))
		for i := range fs {
			t, ok := CommonType(a.Fields[i].Type, b.Fields[i].Type)
			if !ok {
				return sqltypes.DataType{}, false
			}
			fs[i] = sqltypes.Field{Name: a.Fields[i].Name, Type: t, Nullable: a.Fields[i].Nullable || b.Fields[i].Nullable}
		}
		return sqltypes.StructType(fs...), true
	}
	return sqltypes.DataType{}, false
}

// mergeNullability returns a with nested nullability flags or-ed with b's.
func mergeNullability(a, b sqltypes.DataType) sqltypes.DataType {
	switch a.Kind {
	case sqltypes.Array:
		e := mergeNullability(*a.Elem, *b.Elem)
		return sqltypes.ArrayType(e, a.ElemNullable || b.ElemNullable)
	case sqltypes.Map:
		return sqltypes.MapType(mergeNullability(*a.Key, *b.Key), mergeNullability(*a.Value, *b.Value), a.ValueNullable || b.ValueNullable)
	case sqltypes.Struct:
		fs := make([]sqltypes.Field, len(a.Fields))
		for i := range fs {
			fs[i] = a.Fields[i]
			fs[i].Type = mergeNullability(a.Fields[i].Type, b.Fields[i].Type)
			fs[i].Nullable = a.Fields[i].Nullable || b.Fields[i].Nullable
		}
		return sqltypes.StructType(fs...)
	}
	return a
}

// stringPromotion is the type a string operand is cast to when compared with, or combined in
// arithmetic with, a value of type other (Spark 4's AnsiTypeCoercion string promotion).
func stringPromotion(other sqltypes.DataType) sqltypes.DataType {
	switch {
	case other.IsIntegral():
		return sqltypes.LongType
	case other.Kind == sqltypes.Decimal:
		return sqltypes.DoubleType
	}
	return other
}

// comparisonType is the type both sides of a comparison are cast to.
func comparisonType(a, b sqltypes.DataType) (sqltypes.DataType, bool) {
	switch {
	case a.Kind == sqltypes.String && b.Kind != sqltypes.String && b.Kind != sqltypes.Null && isAtomic(b):
		p := stringPromotion(b)
		if b.IsNumeric() && p.Kind != b.Kind {
			return widerNumeric(p, b), true
		}
		return p, true
	case b.Kind == sqltypes.String && a.Kind != sqltypes.String && a.Kind != sqltypes.Null && isAtomic(a):
		return comparisonType(b, a)
	case a.Kind == sqltypes.Date && b.Kind == sqltypes.Timestamp, a.Kind == sqltypes.Timestamp && b.Kind == sqltypes.Date:
		return sqltypes.TimestampType, true
	}
	return CommonType(a, b)
}

// implicitCast wraps e in an invisible cast to t (rendered as e itself), or returns e when it
// already has type t.
func implicitCast(e Expr, t sqltypes.DataType, opts Options) (Expr, error) {
	if e.Type().Equal(t) || (e.Type().EqualIgnoreNullable(t) && t.Kind != sqltypes.Decimal) {
		return e, nil
	}
	if l, ok := e.(*Literal); ok && l.Value == nil {
		return &Literal{T: t}, nil
	}
	c, err := newCast(e, t, castModeFor(opts), opts)
	if err != nil {
		return nil, err
	}
	c.implicit = true
	return c, nil
}

// castAll casts every expression to t.
func castAll(es []Expr, t sqltypes.DataType, opts Options) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		c, err := implicitCast(e, t, opts)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// commonTypeOf folds CommonType over exprs.
func commonTypeOf(es []Expr) (sqltypes.DataType, bool) {
	t := sqltypes.NullType
	for _, e := range es {
		var ok bool
		t, ok = CommonType(t, e.Type())
		if !ok {
			return t, false
		}
	}
	return t, true
}
