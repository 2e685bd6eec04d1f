package expr

import (
	"strings"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_xml(struct[, options]): the struct as the XML data source writes one row: the element
// rowTag (ROW by default), fields named '_' + name as attributes, _VALUE as the text, the other
// fields as child elements in order (an array as one element per non-NULL value), NULL fields
// left out, children indented by four spaces per level; scalars as to_json writes them.

func bindToXML(name string, args []Expr, _ Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Struct {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRUCT"`, args[0])
	}
	o, err := xmlOptions(args, 1)
	if err != nil {
		return nil, err
	}
	rowTag := "ROW"
	if v, ok := o["rowTag"]; ok {
		rowTag = v
	}
	f := strict(name, args[:1], strType, func(ctx *Context, a []any) (any, error) {
		var b strings.Builder
		writeXMLElement(&b, rowTag, a[0], t, 0, ctx.loc())
		return b.String(), nil
	})
	f.str = "to_xml(" + args[0].String() + ")"
	return f, nil
}

// writeXMLElement writes <tag …>…</tag> for a non-NULL value at an indentation depth.
func writeXMLElement(b *strings.Builder, tag string, v any, t sqltypes.DataType, depth int, loc *time.Location) {
	indent := strings.Repeat("    ", depth)
	b.WriteString("<" + tag)
	if t.Kind != sqltypes.Struct {
		b.WriteString(">" + xmlEscape(jsonScalarText(v, t, loc), false) + "</" + tag + ">")
		return
	}
	row := v.([]any)
	var text string
	hasText, children := false, false
	for i, f := range t.Fields {
		switch {
		case row[i] == nil:
		case f.Name == xmlValueTag:
			text, hasText = jsonScalarText(row[i], f.Type, loc), true
		case strings.HasPrefix(f.Name, xmlAttrPrefix):
			b.WriteString(" " + f.Name[len(xmlAttrPrefix):] + `="` + xmlEscape(jsonScalarText(row[i], f.Type, loc), true) + `"`)
		default:
			children = true
		}
	}
	if !hasText && !children {
		b.WriteString("/>")
		return
	}
	b.WriteString(">" + xmlEscape(text, false))
	if children {
		for i, f := range t.Fields {
			if row[i] == nil || f.Name == xmlValueTag || strings.HasPrefix(f.Name, xmlAttrPrefix) {
				continue
			}
			vals, et := []any{row[i]}, f.Type
			if f.Type.Kind == sqltypes.Array {
				vals, et = row[i].([]any), *f.Type.Elem
			}
			for _, x := range vals {
				if x != nil {
					b.WriteString("\n" + indent + "    ")
					writeXMLElement(b, f.Name, x, et, depth+1, loc)
				}
			}
		}
		b.WriteString("\n" + indent)
	}
	b.WriteString("</" + tag + ">")
}

// xmlEscape escapes as Java's XMLStreamWriter: & and < always, " in attribute values.
func xmlEscape(s string, attr bool) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;")
	if attr {
		r = strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;")
	}
	return r.Replace(s)
}
