package expr

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// schema_of_xml(xml[, options]): the DDL of the type Spark's XmlInferSchema gives one constant
// XML record: a text is BIGINT, DOUBLE, BOOLEAN, DATE (yyyy-MM-dd) or TIMESTAMP (what a cast
// reads) when it reads as one, tried in that order, else STRING; BIGINT and DOUBLE merge to
// DOUBLE, DATE and TIMESTAMP to TIMESTAMP, other conflicts to STRING; struct fields are sorted by
// name and empty elements are STRING. A record that does not parse is STRUCT<_corrupt_record:
// STRING>.

func bindSchemaOfXML(name string, args []Expr, _ Options) (Expr, error) {
	call := callString(name, args[:1])
	doc, err := constantDocument(call, args[0], "xml")
	if err != nil {
		return nil, err
	}
	if _, err := xmlOptions(args, 1); err != nil {
		return nil, err
	}
	t := sqltypes.StructType(sqltypes.Field{Name: xmlCorruptRecord, Type: strType, Nullable: true})
	if root, err := parseXMLDocument(doc); err == nil {
		for _, k := range root.kids {
			if k.kind == xmlElement {
				t = jsonNullsToString(inferXMLStruct(k))
			}
		}
	}
	return &renamed{Expr: NewLiteral(typeDDL(t), strType), name: call}, nil
}

// inferXMLElement infers one element: a struct when it has attributes or child elements.
func inferXMLElement(el *xmlNode) sqltypes.DataType {
	if len(el.attrs) > 0 || slices.ContainsFunc(el.kids, func(k *xmlNode) bool { return k.kind == xmlElement }) {
		return inferXMLStruct(el)
	}
	return inferXMLText(xmlElementText(el))
}

func xmlElementText(el *xmlNode) string {
	var b strings.Builder
	for _, k := range el.kids {
		if k.kind == xmlText {
			b.WriteString(k.value)
		}
	}
	return strings.TrimSpace(b.String())
}

func inferXMLStruct(el *xmlNode) sqltypes.DataType {
	types := map[string]sqltypes.DataType{}
	var names []string
	add := func(name string, t sqltypes.DataType, repeatable bool) {
		old, seen := types[name]
		switch {
		case !seen:
			names = append(names, name)
			types[name] = t
		case repeatable && old.Kind == sqltypes.Array:
			types[name] = sqltypes.ArrayType(mergeInferredXML(*old.Elem, t), true)
		case repeatable:
			types[name] = sqltypes.ArrayType(mergeInferredXML(old, t), true)
		}
	}
	for _, a := range el.attrs {
		add(xmlAttrPrefix+a.local, inferXMLText(strings.TrimSpace(a.value)), false)
	}
	for _, k := range el.kids {
		if k.kind == xmlElement {
			add(k.local, inferXMLElement(k), true)
		}
	}
	if s := xmlElementText(el); s != "" {
		add(xmlValueTag, inferXMLText(s), false)
	}
	slices.Sort(names)
	fields := make([]sqltypes.Field, len(names))
	for i, n := range names {
		fields[i] = sqltypes.Field{Name: n, Type: types[n], Nullable: true}
	}
	return sqltypes.StructType(fields...)
}

var xmlDatePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// inferXMLText is XmlInferSchema.inferFrom over a trimmed text.
func inferXMLText(s string) sqltypes.DataType {
	if s == "" {
		return sqltypes.NullType
	}
	body := strings.TrimLeft(s[:1], "+-") + s[1:]
	if body != "" && strings.Trim(body, "0123456789") == "" {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return sqltypes.LongType
		}
	}
	if body != "" && (body[0] >= '0' && body[0] <= '9' || body[0] == '.') && !strings.ContainsAny(body[len(body)-1:], "dDfF") {
		if _, err := strconv.ParseFloat(body, 64); err == nil {
			return sqltypes.DoubleType
		}
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return sqltypes.BooleanType
	}
	if xmlDatePattern.MatchString(s) {
		if v, err := castValue(s, strType, sqltypes.DateType, false, time.UTC); err == nil && v != nil {
			return sqltypes.DateType
		}
	}
	if v, err := castValue(s, strType, sqltypes.TimestampType, false, time.UTC); err == nil && v != nil {
		return sqltypes.TimestampType
	}
	return strType
}

// mergeInferredXML is XmlInferSchema.compatibleType.
func mergeInferredXML(a, b sqltypes.DataType) sqltypes.DataType {
	if t, ok := mergeInferredShape(a, b, mergeInferredXML); ok {
		return t
	}
	dt := func(t sqltypes.DataType) bool { return t.Kind == sqltypes.Date || t.Kind == sqltypes.Timestamp }
	switch {
	case a.IsNumeric() && b.IsNumeric():
		return sqltypes.DoubleType
	case dt(a) && dt(b):
		return sqltypes.TimestampType
	}
	return strType
}
