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
	o, err := xmlOptions(args, 1)
	if err != nil {
		return nil, err
	}
	t := sqltypes.StructType(sqltypes.Field{Name: xmlCorruptRecord, Type: strType, Nullable: true})
	if root, err := parseXMLDocument(doc, false); err == nil {
		for _, k := range root.kids {
			if k.kind == xmlElement {
				t = jsonNullsToString(o.inferStruct(k))
			}
		}
	}
	return &renamed{Expr: NewLiteral(typeDDL(t), strType), name: call}, nil
}

// inferElement infers one element: a struct when it has attributes or child elements.
func (o *xmlOpts) inferElement(el *xmlNode) sqltypes.DataType {
	if len(el.attrs) > 0 || slices.ContainsFunc(el.kids, func(k *xmlNode) bool { return k.kind == xmlElement }) {
		return o.inferStruct(el)
	}
	return o.inferText(xmlElementText(el))
}

func xmlElementText(el *xmlNode) string {
	var b strings.Builder
	for _, k := range el.kids {
		if k.kind == xmlText {
			b.WriteString(k.value)
		}
	}
	return b.String()
}

func (o *xmlOpts) inferStruct(el *xmlNode) sqltypes.DataType {
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
		add(o.attrPrefix+a.local, o.inferText(a.value), false)
	}
	for _, k := range el.kids {
		if k.kind == xmlElement {
			add(k.local, o.inferElement(k), true)
		}
	}
	if s := xmlElementText(el); strings.TrimSpace(s) != "" {
		add(o.valueTag, o.inferText(s), false)
	}
	slices.Sort(names)
	fields := make([]sqltypes.Field, len(names))
	for i, n := range names {
		fields[i] = sqltypes.Field{Name: n, Type: types[n], Nullable: true}
	}
	return sqltypes.StructType(fields...)
}

var xmlDatePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// inferText is XmlInferSchema.inferFrom: NULL for an empty text or the nullValue, STRING
// without inferSchema.
func (o *xmlOpts) inferText(raw string) sqltypes.DataType {
	s, null := o.text(raw)
	switch {
	case null || s == "":
		return sqltypes.NullType
	case !o.infer:
		return strType
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
