package expr

import (
	"strings"
	"time"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// from_xml, schema_of_xml and to_xml: one XML record as Spark 4's XML data source reads and
// writes it with its default options. The record's element is the row (its name is not read);
// an attribute is the field named '_' + its name, an element's text beside children or
// attributes is the field _VALUE, a repeated element is an ARRAY, texts are trimmed, and
// comments and processing instructions are skipped. Field texts convert as the data source's
// casts do (a text that does not convert is NULL and marks the record malformed: PERMISSIVE
// keeps the other fields and fills _corrupt_record when the schema has it, FAILFAST fails with
// MALFORMED_RECORD_IN_PARSING); a document that does not parse is a row of NULLs.
//
// Options read: mode (from_xml), rowTag (to_xml), attributePrefix, valueTag, nullValue,
// ignoreSurroundingSpaces and inferSchema (schema_of_xml). The others are accepted and not read.

const xmlCorruptRecord = "_corrupt_record"

func init() {
	registerScalar(2, 3, bindFromXML, "from_xml")
	registerScalar(1, 2, bindSchemaOfXML, "schema_of_xml")
	registerScalar(1, 2, bindToXML, "to_xml")
}

// xmlOpts are the XML data source options these functions read (keys case-insensitive).
type xmlOpts struct {
	mode, rowTag, attrPrefix, valueTag string
	nullValue                          *string // nil: no text reads as NULL
	trim, infer                        bool
}

// xmlOptions reads a constant options map (map(...) of strings) at args[i], if given.
func xmlOptions(args []Expr, i int) (*xmlOpts, error) {
	o := &xmlOpts{mode: "PERMISSIVE", rowTag: "ROW", attrPrefix: "_", valueTag: "_VALUE", trim: true, infer: true}
	if len(args) <= i {
		return o, nil
	}
	m, ok := constantMap(args[i])
	if !ok {
		return nil, sparkerr.Analysis("INVALID_OPTIONS.NON_MAP_FUNCTION", "42K06",
			"Invalid options: Must use the `map()` function for options.")
	}
	strs := map[string]*string{"mode": &o.mode, "rowtag": &o.rowTag, "attributeprefix": &o.attrPrefix, "valuetag": &o.valueTag}
	flags := map[string]*bool{"ignoresurroundingspaces": &o.trim, "inferschema": &o.infer}
	for j, k := range m.Keys {
		ks, _ := k.(string)
		vs, _ := m.Values[j].(string)
		key := strings.ToLower(ks)
		if p, ok := strs[key]; ok {
			*p = vs
		}
		if p, ok := flags[key]; ok {
			*p = !strings.EqualFold(vs, "false")
		}
		if key == "nullvalue" {
			o.nullValue = &vs
		}
	}
	o.mode = strings.ToUpper(o.mode)
	return o, nil
}

// text is a text as read: trimmed unless ignoreSurroundingSpaces is false; null reports the
// nullValue.
func (o *xmlOpts) text(s string) (text string, null bool) {
	if o.trim {
		s = strings.TrimSpace(s)
	}
	return s, o.nullValue != nil && s == *o.nullValue
}

func bindFromXML(name string, args []Expr, opts Options) (Expr, error) {
	t, _, err := schemaLiteral(args[1])
	if err != nil {
		return nil, err
	}
	if t.Kind != sqltypes.Struct {
		return nil, typeMismatch("INVALID_XML_SCHEMA", quoteSQL("from_xml("+args[0].String()+")"),
			"Input schema %s must be a struct or a variant.", quoteSQL(t.SQL()))
	}
	t = asNullableType(t)
	o, err := xmlOptions(args, 2)
	if err != nil {
		return nil, err
	}
	mode := o.mode
	switch mode {
	case "PERMISSIVE", "FAILFAST":
	default:
		return nil, sparkerr.Analysis("PARSE_MODE_UNSUPPORTED", "42601",
			"The function `from_xml` doesn't support the %s mode. Acceptable modes are PERMISSIVE and FAILFAST.", mode).
			WithParams("funcName", "`from_xml`", "mode", mode)
	}
	in, err := coerceArgs(name, args[:1], opts, strType)
	if err != nil {
		return nil, err
	}
	f := nullableStrict(name, in, t, func(ctx *Context, a []any) (any, error) {
		doc := a[0].(string)
		row, bad := xmlRecord(doc, t, o, ctx.loc())
		if !bad {
			return row, nil
		}
		if mode == "FAILFAST" {
			return nil, sparkerr.New(sparkerr.SparkException, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", "22023",
				"Malformed records are detected in record parsing: ["+strings.Repeat("null,", len(t.Fields)-1)+"null].\nParse Mode: FAILFAST. To process malformed records as null result, try setting the option 'mode' as 'PERMISSIVE'.")
		}
		for i, fd := range t.Fields {
			if fd.Name == xmlCorruptRecord && fd.Type.Kind == sqltypes.String {
				row[i] = doc
			}
		}
		return row, nil
	})
	f.str = "from_xml(" + args[0].String() + ")"
	return f, nil
}

// xmlRecord converts one record; bad reports a malformed record (a partial row is returned).
func xmlRecord(doc string, t sqltypes.DataType, o *xmlOpts, loc *time.Location) ([]any, bool) {
	root, err := parseXMLDocument(doc, false)
	if err != nil {
		return make([]any, len(t.Fields)), true
	}
	var el *xmlNode
	for _, k := range root.kids {
		if k.kind == xmlElement {
			el = k
		}
	}
	bad := false
	row := xmlStruct(el, t, o, loc, &bad)
	return row, bad
}

// xmlStruct fills t's fields from an element's attributes, children and text, in that order.
func xmlStruct(el *xmlNode, t sqltypes.DataType, o *xmlOpts, loc *time.Location, bad *bool) []any {
	row := make([]any, len(t.Fields))
	index := func(name string) int {
		for i, f := range t.Fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	for _, a := range el.attrs {
		if i := index(o.attrPrefix + a.local); i >= 0 {
			if row[i] = xmlScalar(a.value, t.Fields[i].Type, o, loc, bad); *bad {
				return row
			}
		}
	}
	var text strings.Builder
	for _, k := range el.kids {
		switch k.kind {
		case xmlText:
			text.WriteString(k.value)
		case xmlElement:
			i := index(k.local)
			if i < 0 {
				continue
			}
			ft := t.Fields[i].Type
			if ft.Kind == sqltypes.Array {
				arr, _ := row[i].([]any)
				row[i] = append(arr, xmlElementValue(k, *ft.Elem, o, loc, bad))
			} else {
				row[i] = xmlElementValue(k, ft, o, loc, bad)
			}
			if *bad {
				// Parsing stops at the first value that does not convert: the fields read
				// before it stay, the one being read is NULL.
				row[i] = nil
				return row
			}
		}
	}
	if s := text.String(); strings.TrimSpace(s) != "" {
		if i := index(o.valueTag); i >= 0 {
			row[i] = xmlScalar(s, t.Fields[i].Type, o, loc, bad)
		}
	}
	return row
}

// xmlElementValue converts one element to t.
func xmlElementValue(el *xmlNode, t sqltypes.DataType, o *xmlOpts, loc *time.Location, bad *bool) any {
	if t.Kind == sqltypes.Struct {
		return xmlStruct(el, t, o, loc, bad)
	}
	return xmlScalar(xmlElementText(el), t, o, loc, bad)
}

// xmlScalar converts a text to t; empty text (but for STRING) and the nullValue are NULL.
func xmlScalar(raw string, t sqltypes.DataType, o *xmlOpts, loc *time.Location, bad *bool) any {
	s, null := o.text(raw)
	if null || s == "" && t.Kind != sqltypes.String {
		return nil
	}
	v, err := castValue(s, sqltypes.StringType, t, false, loc)
	if err != nil || v == nil {
		*bad = true
		return nil
	}
	return v
}
