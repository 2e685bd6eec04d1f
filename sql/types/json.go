package sqltypes

import (
	"bytes"
	"encoding/json"
	"github.com/weirhq/weir/sql/collation"
	"regexp"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// ParseJSONType parses Spark's JSON form of a data type (DataType.json() / PySpark's
// StructType.json()): a quoted type name ("integer", "decimal(10,2)", "interval day to second")
// or an object for array, map and struct types. char/varchar become string; user-defined,
// variant, time and calendar interval types are unsupported.
func ParseJSONType(s string) (DataType, error) {
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return DataType{}, badJSONType(s, err)
	}
	return jsonType(raw)
}

func badJSONType(s string, cause error) *sparkerr.Error {
	return sparkerr.IllegalArgument("Failed to parse a data type from JSON: %s", s).Wrap(cause)
}

func jsonType(raw json.RawMessage) (DataType, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return DataType{}, badJSONType("", nil)
	}
	if raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return DataType{}, badJSONType(string(raw), err)
		}
		return typeByName(name)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return DataType{}, badJSONType(string(raw), err)
	}
	var kind string
	if err := json.Unmarshal(obj["type"], &kind); err != nil {
		return DataType{}, badJSONType(string(raw), err)
	}
	switch kind {
	case "array":
		elem, err := jsonMember(obj, "elementType", raw)
		if err != nil {
			return DataType{}, err
		}
		containsNull, err := jsonBool(obj, "containsNull", raw)
		if err != nil {
			return DataType{}, err
		}
		return ArrayType(elem, containsNull), nil
	case "map":
		k, err := jsonMember(obj, "keyType", raw)
		if err != nil {
			return DataType{}, err
		}
		v, err := jsonMember(obj, "valueType", raw)
		if err != nil {
			return DataType{}, err
		}
		valueContainsNull, err := jsonBool(obj, "valueContainsNull", raw)
		if err != nil {
			return DataType{}, err
		}
		return MapType(k, v, valueContainsNull), nil
	case "struct":
		var fields []json.RawMessage
		if err := json.Unmarshal(obj["fields"], &fields); err != nil {
			return DataType{}, badJSONType(string(raw), err)
		}
		out := make([]Field, 0, len(fields))
		for _, f := range fields {
			field, err := jsonField(f)
			if err != nil {
				return DataType{}, err
			}
			out = append(out, field)
		}
		return StructType(out...), nil
	case "udt":
		var class string
		_ = json.Unmarshal(obj["pyClass"], &class)
		if class == "" {
			_ = json.Unmarshal(obj["class"], &class)
		}
		return DataType{}, sparkerr.Unsupported("user-defined type %s is not supported", class)
	}
	return DataType{}, badJSONType(string(raw), nil)
}

func jsonMember(obj map[string]json.RawMessage, key string, whole json.RawMessage) (DataType, error) {
	v, ok := obj[key]
	if !ok {
		return DataType{}, badJSONType(string(whole), nil)
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

func jsonField(raw json.RawMessage) (Field, error) {
	var f struct {
		Name     *string         `json:"name"`
		Type     json.RawMessage `json:"type"`
		Nullable *bool           `json:"nullable"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return Field{}, badJSONType(string(raw), err)
	}
	if f.Name == nil || f.Type == nil || f.Nullable == nil {
		return Field{}, badJSONType(string(raw), nil)
	}
	t, err := jsonType(f.Type)
	if err != nil {
		return Field{}, err
	}
	md := ""
	if m := bytes.TrimSpace(f.Metadata); len(m) > 0 && string(m) != "{}" && string(m) != "null" {
		var buf bytes.Buffer
		if err := json.Compact(&buf, m); err != nil {
			return Field{}, badJSONType(string(raw), err)
		}
		md = buf.String()
	}
	t, md, err = fieldCollations(*f.Name, t, md)
	if err != nil {
		return Field{}, err
	}
	return Field{Name: *f.Name, Type: t, Nullable: *f.Nullable, Metadata: md}, nil
}

var (
	decimalName  = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$`)
	charName     = regexp.MustCompile(`^(?:var)?char\(\s*\d+\s*\)$`)
	timeName     = regexp.MustCompile(`^time\(\s*(\d+)\s*\)$`)
	intervalName = regexp.MustCompile(`^interval (year|month|day|hour|minute|second)(?: to (year|month|day|hour|minute|second))?$`)
	simpleTypes  = map[string]DataType{
		"void": NullType, "null": NullType,
		"boolean": BooleanType, "byte": ByteType, "short": ShortType,
		"integer": IntegerType, "long": LongType, "float": FloatType,
		"double": DoubleType, "string": StringType, "binary": BinaryType,
		"date": DateType, "timestamp": TimestampType, "timestamp_ltz": TimestampType,
		"timestamp_ntz": TimestampNTZType, "decimal": DecimalType(10, 0), "variant": VariantType,
		"interval": CalendarIntervalType,
	}
	intervalFields = map[string]int8{"year": 0, "month": 1,
		"day": 0, "hour": 1, "minute": 2, "second": 3}
)

// typeByName parses a JSON type name (Spark's DataType.nameToType).
func typeByName(name string) (DataType, error) {
	if t, ok := simpleTypes[name]; ok {
		return t, nil
	}
	if strings.HasPrefix(name, "string collate ") {
		st := StringType
		c, err := collation.Lookup(strings.TrimPrefix(name, "string collate "))
		if err != nil {
			return DataType{}, err
		}
		st.StringCollation = c.TypeName()
		return st, nil
	}
	if m := decimalName.FindStringSubmatch(name); m != nil {
		p, err1 := strconv.ParseInt(m[1], 10, 32)
		s, err2 := strconv.ParseInt(m[2], 10, 32)
		if err1 != nil || err2 != nil {
			return DataType{}, badJSONType(name, nil)
		}
		return jsonDecimalType(int32(p), int32(s))
	}
	if m := timeName.FindStringSubmatch(name); m != nil {
		p, err := strconv.ParseInt(m[1], 10, 32)
		if err != nil || p > MaxTimePrecision {
			return DataType{}, badJSONType(name, nil)
		}
		return TimeType(int32(p)), nil
	}
	if charName.MatchString(name) {
		return StringType, nil
	}
	if t, ok, err := geoFromJSONName(name); ok {
		return t, err
	}
	if m := intervalName.FindStringSubmatch(name); m != nil {
		start, end := m[1], m[2]
		if end == "" {
			end = start
		}
		ym := func(f string) bool { return f == "year" || f == "month" }
		if ym(start) != ym(end) || intervalFields[start] > intervalFields[end] {
			return DataType{}, badJSONType(name, nil)
		}
		kind := DayTimeInterval
		if ym(start) {
			kind = YearMonthInterval
		}
		return DataType{Kind: kind, StartField: intervalFields[start], EndField: intervalFields[end]}, nil
	}
	return DataType{}, sparkerr.Unsupported("data type %q is not supported", name)
}

// JSONType renders t in Spark's JSON form, with keys in the order the JVM writes them
// ({"type":"struct","fields":[{"name":…,"type":…,"nullable":…,"metadata":{…}}]}).
func JSONType(t DataType) string {
	var b strings.Builder
	writeJSONType(&b, t)
	return b.String()
}

func writeJSONString(b *strings.Builder, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

func writeJSONType(b *strings.Builder, t DataType) {
	switch t.Kind {
	case Array:
		b.WriteString(`{"type":"array","elementType":`)
		writeJSONType(b, derefJSONType(t.Elem))
		b.WriteString(`,"containsNull":` + strconv.FormatBool(t.ElemNullable) + `}`)
	case Map:
		b.WriteString(`{"type":"map","keyType":`)
		writeJSONType(b, derefJSONType(t.Key))
		b.WriteString(`,"valueType":`)
		writeJSONType(b, derefJSONType(t.Value))
		b.WriteString(`,"valueContainsNull":` + strconv.FormatBool(t.ValueNullable) + `}`)
	case Struct:
		b.WriteString(`{"type":"struct","fields":[`)
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":`)
			writeJSONString(b, f.Name)
			paths := map[string]string{}
			b.WriteString(`,"type":`)
			writeJSONType(b, collationPaths(f.Name, f.Type, paths))
			b.WriteString(`,"nullable":` + strconv.FormatBool(f.Nullable) + `,"metadata":`)
			b.WriteString(jsonMetadata(withCollationMetadata(f.Metadata, paths)))
			b.WriteByte('}')
		}
		b.WriteString(`]}`)
	case Geometry, Geography:
		writeJSONString(b, geoJSONName(t))
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

func derefJSONType(t *DataType) DataType {
	if t == nil {
		return NullType
	}
	return *t
}

// jsonDecimalType validates a decimal's precision and scale like Spark's DecimalType.
func jsonDecimalType(p, s int32) (DataType, error) {
	if p > 38 {
		return DataType{}, sparkerr.Analysis("DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
			"Decimal precision %d exceeds max precision %d.", p, 38).
			WithParams("precision", strconv.Itoa(int(p)), "maxPrecision", "38")
	}
	if p < 1 || s < 0 || s > p {
		return DataType{}, sparkerr.IllegalArgument("invalid decimal precision/scale (%d,%d)", p, s)
	}
	return DecimalType(p, s), nil
}
