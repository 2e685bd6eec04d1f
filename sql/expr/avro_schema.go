package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/twmb/avro"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Avro schemas for from_avro, to_avro and schema_of_avro: a JSON schema parsed by
// github.com/twmb/avro (which also does the binary encoding), its node tree with the named types
// it defines, and the Spark type of each node as Spark's SchemaConverters gives it (toSqlType) or
// the Avro node Spark derives from a Spark type (toAvroType).

// avroSchema is a parsed Avro schema.
type avroSchema struct {
	codec *avro.Schema
	root  *avro.SchemaNode
	named map[string]*avro.SchemaNode // by full and by short name
	text  string
}

// avroParseError is the exception Apache Avro's parser raises for a schema it refuses.
func avroParseError(err error) *sparkerr.Error {
	return sparkerr.New("org.apache.avro.SchemaParseException", "", "", err.Error())
}

func parseAvroSchema(text string) (*avroSchema, error) {
	codec, err := avro.Parse(text)
	if err != nil {
		return nil, avroParseError(err)
	}
	s := &avroSchema{codec: codec, root: codec.Root(), named: map[string]*avro.SchemaNode{}, text: text}
	s.collect(s.root)
	return s, nil
}

// collect records the named types (record, enum, fixed) defined in n's tree.
func (s *avroSchema) collect(n *avro.SchemaNode) {
	switch n.Type {
	case "record", "error", "enum", "fixed":
		if n.Name != "" {
			s.named[n.Name] = n
			if i := strings.LastIndexByte(n.Name, '.'); i >= 0 {
				s.named[n.Name[i+1:]] = n
			} else if n.Namespace != "" {
				s.named[n.Namespace+"."+n.Name] = n
			}
		}
	}
	for i := range n.Fields {
		s.collect(&n.Fields[i].Type)
	}
	for i := range n.Branches {
		s.collect(&n.Branches[i])
	}
	if n.Items != nil {
		s.collect(n.Items)
	}
	if n.Values != nil {
		s.collect(n.Values)
	}
}

// resolve follows a reference to a named type to its definition.
func (s *avroSchema) resolve(n *avro.SchemaNode) *avro.SchemaNode {
	switch n.Type {
	case "null", "boolean", "int", "long", "float", "double", "bytes", "string",
		"record", "error", "enum", "fixed", "array", "map", "union":
		return n
	}
	if d, ok := s.named[n.Type]; ok {
		return d
	}
	return n
}

// nonNullBranches is a union's branches other than null.
func (s *avroSchema) nonNullBranches(n *avro.SchemaNode) []*avro.SchemaNode {
	var out []*avro.SchemaNode
	for i := range n.Branches {
		if b := s.resolve(&n.Branches[i]); b.Type != "null" {
			out = append(out, b)
		}
	}
	return out
}

// sqlType is Spark's type for an Avro node and whether it is nullable (SchemaConverters.toSqlType):
// a union with null is its other branch(es) made nullable, [int, long] is BIGINT, [float,
// double] DOUBLE, any other union a struct of member0, member1, …; enums are STRING, fixed and
// bytes BINARY (DECIMAL with the decimal logical type), date INT DATE, timestamp-millis/micros
// LONG TIMESTAMP, local-timestamp-millis/micros TIMESTAMP_NTZ.
func (s *avroSchema) sqlType(n *avro.SchemaNode, depth int) (sqltypes.DataType, bool, error) {
	if depth > 64 {
		return sqltypes.DataType{}, false, sparkerr.New("org.apache.spark.sql.avro.IncompatibleSchemaException", "", "",
			"Found recursive reference in Avro schema, which can not be processed by Spark: "+s.text)
	}
	n = s.resolve(n)
	switch n.Type {
	case "null":
		return sqltypes.NullType, true, nil
	case "boolean":
		return sqltypes.BooleanType, false, nil
	case "int":
		if n.LogicalType == "date" {
			return sqltypes.DateType, false, nil
		}
		return sqltypes.IntegerType, false, nil
	case "long":
		switch n.LogicalType {
		case "timestamp-millis", "timestamp-micros":
			return sqltypes.TimestampType, false, nil
		case "local-timestamp-millis", "local-timestamp-micros":
			return sqltypes.TimestampNTZType, false, nil
		}
		return sqltypes.LongType, false, nil
	case "float":
		return sqltypes.FloatType, false, nil
	case "double":
		return sqltypes.DoubleType, false, nil
	case "string", "enum":
		return sqltypes.StringType, false, nil
	case "bytes", "fixed":
		if n.LogicalType == "decimal" {
			return sqltypes.DecimalType(int32(n.Precision), int32(n.Scale)), false, nil
		}
		return sqltypes.BinaryType, false, nil
	case "array":
		e, null, err := s.sqlType(n.Items, depth+1)
		if err != nil {
			return sqltypes.DataType{}, false, err
		}
		return sqltypes.ArrayType(e, null), false, nil
	case "map":
		v, null, err := s.sqlType(n.Values, depth+1)
		if err != nil {
			return sqltypes.DataType{}, false, err
		}
		return sqltypes.MapType(sqltypes.StringType, v, null), false, nil
	case "record", "error":
		fields := make([]sqltypes.Field, len(n.Fields))
		for i := range n.Fields {
			ft, null, err := s.sqlType(&n.Fields[i].Type, depth+1)
			if err != nil {
				return sqltypes.DataType{}, false, err
			}
			fields[i] = sqltypes.Field{Name: n.Fields[i].Name, Type: ft, Nullable: null}
		}
		return sqltypes.StructType(fields...), false, nil
	case "union":
		rest := s.nonNullBranches(n)
		hasNull := len(rest) < len(n.Branches)
		switch {
		case len(rest) == 0:
			return sqltypes.NullType, true, nil
		case len(rest) == 1:
			t, null, err := s.sqlType(rest[0], depth+1)
			return t, null || hasNull, err
		case len(rest) == 2 && avroPair(rest, "int", "long"):
			return sqltypes.LongType, hasNull, nil
		case len(rest) == 2 && avroPair(rest, "float", "double"):
			return sqltypes.DoubleType, hasNull, nil
		}
		fields := make([]sqltypes.Field, len(rest))
		for i, b := range rest {
			ft, _, err := s.sqlType(b, depth+1)
			if err != nil {
				return sqltypes.DataType{}, false, err
			}
			fields[i] = sqltypes.Field{Name: "member" + strconv.Itoa(i), Type: ft, Nullable: true}
		}
		return sqltypes.StructType(fields...), hasNull, nil
	}
	return sqltypes.DataType{}, false, avroParseError(errUnknownAvroType(n.Type))
}

// avroPair reports whether two union branches are the primitive types a and b in either order
// (with no logical type).
func avroPair(bs []*avro.SchemaNode, a, b string) bool {
	x, y := bs[0], bs[1]
	if x.LogicalType != "" || y.LogicalType != "" {
		return false
	}
	return (x.Type == a && y.Type == b) || (x.Type == b && y.Type == a)
}

type errUnknownAvroType string

func (e errUnknownAvroType) Error() string { return "Undefined name: \"" + string(e) + "\"" }

// avroNodeFor is the Avro schema Spark derives for a Spark type (SchemaConverters.toAvroType):
// records named topLevelRecord and after their field (namespaced by their path), a nullable
// type a union [type, null], DECIMAL a fixed of the fewest bytes its precision needs.
func avroNodeFor(t sqltypes.DataType, nullable bool, name, namespace string) avro.SchemaNode {
	var n avro.SchemaNode
	switch t.Kind {
	case sqltypes.Null:
		return avro.SchemaNode{Type: "null"}
	case sqltypes.Boolean:
		n.Type = "boolean"
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer:
		n.Type = "int"
	case sqltypes.YearMonthInterval:
		n.Type = "int"
	case sqltypes.Long, sqltypes.DayTimeInterval:
		n.Type = "long"
	case sqltypes.Date:
		n = avro.SchemaNode{Type: "int", LogicalType: "date"}
	case sqltypes.Timestamp:
		n = avro.SchemaNode{Type: "long", LogicalType: "timestamp-micros"}
	case sqltypes.TimestampNTZ:
		n = avro.SchemaNode{Type: "long", LogicalType: "local-timestamp-micros"}
	case sqltypes.Float:
		n.Type = "float"
	case sqltypes.Double:
		n.Type = "double"
	case sqltypes.String:
		n.Type = "string"
	case sqltypes.Binary:
		n.Type = "bytes"
	case sqltypes.Decimal:
		n = avro.SchemaNode{Type: "fixed", Name: name + ".fixed", Namespace: namespace, Size: decimalBytes(t.Precision),
			LogicalType: "decimal", Precision: int(t.Precision), Scale: int(t.Scale)}
	case sqltypes.Array:
		e := avroNodeFor(*t.Elem, t.ElemNullable, name, namespace)
		n = avro.SchemaNode{Type: "array", Items: &e}
	case sqltypes.Map:
		v := avroNodeFor(*t.Value, t.ValueNullable, name, namespace)
		n = avro.SchemaNode{Type: "map", Values: &v}
	case sqltypes.Struct:
		child := name
		if namespace != "" {
			child = namespace + "." + name
		}
		n = avro.SchemaNode{Type: "record", Name: name, Namespace: namespace}
		for _, f := range t.Fields {
			n.Fields = append(n.Fields, avro.SchemaField{Name: f.Name, Type: avroNodeFor(f.Type, f.Nullable, f.Name, child)})
		}
	}
	if nullable {
		return avro.SchemaNode{Type: "union", Branches: []avro.SchemaNode{n, {Type: "null"}}}
	}
	return n
}

// decimalBytes is the fewest bytes holding a two's complement integer of precision digits
// (Spark's minBytesForPrecision).
func decimalBytes(precision int32) int {
	n := 1
	for math.Pow(2, float64(8*n-1)) < math.Pow(10, float64(precision)) {
		n++
	}
	return n
}
