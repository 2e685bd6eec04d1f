package protoconv

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// ParseJSONType parses Spark's JSON form of a data type (DataType.json() / PySpark's
// StructType.json()): a quoted type name ("integer", "decimal(10,2)", "interval day to second")
// or an object for array, map and struct types. char/varchar become string; user-defined,
// variant, time and calendar interval types are unsupported.
func ParseJSONType(s string) (sqltypes.DataType, error) {
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return sqltypes.DataType{}, badJSONType(s, err)
	}
	return jsonType(raw)
}

func badJSONType(s string, cause error) *sparkerr.Error {
	return sparkerr.IllegalArgument("Failed to parse a data type from JSON: %s", s).Wrap(cause)
}

func jsonType(raw json.RawMessage) (sqltypes.DataType, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return sqltypes.DataType{}, badJSONType("", nil)
	}
	if raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return sqltypes.DataType{}, badJSONType(string(raw), err)
		}
		return typeByName(name)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return sqltypes.DataType{}, badJSONType(string(raw), err)
	}
	var kind string
	if err := json.Unmarshal(obj["type"], &kind); err != nil {
		return sqltypes.DataType{}, badJSONType(string(raw), err)
	}
	switch kind {
	case "array":
		elem, err := jsonMember(obj, "elementType", raw)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		containsNull, err := jsonBool(obj, "containsNull", raw)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.ArrayType(elem, containsNull), nil
	case "map":
		k, err := jsonMember(obj, "keyType", raw)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		v, err := jsonMember(obj, "valueType", raw)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		valueContainsNull, err := jsonBool(obj, "valueContainsNull", raw)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.MapType(k, v, valueContainsNull), nil
	case "struct":
		var fields []json.RawMessage
		if err := json.Unmarshal(obj["fields"], &fields); err != nil {
			return sqltypes.DataType{}, badJSONType(string(raw), err)
		}
		out := make([]sqltypes.Field, 0, len(fields))
		for _, f := range fields {
			field, err := jsonField(f)
			if err != nil {
				return sqltypes.DataType{}, err
			}
			out = append(out, field)
		}
		return sqltypes.StructType(out...), nil
	case "udt":
		var class string
		_ = json.Unmarshal(obj["pyClass"], &class)
		if class == "" {
			_ = json.Unmarshal(obj["class"], &class)
		}
		return sqltypes.DataType{}, sparkerr.Unsupported("user-defined type %s is not supported", class)
	}
	return sqltypes.DataType{}, badJSONType(string(raw), nil)
}

func jsonMember(obj map[string]json.RawMessage, key string, whole json.RawMessage) (sqltypes.DataType, error) {
	v, ok := obj[key]
	if !ok {
		return sqltypes.DataType{}, badJSONType(string(whole), nil)
	}
	return jsonType(v)
}

func jsonBool(obj map[string]json.RawMessage, key string, whole json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(obj[key], &b); err != nil {
		return false, badJSONType(string(whole), err)
	}
	return b, nil
}

func jsonField(raw json.RawMessage) (sqltypes.Field, error) {
	var f struct {
		Name     *string         `json:"name"`
		Type     json.RawMessage `json:"type"`
		Nullable *bool           `json:"nullable"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return sqltypes.Field{}, badJSONType(string(raw), err)
	}
	if f.Name == nil || f.Type == nil || f.Nullable == nil {
		return sqltypes.Field{}, badJSONType(string(raw), nil)
	}
	t, err := jsonType(f.Type)
	if err != nil {
		return sqltypes.Field{}, err
	}
	md := ""
	if m := bytes.TrimSpace(f.Metadata); len(m) > 0 && string(m) != "{}" && string(m) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, m); err != nil {
			return sqltypes.Field{}, badJSONType(string(raw), err)
		}
		md = buf.String()
	}
	return sqltypes.Field{Name: *f.Name, Type: t, Nullable: *f.Nullable, Metadata: md}, nil
}

var (
	decimalName  = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$`)
	charName     = regexp.MustCompile(`^(?:var)?char\(\s*\d+\s*\)$`)
	intervalName = regexp.MustCompile(`^interval (year|month|day|hour|minute|second)(?: to (year|month|day|hour|minute|second))?$`)
	simpleTypes  = map[string]sqltypes.DataType{
		"void": sqltypes.NullType, "null": sqltypes.NullType,
		"boolean": sqltypes.BooleanType, "byte": sqltypes.ByteType, "short": sqltypes.ShortType,
		"integer": sqltypes.IntegerType, "long": sqltypes.LongType, "float": sqltypes.FloatType,
		"double": sqltypes.DoubleType, "string": sqltypes.StringType, "binary": sqltypes.BinaryType,
		"date": sqltypes.DateType, "timestamp": sqltypes.TimestampType, "timestamp_ltz": sqltypes.TimestampType,
		"timestamp_ntz": sqltypes.TimestampNTZType, "decimal": sqltypes.DecimalType(defaultDecimalPrecision, 0),
	}
	intervalFields = map[string]int8{"year": intervalYear, "month": intervalMonth,
		"day": intervalDay, "hour": intervalHour, "minute": intervalMinute, "second": intervalSecond}
)

// typeByName parses a JSON type name (Spark's DataType.nameToType).
func typeByName(name string) (sqltypes.DataType, error) {
	if t, ok := simpleTypes[name]; ok {
		return t, nil
	}
	if strings.HasPrefix(name, "string collate ") {
		st := sqltypes.StringType
		if c := strings.TrimPrefix(name, "string collate "); c != "UTF8_BINARY" {
			st.StringCollation = c
		}
		return st, nil
	}
	if m := decimalName.FindStringSubmatch(name); m != nil {
		p, err1 := strconv.ParseInt(m[1], 10, 32)
		s, err2 := strconv.ParseInt(m[2], 10, 32)
		if err1 != nil || err2 != nil {
			return sqltypes.DataType{}, badJSONType(name, nil)
		}
		return decimalType(int32(p), int32(s))
	}
	if charName.MatchString(name) {
		return sqltypes.StringType, nil
	}
	if m := intervalName.FindStringSubmatch(name); m != nil {
		start, end := m[1], m[2]
		if end == "" {
			end = start
		}
		ym := func(f string) bool { return f == "year" || f == "month" }
		if ym(start) != ym(end) || intervalFields[start] > intervalFields[end] {
			return sqltypes.DataType{}, badJSONType(name, nil)
		}
		kind := sqltypes.DayTimeInterval
		if ym(start) {
			kind = sqltypes.YearMonthInterval
		}
		return sqltypes.DataType{Kind: kind, StartField: intervalFields[start], EndField: intervalFields[end]}, nil
	}
	return sqltypes.DataType{}, sparkerr.Unsupported("data type %q is not supported", name)
}

// JSONType renders t in Spark's JSON form, with keys in the order the JVM writes them
// ({"type":"struct","fields":[{"name":…,"type":…,"nullable":…,"metadata":{…}}]}).
func JSONType(t sqltypes.DataType) string {
	var b strings.Builder
	writeJSONType(&b, t)
	return b.String()
}

func writeJSONString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

func writeJSONType(b *strings.Builder, t sqltypes.DataType) {
	switch t.Kind {
	case sqltypes.Array:
		b.WriteString(`{"type":"array","elementType":`)
		writeJSONType(b, derefType(t.Elem))
		b.WriteString(`,"containsNull":` + strconv.FormatBool(t.ElemNullable) + `}`)
	case sqltypes.Map:
		b.WriteString(`{"type":"map","keyType":`)
		writeJSONType(b, derefType(t.Key))
		b.WriteString(`,"valueType":`)
		writeJSONType(b, derefType(t.Value))
		b.WriteString(`,"valueContainsNull":` + strconv.FormatBool(t.ValueNullable) + `}`)
	case sqltypes.Struct:
		b.WriteString(`{"type":"struct","fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":`)
			writeJSONString(b, f.Name)
			b.WriteString(`,"type":`)
			writeJSONType(b, f.Type)
			b.WriteString(`,"nullable":` + strconv.FormatBool(f.Nullable) + `,"metadata":`)
			b.WriteString(jsonMetadata(f.Metadata))
			b.WriteByte('}')
		}
		b.WriteString(`]}`)
	default:
		writeJSONString(b, t.TypeName())
	}
}

// jsonMetadata returns compact field metadata, "{}" when empty or not a JSON object.
func jsonMetadata(md string) string {
	var buf bytes.Buffer
	if md == "" || json.Compact(&buf, []byte(md)) != nil || !bytes.HasPrefix(buf.Bytes(), []byte("{")) {
		return "{}"
	}
	return buf.String()
}
