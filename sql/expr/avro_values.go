package expr

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/twmb/avro"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Spark values to and from the Go values github.com/twmb/avro encodes and decodes under an Avro
// schema (records as map[string]any, unions as the value of their branch, decimals as *big.Rat,
// logical dates and timestamps as time.Time when decoded), with the pairs of Spark and Avro types
// Spark's AvroSerializer and AvroDeserializer accept.

const incompatibleAvro = "org.apache.spark.sql.avro.IncompatibleSchemaException"

// single is the one non-null branch of a nullable union (or n itself when it is not a union);
// ok is false for a union of more than one non-null branch.
func (s *avroSchema) single(n *avro.SchemaNode) (*avro.SchemaNode, bool) {
	n = s.resolve(n)
	if n.Type != "union" {
		return n, true
	}
	rest := s.nonNullBranches(n)
	if len(rest) != 1 {
		return n, false
	}
	return rest[0], true
}

// writable reports whether values of Spark type t can be written as Avro node n.
func (s *avroSchema) writable(t sqltypes.DataType, n *avro.SchemaNode, depth int) bool {
	if depth > 64 {
		return false
	}
	n, ok := s.single(n)
	if !ok {
		return false
	}
	switch t.Kind {
	case sqltypes.Null:
		return n.Type == "null"
	case sqltypes.Boolean:
		return n.Type == "boolean"
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.YearMonthInterval:
		return n.Type == "int"
	case sqltypes.Long, sqltypes.DayTimeInterval:
		return n.Type == "long"
	case sqltypes.Date:
		return n.Type == "int"
	case sqltypes.Timestamp:
		return n.Type == "long" && !strings.HasPrefix(n.LogicalType, "local-")
	case sqltypes.TimestampNTZ:
		return n.Type == "long" && (n.LogicalType == "local-timestamp-millis" || n.LogicalType == "local-timestamp-micros")
	case sqltypes.Float:
		return n.Type == "float"
	case sqltypes.Double:
		return n.Type == "double"
	case sqltypes.String:
		return n.Type == "string" || n.Type == "enum"
	case sqltypes.Binary:
		return (n.Type == "bytes" || n.Type == "fixed") && n.LogicalType != "decimal"
	case sqltypes.Decimal:
		return (n.Type == "bytes" || n.Type == "fixed") && n.LogicalType == "decimal" &&
			int32(n.Precision) == t.Precision && int32(n.Scale) == t.Scale
	case sqltypes.Array:
		return n.Type == "array" && s.writable(*t.Elem, n.Items, depth+1)
	case sqltypes.Map:
		return n.Type == "map" && t.Key.Kind == sqltypes.String && s.writable(*t.Value, n.Values, depth+1)
	case sqltypes.Struct:
		if (n.Type != "record" && n.Type != "error") || len(n.Fields) != len(t.Fields) {
			return false
		}
		for i := range n.Fields {
			j := structFieldIndex(t, n.Fields[i].Name)
			if j < 0 || !s.writable(t.Fields[j].Type, &n.Fields[i].Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// structFieldIndex is the index of the field of t named name, compared case-insensitively as
// Spark's default resolution does; -1 if none.
func structFieldIndex(t sqltypes.DataType, name string) int {
	for i, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// toAvroValue converts a Spark value of type t (checked writable as n) to the Go value the
// library encodes as n.
func (s *avroSchema) toAvroValue(v any, t sqltypes.DataType, n *avro.SchemaNode) (any, error) {
	if v == nil {
		return nil, nil
	}
	n, _ = s.single(n)
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return int32(toInt64(v)), nil
	case sqltypes.Long, sqltypes.DayTimeInterval:
		return toInt64(v), nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		us := v.(int64)
		if strings.HasSuffix(n.LogicalType, "-millis") {
			return floorDiv(us, 1000), nil
		}
		return us, nil
	case sqltypes.String:
		str := v.(string)
		if n.Type == "enum" && !containsString(n.Symbols, str) {
			return nil, sparkerr.New(incompatibleAvro, "", "", fmt.Sprintf(
				"Cannot convert SQL top-level record to Avro top-level record because %q cannot be written since it's not defined in enum %s",
				str, quoteSymbols(n.Symbols)))
		}
		return str, nil
	case sqltypes.Binary:
		b := v.([]byte)
		if n.Type == "fixed" && len(b) != n.Size {
			return nil, sparkerr.New(incompatibleAvro, "", "", fmt.Sprintf(
				"Cannot convert SQL top-level record to Avro top-level record because %d bytes of binary data cannot be written into FIXED type with size of %d bytes",
				len(b), n.Size))
		}
		return b, nil
	case sqltypes.Decimal:
		num := v.(decimal128.Num).BigInt()
		return new(big.Rat).SetFrac(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)), nil
	case sqltypes.Array:
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			c, err := s.toAvroValue(e, *t.Elem, n.Items)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		out := make(map[string]any, len(m.Keys))
		for i, k := range m.Keys {
			c, err := s.toAvroValue(m.Values[i], *t.Value, n.Values)
			if err != nil {
				return nil, err
			}
			out[k.(string)] = c
		}
		return out, nil
	case sqltypes.Struct:
		vals := v.([]any)
		out := make(map[string]any, len(n.Fields))
		for i := range n.Fields {
			j := structFieldIndex(t, n.Fields[i].Name)
			c, err := s.toAvroValue(vals[j], t.Fields[j].Type, &n.Fields[i].Type)
			if err != nil {
				return nil, err
			}
			out[n.Fields[i].Name] = c
		}
		return out, nil
	}
	return v, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteSymbols(syms []string) string {
	q := make([]string, len(syms))
	for i, x := range syms {
		q[i] = `"` + x + `"`
	}
	return strings.Join(q, ", ")
}

// fromAvroValue converts a decoded Go value of Avro node n to a Spark value of type t (n's
// sqlType).
func (s *avroSchema) fromAvroValue(g any, n *avro.SchemaNode, t sqltypes.DataType) (any, error) {
	if g == nil {
		return nil, nil
	}
	n = s.resolve(n)
	if n.Type == "union" {
		rest := s.nonNullBranches(n)
		if len(rest) == 1 {
			return s.fromAvroValue(g, rest[0], t)
		}
		if t.Kind != sqltypes.Struct {
			// [int, long] read as BIGINT, [float, double] as DOUBLE.
			if t.Kind == sqltypes.Long {
				return toInt64(g), nil
			}
			return toFloat64(g), nil
		}
		out := make([]any, len(rest))
		for i, b := range rest {
			if avroBranchHolds(b, g) {
				v, err := s.fromAvroValue(g, b, t.Fields[i].Type)
				if err != nil {
					return nil, err
				}
				out[i] = v
				return out, nil
			}
		}
		return nil, fmt.Errorf("avro: no union branch for %T", g)
	}
	switch t.Kind {
	case sqltypes.Date:
		return int32(floorDiv(g.(time.Time).Unix(), 86400)), nil
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return g.(time.Time).UnixMicro(), nil
	case sqltypes.Decimal:
		r := g.(*big.Rat)
		scaled := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil))
		scaled.Quo(scaled, r.Denom())
		return bigToNum(scaled), nil
	case sqltypes.Array:
		in := g.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			v, err := s.fromAvroValue(e, n.Items, *t.Elem)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case sqltypes.Map:
		in := g.(map[string]any)
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &sqltypes.MapValue{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			v, err := s.fromAvroValue(in[k], n.Values, *t.Value)
			if err != nil {
				return nil, err
			}
			m.Keys[i], m.Values[i] = k, v
		}
		return m, nil
	case sqltypes.Struct:
		in := g.(map[string]any)
		out := make([]any, len(n.Fields))
		for i := range n.Fields {
			v, err := s.fromAvroValue(in[n.Fields[i].Name], &n.Fields[i].Type, t.Fields[i].Type)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return g, nil
}

// avroBranchHolds reports whether a decoded value g came from union branch b (by its Go type).
func avroBranchHolds(b *avro.SchemaNode, g any) bool {
	switch g.(type) {
	case bool:
		return b.Type == "boolean"
	case int32:
		return b.Type == "int"
	case int64:
		return b.Type == "long"
	case float32:
		return b.Type == "float"
	case float64:
		return b.Type == "double"
	case string:
		return b.Type == "string" || b.Type == "enum"
	case []byte:
		return b.Type == "bytes" || b.Type == "fixed"
	case []any:
		return b.Type == "array"
	case map[string]any:
		return b.Type == "map" || b.Type == "record" || b.Type == "error"
	case time.Time:
		return b.LogicalType != ""
	case *big.Rat:
		return b.LogicalType == "decimal"
	}
	return false
}
