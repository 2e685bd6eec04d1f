package protoconv

import (
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
)

// Literal converts a Spark Connect literal to a plan.Literal whose Value follows sqltypes' Go
// value conventions. The type is the literal's data_type when set (Spark 4.x clients), else
// the type its own fields imply (element_type, key/value_type, struct_type, decimal precision).
func Literal(l *pb.Expression_Literal) (plan.Literal, error) {
	return literalOf(l, nil)
}

// literalOf converts l; want is the type a parent (array, map, struct) dictates, or nil.
func literalOf(l *pb.Expression_Literal, want *sqltypes.DataType) (plan.Literal, error) {
	if l == nil || l.LiteralType == nil {
		return plan.Literal{}, invalidPlan("Literal is missing literal_type")
	}
	if l.GetDataType() != nil {
		t, err := DataTypeFromProto(l.GetDataType())
		if err != nil {
			return plan.Literal{}, err
		}
		want = &t
	}
	switch v := l.LiteralType.(type) {
	case *pb.Expression_Literal_Null:
		if want != nil {
			return plan.Literal{Value: nil, Type: *want}, nil
		}
		if v.Null == nil || v.Null.Kind == nil {
			return plan.Literal{Value: nil, Type: sqltypes.NullType}, nil
		}
		t, err := DataTypeFromProto(v.Null)
		return plan.Literal{Value: nil, Type: t}, err
	case *pb.Expression_Literal_Binary:
		return typed(v.Binary, sqltypes.BinaryType, want)
	case *pb.Expression_Literal_Boolean:
		return typed(v.Boolean, sqltypes.BooleanType, want)
	case *pb.Expression_Literal_Byte:
		return typed(int8(v.Byte), sqltypes.ByteType, want)
	case *pb.Expression_Literal_Short:
		return typed(int16(v.Short), sqltypes.ShortType, want)
	case *pb.Expression_Literal_Integer:
		return typed(v.Integer, sqltypes.IntegerType, want)
	case *pb.Expression_Literal_Long:
		return typed(v.Long, sqltypes.LongType, want)
	case *pb.Expression_Literal_Float:
		return typed(v.Float, sqltypes.FloatType, want)
	case *pb.Expression_Literal_Double:
		return typed(v.Double, sqltypes.DoubleType, want)
	case *pb.Expression_Literal_String_:
		return typed(v.String_, sqltypes.StringType, want)
	case *pb.Expression_Literal_Date:
		return typed(v.Date, sqltypes.DateType, want)
	case *pb.Expression_Literal_Timestamp:
		return typed(v.Timestamp, sqltypes.TimestampType, want)
	case *pb.Expression_Literal_TimestampNtz:
		return typed(v.TimestampNtz, sqltypes.TimestampNTZType, want)
	case *pb.Expression_Literal_Time_:
		t, err := timeType(v.Time != nil && v.Time.Precision != nil, v.Time.GetPrecision())
		if err != nil {
			return plan.Literal{}, err
		}
		return typed(v.Time.GetNano(), t, want)
	case *pb.Expression_Literal_YearMonthInterval:
		return typed(v.YearMonthInterval, sqltypes.YearMonthIntervalType(intervalYear, intervalMonth), want)
	case *pb.Expression_Literal_DayTimeInterval:
		return typed(v.DayTimeInterval, sqltypes.DayTimeIntervalType(intervalDay, intervalSecond), want)
	case *pb.Expression_Literal_Decimal_:
		return decimalLiteral(v.Decimal, want)
	case *pb.Expression_Literal_Array_:
		return arrayLiteral(v.Array, want)
	case *pb.Expression_Literal_Map_:
		return mapLiteral(v.Map, want)
	case *pb.Expression_Literal_Struct_:
		return structLiteral(v.Struct, want)
	case *pb.Expression_Literal_SpecializedArray_:
		return specializedArrayLiteral(v.SpecializedArray, want)
	case *pb.Expression_Literal_CalendarInterval_:
		c := v.CalendarInterval
		return typed(sqltypes.CalendarIntervalValue{Months: c.GetMonths(), Days: c.GetDays(), Micros: c.GetMicroseconds()},
			sqltypes.CalendarIntervalType, want)
	}
	return plan.Literal{}, sparkerr.Unsupported("literal type %s is not supported", oneofCase(l, "literal_type"))
}

// typed pairs a value with its natural type, checking it against the type a parent or the
// literal's data_type dictates (which may refine interval fields).
func typed(v any, natural sqltypes.DataType, want *sqltypes.DataType) (plan.Literal, error) {
	if want == nil {
		return plan.Literal{Value: v, Type: natural}, nil
	}
	if want.Kind != natural.Kind {
		return plan.Literal{}, invalidPlan("literal of type %s does not match its data type %s", natural, want)
	}
	return plan.Literal{Value: v, Type: *want}, nil
}

func elementsOf(lits []*pb.Expression_Literal, t *sqltypes.DataType) ([]any, error) {
	out := make([]any, len(lits))
	for i, e := range lits {
		lit, err := literalOf(e, t)
		if err != nil {
			return nil, err
		}
		out[i] = lit.Value
	}
	return out, nil
}

// typeFromElements picks a collection's element type: the declared one, else the type of the
// first element.
func typeFromElements(declared *pb.DataType, first *pb.Expression_Literal, what string) (sqltypes.DataType, error) {
	if declared != nil {
		return DataTypeFromProto(declared)
	}
	if first == nil {
		return sqltypes.DataType{}, invalidPlan("%s literal is missing its %s type", what, what)
	}
	lit, err := literalOf(first, nil)
	return lit.Type, err
}

func containsNull(lits []*pb.Expression_Literal) bool {
	for _, l := range lits {
		if _, ok := l.GetLiteralType().(*pb.Expression_Literal_Null); ok {
			return true
		}
	}
	return false
}

func firstOf(lits []*pb.Expression_Literal) *pb.Expression_Literal {
	if len(lits) == 0 {
		return nil
	}
	return lits[0]
}

func arrayLiteral(a *pb.Expression_Literal_Array, want *sqltypes.DataType) (plan.Literal, error) {
	var t sqltypes.DataType
	switch {
	case want != nil:
		if want.Kind != sqltypes.Array || want.Elem == nil {
			return plan.Literal{}, invalidPlan("array literal does not match its data type %s", want)
		}
		t = *want
	default:
		elem, err := typeFromElements(a.GetElementType(), firstOf(a.GetElements()), "array element")
		if err != nil {
			return plan.Literal{}, err
		}
		// Spark's ArrayType(elementType) defaults containsNull to true.
		t = sqltypes.ArrayType(elem, true)
	}
	vals, err := elementsOf(a.GetElements(), t.Elem)
	if err != nil {
		return plan.Literal{}, err
	}
	if !t.ElemNullable && containsNull(a.GetElements()) {
		return plan.Literal{}, invalidPlan("array literal of type %s contains null", t)
	}
	return plan.Literal{Value: vals, Type: t}, nil
}

func mapLiteral(m *pb.Expression_Literal_Map, want *sqltypes.DataType) (plan.Literal, error) {
	if len(m.GetKeys()) != len(m.GetValues()) {
		return plan.Literal{}, invalidPlan("map literal has %d keys but %d values", len(m.GetKeys()), len(m.GetValues()))
	}
	var t sqltypes.DataType
	switch {
	case want != nil:
		if want.Kind != sqltypes.Map || want.Key == nil || want.Value == nil {
			return plan.Literal{}, invalidPlan("map literal does not match its data type %s", want)
		}
		t = *want
	default:
		kt, err := typeFromElements(m.GetKeyType(), firstOf(m.GetKeys()), "map key")
		if err != nil {
			return plan.Literal{}, err
		}
		vt, err := typeFromElements(m.GetValueType(), firstOf(m.GetValues()), "map value")
		if err != nil {
			return plan.Literal{}, err
		}
		t = sqltypes.MapType(kt, vt, true)
	}
	if containsNull(m.GetKeys()) {
		return plan.Literal{}, invalidPlan("map literal has a null key")
	}
	keys, err := elementsOf(m.GetKeys(), t.Key)
	if err != nil {
		return plan.Literal{}, err
	}
	vals, err := elementsOf(m.GetValues(), t.Value)
	if err != nil {
		return plan.Literal{}, err
	}
	return plan.Literal{Value: &sqltypes.MapValue{Keys: keys, Values: vals}, Type: t}, nil
}

func structLiteral(s *pb.Expression_Literal_Struct, want *sqltypes.DataType) (plan.Literal, error) {
	var t sqltypes.DataType
	switch {
	case want != nil:
		t = *want
	case s.GetStructType() != nil:
		var err error
		if t, err = DataTypeFromProto(s.GetStructType()); err != nil {
			return plan.Literal{}, err
		}
	default:
		return plan.Literal{}, invalidPlan("struct literal is missing struct_type")
	}
	if t.Kind != sqltypes.Struct {
		return plan.Literal{}, invalidPlan("struct literal does not match its data type %s", t)
	}
	if len(t.Fields) != len(s.GetElements()) {
		return plan.Literal{}, invalidPlan("struct literal has %d elements but its type %s has %d fields",
			len(s.GetElements()), t, len(t.Fields))
	}
	vals := make([]any, len(t.Fields))
	for i, e := range s.GetElements() {
		lit, err := literalOf(e, &t.Fields[i].Type)
		if err != nil {
			return plan.Literal{}, err
		}
		vals[i] = lit.Value
	}
	return plan.Literal{Value: vals, Type: t}, nil
}

func specializedArrayLiteral(a *pb.Expression_Literal_SpecializedArray, want *sqltypes.DataType) (plan.Literal, error) {
	var vals []any
	var elem sqltypes.DataType
	switch v := a.GetValueType().(type) {
	case *pb.Expression_Literal_SpecializedArray_Bools:
		vals, elem = anySlice(v.Bools.GetValues()), sqltypes.BooleanType
	case *pb.Expression_Literal_SpecializedArray_Ints:
		vals, elem = anySlice(v.Ints.GetValues()), sqltypes.IntegerType
	case *pb.Expression_Literal_SpecializedArray_Longs:
		vals, elem = anySlice(v.Longs.GetValues()), sqltypes.LongType
	case *pb.Expression_Literal_SpecializedArray_Floats:
		vals, elem = anySlice(v.Floats.GetValues()), sqltypes.FloatType
	case *pb.Expression_Literal_SpecializedArray_Doubles:
		vals, elem = anySlice(v.Doubles.GetValues()), sqltypes.DoubleType
	case *pb.Expression_Literal_SpecializedArray_Strings:
		vals, elem = anySlice(v.Strings.GetValues()), sqltypes.StringType
	default:
		return plan.Literal{}, invalidPlan("specialized array literal is missing value_type")
	}
	t := sqltypes.ArrayType(elem, false)
	if want != nil {
		if want.Kind != sqltypes.Array || want.Elem == nil || want.Elem.Kind != elem.Kind {
			return plan.Literal{}, invalidPlan("specialized array of %s does not match its data type %s", elem, want)
		}
		t = *want
	}
	return plan.Literal{Value: vals, Type: t}, nil
}

func anySlice[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
