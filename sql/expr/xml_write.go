package expr

import (
	"strings"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_xml(struct[, options]): the struct as the XML data source writes one row: the element
// rowTag (ROW by default), fields named attributePrefix ('_') + name as attributes, valueTag
// (_VALUE) as the text, the other fields as child elements in order (an array as one element
// per non-NULL value), NULL fields left out (written as nullValue when that is set), children
// indented by four spaces per level; scalars as to_json writes them.

func bindToXML(name string, args []Expr, _ Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.Struct {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRUCT"`, args[0])
	}
	o, err := xmlOptions(args, 1)
	if err != nil {
		return nil, err
	}
	f := strict(name, args[:1], strType, func(ctx *Context, a []any) (any, error) {
		var b strings.Builder
		writeXMLElement(&b, o.rowTag, a[0], t, o, 0, ctx.loc())
		return b.String(), nil
	})
	f.str = "to_xml(" + args[0].String() + ")"
	return f, nil
}

// writeXMLElement writes <tag …>…</tag> for a non-NULL value at an indentation depth.
func writeXMLElement(b *strings.Builder, tag string, v any, t sqltypes.DataType, o *xmlOpts, depth int, loc *time.Location) {
	indent := strings.Repeat("    ", depth)
	b.WriteString("<" + tag)
	if t.Kind != sqltypes.Struct {
		b.WriteString(">" + xmlEscape(jsonScalarText(v, t, loc), false) + "</" + tag + ">")
		return
	}
	row := v.([]any)
	var text string
	hasText, children := false, false
	attr := func(name string) bool { return o.attrPrefix != "" && strings.HasPrefix(name, o.attrPrefix) }
	for i, f := range t.Fields {
		switch {
		case f.Name == o.valueTag:
			if row[i] != nil {
				text, hasText = jsonScalarText(row[i], f.Type, loc), true
			}
		case attr(f.Name):
			if row[i] != nil {
				b.WriteString(" " + f.Name[len(o.attrPrefix):] + `="` + xmlEscape(jsonScalarText(row[i], f.Type, loc), true) + `"`)
			}
		case row[i] != nil || o.nullValue != nil:
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
			if f.Name == o.valueTag || attr(f.Name) {
				continue
			}
			if row[i] == nil {
				if o.nullValue != nil {
					b.WriteString("\n" + indent + "    <" + f.Name + ">" + xmlEscape(*o.nullValue, false) + "</" + f.Name + ">")
				}
				continue
			}
			vals, et := []any{row[i]}, f.Type
			if f.Type.Kind == sqltypes.Array {
				vals, et = row[i].([]any), *f.Type.Elem
			}
			for _, x := range vals {
				if x != nil {
					b.WriteString("\n" + indent + "    ")
					writeXMLElement(b, f.Name, x, et, o, depth+1, loc)
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
