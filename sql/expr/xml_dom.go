package expr

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/antchfx/xpath"
)

// The XML tree the xpath functions evaluate over, shaped as Spark's XPath sees a document: the
// JDK's DOM parser (namespace-unaware, as Spark's UDFXPathUtil builds it) read through Xalan.
// Whitespace-only text nodes stay; adjacent text and CDATA form one XPath text node whose DOM
// node value is its first piece; attributes are ordered by name (Xerces' NamedNodeMap) and
// xmlns declarations are not attributes; an element test matches the local part of a prefixed
// name and a prefixed test matches nothing (no namespace context is set). Processing
// instructions are not nodes here (antchfx/xpath has no such node type).

type xmlNodeKind uint8

const (
	xmlRoot xmlNodeKind = iota
	xmlElement
	xmlAttr
	xmlText
	xmlComment
)

type xmlNode struct {
	kind   xmlNodeKind
	local  string // element/attribute local name (after a prefix's colon)
	value  string // text, comment or attribute value
	first  int    // text: length of the first DOM piece (Node.getNodeValue)
	order  int    // document order
	index  int    // position among the parent's children (or attributes)
	parent *xmlNode
	kids   []*xmlNode
	attrs  []*xmlNode
}

// errXMLSyntax marks a document the parser refuses.
var errXMLSyntax = errors.New("xml: not a well-formed document")

// parseXMLDocument parses one XML document (one root element) into a tree. With dtdEntities the
// general entities the DOCTYPE's internal subset declares are expanded, as the JDK's DOM parser
// does (an external one, which Spark's parser does not load, is empty); without, a reference to
// one is an error, as in Spark's XML data source.
func parseXMLDocument(s string, dtdEntities bool) (*xmlNode, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	// The document arrives as characters (a Java String read through a Reader): a declared
	// encoding does not apply.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	root := &xmlNode{kind: xmlRoot}
	cur := root
	var tags []string // open elements' qualified names
	seenRoot := false
	lastText := false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errXMLSyntax, err)
		}
		isText := false
		switch t := tok.(type) {
		case xml.StartElement:
			if cur == root && seenRoot {
				return nil, fmt.Errorf("%w: content after the root element", errXMLSyntax)
			}
			seenRoot = true
			el := &xmlNode{kind: xmlElement, local: t.Name.Local, parent: cur, index: len(cur.kids)}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				el.attrs = append(el.attrs, &xmlNode{kind: xmlAttr, local: a.Name.Local, value: a.Value, parent: el})
			}
			if err := sortAttrs(el, t.Attr); err != nil {
				return nil, err
			}
			cur.kids = append(cur.kids, el)
			cur = el
			tags = append(tags, qualified(t.Name))
		case xml.EndElement:
			if len(tags) == 0 || tags[len(tags)-1] != qualified(t.Name) {
				return nil, fmt.Errorf("%w: end tag </%s> does not match", errXMLSyntax, qualified(t.Name))
			}
			tags = tags[:len(tags)-1]
			cur = cur.parent
		case xml.CharData:
			if cur == root {
				if len(bytes.Trim(t, " \t\r\n")) != 0 {
					return nil, fmt.Errorf("%w: text outside the root element", errXMLSyntax)
				}
				break
			}
			isText = true
			if lastText {
				n := cur.kids[len(cur.kids)-1]
				n.value += string(t)
				break
			}
			cur.kids = append(cur.kids, &xmlNode{kind: xmlText, value: string(t), first: len(t), parent: cur, index: len(cur.kids)})
		case xml.Comment:
			cur.kids = append(cur.kids, &xmlNode{kind: xmlComment, value: string(t), parent: cur, index: len(cur.kids)})
		case xml.Directive:
			if dtdEntities {
				if d.Entity, err = dtdEntityValues(string(t), s); err != nil {
					return nil, err
				}
			}
		case xml.ProcInst:
		}
		lastText = isText
	}
	if cur != root || !seenRoot {
		return nil, fmt.Errorf("%w: the document ends before its root element closes", errXMLSyntax)
	}
	numberXMLNodes(root, 0)
	return root, nil
}

var dtdEntityDecl = regexp.MustCompile(`<!ENTITY\s+([^\s%]+)\s+(?:(SYSTEM|PUBLIC)\b[^>]*|"([^"]*)"|'([^']*)')\s*>`)

// The JDK parser's bounds on entity expansion (jdk.xml.entityExpansionLimit and
// jdk.xml.totalEntitySizeLimit): past them the document is refused, so that a few nested
// declarations cannot expand to gigabytes.
const (
	xmlEntityExpansionLimit = 64000
	xmlEntitySizeLimit      = 50_000_000
)

// dtdEntityValues reads the general entity declarations of a DOCTYPE directive of doc.
func dtdEntityValues(directive, doc string) (map[string]string, error) {
	if !strings.HasPrefix(directive, "DOCTYPE") {
		return nil, nil
	}
	tooLarge := fmt.Errorf("%w: entity expansion past the parser's limits", errXMLSyntax)
	out := map[string]string{}
	// within counts the expansions of the entities declared so far that text makes, and
	// reports whether every count stays within the bounds.
	expansions, size := 0, 0
	within := func(text string) bool {
		for name, val := range out {
			n := strings.Count(text, "&"+name+";")
			expansions += n
			size += n * len(val)
		}
		return expansions <= xmlEntityExpansionLimit && size <= xmlEntitySizeLimit
	}
	for _, m := range dtdEntityDecl.FindAllStringSubmatch(directive, -1) {
		if _, seen := out[m[1]]; seen {
			continue // the first declaration binds
		}
		v := m[3] + m[4]
		if m[2] != "" {
			v = "" // external: not loaded
		}
		// The value's own references (characters, the predefined and earlier entities) expand.
		if !within(v) {
			return nil, tooLarge
		}
		d := xml.NewDecoder(strings.NewReader("<v>" + v + "</v>"))
		d.Entity = out
		var text strings.Builder
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			if c, ok := tok.(xml.CharData); ok {
				text.Write(c)
			}
		}
		out[m[1]] = text.String()
	}
	if !within(doc) {
		return nil, tooLarge
	}
	return out, nil
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// sortAttrs orders el's attributes by qualified name and refuses a repeated one.
func sortAttrs(el *xmlNode, raw []xml.Attr) error {
	q := make(map[*xmlNode]string, len(el.attrs))
	i := 0
	for _, a := range raw {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		q[el.attrs[i]] = qualified(a.Name)
		i++
	}
	slices.SortStableFunc(el.attrs, func(a, b *xmlNode) int { return strings.Compare(q[a], q[b]) })
	for i, a := range el.attrs {
		if i > 0 && q[a] == q[el.attrs[i-1]] {
			return fmt.Errorf("%w: attribute %q repeated", errXMLSyntax, q[a])
		}
		a.index = i
	}
	return nil
}

// numberXMLNodes assigns document order: a node, its attributes, then its children.
func numberXMLNodes(n *xmlNode, next int) int {
	n.order = next
	next++
	for _, a := range n.attrs {
		a.order = next
		next++
	}
	for _, k := range n.kids {
		next = numberXMLNodes(k, next)
	}
	return next
}

// stringValue is the XPath string-value of n.
func (n *xmlNode) stringValue() string {
	switch n.kind {
	case xmlRoot, xmlElement:
		var b strings.Builder
		n.appendText(&b)
		return b.String()
	}
	return n.value
}

func (n *xmlNode) appendText(b *strings.Builder) {
	for _, k := range n.kids {
		switch k.kind {
		case xmlText:
			b.WriteString(k.value)
		case xmlElement:
			k.appendText(b)
		}
	}
}

// nodeValue is the DOM Node.getNodeValue of n: nil for elements and the document.
func (n *xmlNode) nodeValue() any {
	switch n.kind {
	case xmlRoot, xmlElement:
		return nil
	case xmlText:
		return n.value[:n.first]
	}
	return n.value
}

// xmlNav is an xpath.NodeNavigator over an xmlNode tree.
type xmlNav struct {
	root, cur *xmlNode
}

var _ xpath.NodeNavigator = (*xmlNav)(nil)

func (x *xmlNav) NodeType() xpath.NodeType {
	switch x.cur.kind {
	case xmlElement:
		return xpath.ElementNode
	case xmlAttr:
		return xpath.AttributeNode
	case xmlText:
		return xpath.TextNode
	case xmlComment:
		return xpath.CommentNode
	}
	return xpath.RootNode
}

func (x *xmlNav) LocalName() string         { return x.cur.local }
func (x *xmlNav) Prefix() string            { return "" }
func (x *xmlNav) Value() string             { return x.cur.stringValue() }
func (x *xmlNav) Copy() xpath.NodeNavigator { n := *x; return &n }
func (x *xmlNav) MoveToRoot()               { x.cur = x.root }

func (x *xmlNav) MoveToParent() bool {
	if x.cur.parent == nil {
		return false
	}
	x.cur = x.cur.parent
	return true
}

func (x *xmlNav) MoveToNextAttribute() bool {
	switch {
	case x.cur.kind == xmlElement && len(x.cur.attrs) > 0:
		x.cur = x.cur.attrs[0]
		return true
	case x.cur.kind == xmlAttr && x.cur.index+1 < len(x.cur.parent.attrs):
		x.cur = x.cur.parent.attrs[x.cur.index+1]
		return true
	}
	return false
}

func (x *xmlNav) MoveToChild() bool {
	if x.cur.kind == xmlAttr || len(x.cur.kids) == 0 {
		return false
	}
	x.cur = x.cur.kids[0]
	return true
}

// siblings are the nodes x.cur is among (nil for the root and attributes, which have none on
// the sibling axes).
func (x *xmlNav) siblings() []*xmlNode {
	if x.cur.kind == xmlAttr || x.cur.parent == nil {
		return nil
	}
	return x.cur.parent.kids
}

func (x *xmlNav) MoveToFirst() bool {
	s := x.siblings()
	if len(s) == 0 || x.cur.index == 0 {
		return false
	}
	x.cur = s[0]
	return true
}

func (x *xmlNav) MoveToNext() bool {
	s := x.siblings()
	if x.cur.index+1 >= len(s) {
		return false
	}
	x.cur = s[x.cur.index+1]
	return true
}

func (x *xmlNav) MoveToPrevious() bool {
	s := x.siblings()
	if len(s) == 0 || x.cur.index == 0 {
		return false
	}
	x.cur = s[x.cur.index-1]
	return true
}

func (x *xmlNav) MoveTo(other xpath.NodeNavigator) bool {
	o, ok := other.(*xmlNav)
	if !ok || o.root != x.root {
		return false
	}
	x.cur = o.cur
	return true
}
