package expr

import (
	"fmt"
	"strings"
)

// Rendering (Expr.String) is linear in the size of the tree: an expression whose rendering
// contains its children's writes itself and them into one builder (sqlWriter) instead of
// concatenating their Strings, and binding never renders an operand eagerly (a rendering needed
// later, such as the "(a + b)" of a datetime addition, is kept as sqlText: pieces of text and
// sub-expressions, joined when asked). Rendering a chain of n binary operators is then O(n)
// once, not O(n²) per level.

// sqlWriter is an expression that renders itself into b.
type sqlWriter interface {
	writeSQL(b *strings.Builder)
}

// writeSQL appends e's rendering to b.
func writeSQL(b *strings.Builder, e Expr) {
	if w, ok := e.(sqlWriter); ok {
		w.writeSQL(b)
		return
	}
	b.WriteString(e.String())
}

// renderSQL is the String of a sqlWriter.
func renderSQL(w sqlWriter) string {
	var b strings.Builder
	w.writeSQL(&b)
	return b.String()
}

// sqlPart is a piece of a sqlText: literal text, or a sub-expression's rendering.
type sqlPart struct {
	s string
	e Expr
}

// sqlText is a rendering kept as pieces and joined only when written.
type sqlText []sqlPart

// sqlOf builds a sqlText from strings and Exprs, in order.
func sqlOf(parts ...any) sqlText {
	t := make(sqlText, len(parts))
	for i, p := range parts {
		switch p := p.(type) {
		case string:
			t[i].s = p
		case Expr:
			t[i].e = p
		default:
			panic(fmt.Sprintf("expr: sqlOf part of type %T", p))
		}
	}
	return t
}

// callText is the lazy name(a, b, …).
func callText(name string, args []Expr) sqlText {
	t := make(sqlText, 0, 2*len(args)+2)
	t = append(t, sqlPart{s: name + "("})
	for i, a := range args {
		if i > 0 {
			t = append(t, sqlPart{s: ", "})
		}
		t = append(t, sqlPart{e: a})
	}
	return append(t, sqlPart{s: ")"})
}

// binaryOpText is the lazy (l op r).
func binaryOpText(op string, l, r Expr) sqlText {
	return sqlText{{s: "("}, {e: l}, {s: " " + op + " "}, {e: r}, {s: ")"}}
}

func (t sqlText) write(b *strings.Builder) {
	for _, p := range t {
		if p.e != nil {
			writeSQL(b, p.e)
		} else {
			b.WriteString(p.s)
		}
	}
}

// String joins the pieces.
func (t sqlText) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

// writeCall appends name(a, b, …) to b.
func writeCall(b *strings.Builder, name string, args []Expr) {
	b.WriteString(name)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeSQL(b, a)
	}
	b.WriteByte(')')
}
