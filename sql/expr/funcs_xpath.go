package expr

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/antchfx/xpath"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The xpath functions (Spark's XPathExtract family over Hive's UDFXPathUtil): XPath 1.0 over one
// XML string, evaluated by antchfx/xpath over the tree of xml_dom.go. The path must be a
// constant STRING; both arguments must be STRING (no implicit cast). A NULL or empty document
// or path gives NULL. The result is converted as javax.xml.xpath converts to XPathConstants:
// xpath gives the DOM node value of every node of a node-set in document order (NULL for
// elements); xpath_string the string-value of the first node; xpath_boolean boolean(); the
// numeric forms number() narrowed as Java narrows a Double (NaN is 0 and the integral forms
// saturate; xpath_short truncates the int). An invalid path or document is Spark's
// java.lang.RuntimeException with UDFXPathUtil's message, raised only for a row whose document
// is not empty.
//
// Inside an expression the library's own conversions apply: where XPath 1.0 reads a string as a
// number (comparisons, arithmetic, number(), a sum() inside a larger expression) antchfx/xpath
// also accepts exponents and a leading '+', and its sum() skips values strconv does not read;
// Xalan gives NaN for those. A path that is one sum() call is summed here, as Xalan sums.

func init() {
	registerScalar(2, 2, bindXPath, "xpath", "xpath_boolean", "xpath_double", "xpath_number",
		"xpath_float", "xpath_int", "xpath_long", "xpath_short", "xpath_string")
}

func xpathResultType(name string) sqltypes.DataType {
	switch name {
	case "xpath":
		return sqltypes.ArrayType(strType, true)
	case "xpath_boolean":
		return sqltypes.BooleanType
	case "xpath_double", "xpath_number":
		return sqltypes.DoubleType
	case "xpath_float":
		return sqltypes.FloatType
	case "xpath_int":
		return sqltypes.IntegerType
	case "xpath_long":
		return sqltypes.LongType
	case "xpath_short":
		return sqltypes.ShortType
	}
	return strType
}

func bindXPath(name string, args []Expr, _ Options) (Expr, error) {
	call := callString(name, args)
	path, ok := literalValue(args[1])
	if !ok {
		return nil, nonFoldable(call, "path", `"STRING"`, args[1])
	}
	for i, a := range args {
		if k := a.Type().Kind; k != sqltypes.String && k != sqltypes.Null {
			return nil, unexpectedInputType(quoteSQL(call), i, `"STRING"`, a)
		}
	}
	// A compiled expression keeps iteration state while it evaluates: each evaluation takes
	// one of its own from the pool.
	var (
		compiled   sync.Pool
		compileErr error
	)
	if p, _ := path.(string); p != "" {
		var c *xpathCompiled
		if c, compileErr = compileXPath(p); compileErr == nil {
			compiled.Put(c)
			compiled.New = func() any { c, _ := compileXPath(p); return c }
		}
	}
	t := xpathResultType(name)
	f := nullableStrict(name, args, t, func(_ *Context, a []any) (any, error) {
		doc, p := a[0].(string), a[1].(string)
		if doc == "" || p == "" {
			return nil, nil
		}
		if compileErr != nil {
			return nil, xpathRuntimeError("Invalid XPath '%s'%s", p, compileErr.Error())
		}
		root, err := parseXMLDocument(doc, true)
		if err != nil {
			return nil, xpathRuntimeError("Error loading expression '%s'", p)
		}
		c := compiled.Get().(*xpathCompiled)
		res, err := evalXPath(c, root)
		compiled.Put(c)
		if err != nil {
			return nil, xpathRuntimeError("Invalid XML document: %s\n%s", err.Error(), doc)
		}
		return xpathConvert(name, t, res, doc)
	})
	f.str = call
	return f, nil
}

// xpathRuntimeError is the java.lang.RuntimeException UDFXPathUtil throws (no error class).
func xpathRuntimeError(format string, args ...any) *sparkerr.Error {
	return sparkerr.Newf("java.lang.RuntimeException", "", "", format, args...)
}

// xpathCompiled is a compiled path. A path that is one sum(E) call keeps E (sum): XPath 1.0's
// sum adds number() of every node, NaN when one is not a number, where antchfx/xpath's sum
// skips what strconv does not read.
type xpathCompiled struct {
	e   *xpath.Expr
	sum bool
}

// compileXPath compiles an XPath 1.0 expression. What Xalan refuses and antchfx/xpath accepts is
// refused first, with Xalan's message: numbers with an exponent (XPath 1.0 numbers have none)
// and functions beyond XPath 1.0's library (antchfx/xpath adds some of XPath 2.0's).
func compileXPath(p string) (*xpathCompiled, error) {
	if msg := xpathLexCheck(p); msg != "" {
		return nil, fmt.Errorf("javax.xml.transform.TransformerException: %s", msg)
	}
	if arg, ok := xpathSumArgument(p); ok {
		if e, err := xpath.Compile(arg); err == nil {
			return &xpathCompiled{e: e, sum: true}, nil
		}
	}
	e, err := xpath.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("javax.xml.transform.TransformerException: %w", err)
	}
	return &xpathCompiled{e: e}, nil
}

// xpathSumArgument returns E when p is sum(E) and nothing else.
func xpathSumArgument(p string) (string, bool) {
	t := strings.Trim(p, " \t\r\n")
	rest, ok := strings.CutPrefix(t, "sum")
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	depth := 0
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; c {
		case '\'', '"':
			j := strings.IndexByte(rest[i+1:], c)
			if j < 0 {
				return "", false
			}
			i += j + 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(rest)-1 {
				return "", false // sum(a) + (b): not one call
			}
		}
	}
	return rest[1 : len(rest)-1], depth == 0
}

// xpath10Functions is XPath 1.0's core function library, and the node type tests written as calls.
var xpath10Functions = map[string]bool{
	"last": true, "position": true, "count": true, "id": true, "local-name": true, "namespace-uri": true,
	"name": true, "string": true, "concat": true, "starts-with": true, "contains": true,
	"substring-before": true, "substring-after": true, "substring": true, "string-length": true,
	"normalize-space": true, "translate": true, "boolean": true, "not": true, "true": true, "false": true,
	"lang": true, "number": true, "sum": true, "floor": true, "ceiling": true, "round": true,
	"node": true, "text": true, "comment": true, "processing-instruction": true,
}

// xpathLexCheck scans p's tokens outside string literals: a number token followed by name
// characters (1e3), which Xalan's lexer reads as one token that is not a number, and a call of
// a function XPath 1.0 does not define. It returns Xalan's message, or "".
func xpathLexCheck(p string) string {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	nameChar := func(c byte) bool {
		return c == '_' || c == '-' || c == '.' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(p[i+1:], c)
			if j < 0 {
				return ""
			}
			i += j + 1
		case isDigit(c) || c == '.' && i+1 < len(p) && isDigit(p[i+1]):
			j := i
			for j < len(p) && (isDigit(p[j]) || p[j] == '.') {
				j++
			}
			if j < len(p) && nameChar(p[j]) {
				k := j
				for k < len(p) && nameChar(p[k]) {
					k++
				}
				return p[i:k] + " could not be formatted to a number!"
			}
			i = j - 1
		case nameChar(c) || c == ':':
			j := i
			for j < len(p) && (nameChar(p[j]) || p[j] == ':' && (j+1 >= len(p) || p[j+1] != ':')) {
				j++
			}
			if j == i {
				continue // the first ':' of an axis' '::'
			}
			name := p[i:j]
			k := j
			for k < len(p) && strings.IndexByte(" \t\r\n", p[k]) >= 0 {
				k++
			}
			if k < len(p) && p[k] == '(' && !strings.Contains(name, ":") && !xpath10Functions[name] {
				return "Could not find function: " + name
			}
			i = j - 1
		}
	}
	return ""
}

// evalXPath evaluates c over the document; the library's run-time failures become errors.
func evalXPath(c *xpathCompiled, root *xmlNode) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("javax.xml.transform.TransformerException: %v", r)
		}
	}()
	res = c.e.Evaluate(&xmlNav{root: root, cur: root})
	if it, ok := res.(*xpath.NodeIterator); ok {
		res = xpathNodeSet(it)
	}
	if c.sum {
		nodes, ok := res.([]*xmlNode)
		if !ok {
			return nil, fmt.Errorf("com.sun.org.apache.xpath.internal.XPathException: Can not convert %s to a NodeList!", xpathTypeName(res))
		}
		total := 0.0
		for _, n := range nodes {
			total += xpathStringToNumber(n.stringValue())
		}
		res = total
	}
	return res, nil
}

// xpathNodeSet collects a node-set in document order without repeats.
func xpathNodeSet(it *xpath.NodeIterator) []*xmlNode {
	var out []*xmlNode
	seen := map[*xmlNode]bool{}
	for it.MoveNext() {
		n := it.Current().(*xmlNav).cur
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *xmlNode) int { return a.order - b.order })
	return out
}

// xpathConvert converts an XPath result to the function's SQL result.
func xpathConvert(name string, t sqltypes.DataType, res any, doc string) (any, error) {
	switch name {
	case "xpath":
		nodes, ok := res.([]*xmlNode)
		if !ok {
			return nil, xpathRuntimeError("Invalid XML document: com.sun.org.apache.xpath.internal.XPathException: Can not convert %s to a NodeList!\n%s",
				xpathTypeName(res), doc)
		}
		out := make([]any, len(nodes))
		for i, n := range nodes {
			out[i] = n.nodeValue()
		}
		return out, nil
	case "xpath_boolean":
		return xpathBoolean(res), nil
	case "xpath_string":
		return xpathString(res), nil
	}
	f := xpathNumber(res)
	switch t.Kind {
	case sqltypes.Double:
		return f, nil
	case sqltypes.Float:
		return float32(f), nil
	case sqltypes.Long:
		return javaDoubleToLong(f, math.MinInt64, math.MaxInt64), nil
	case sqltypes.Integer:
		return int32(javaDoubleToLong(f, math.MinInt32, math.MaxInt32)), nil
	}
	return int16(int32(javaDoubleToLong(f, math.MinInt32, math.MaxInt32))), nil // Double.shortValue
}

// javaDoubleToLong is Java's narrowing of a double to an integral type of range [lo, hi].
func javaDoubleToLong(f float64, lo, hi int64) int64 {
	if math.IsNaN(f) {
		return 0
	}
	return saturate(f, lo, hi)
}

func xpathTypeName(res any) string {
	switch res.(type) {
	case float64:
		return "#NUMBER"
	case bool:
		return "#BOOLEAN"
	}
	return "#STRING"
}

// xpathString is XPath's string(): the string-value of a node-set's first node.
func xpathString(res any) string {
	switch v := res.(type) {
	case []*xmlNode:
		if len(v) == 0 {
			return ""
		}
		return v[0].stringValue()
	case float64:
		return xpathFormatNumber(v)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return v
	}
	return ""
}

// xpathBoolean is XPath's boolean().
func xpathBoolean(res any) bool {
	switch v := res.(type) {
	case []*xmlNode:
		return len(v) > 0
	case float64:
		return v != 0 && !math.IsNaN(v)
	case bool:
		return v
	case string:
		return v != ""
	}
	return false
}

// xpathNumber is XPath's number().
func xpathNumber(res any) float64 {
	switch v := res.(type) {
	case float64:
		return v
	case bool:
		if v {
			return 1
		}
		return 0
	}
	return xpathStringToNumber(xpathString(res))
}

// xpathStringToNumber reads an XPath 1.0 Number after optional whitespace and '-': digits with
// an optional fraction, or a fraction alone; anything else is NaN.
func xpathStringToNumber(s string) float64 {
	s = strings.Trim(s, " \t\r\n")
	body := strings.TrimPrefix(s, "-")
	digits, dots := 0, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return math.NaN()
		}
	}
	if digits == 0 || dots > 1 {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f // ±Inf past the double range, as Java
}

// xpathFormatNumber is XPath's string() of a number: no exponent, no ".0" on integers, -0 as 0;
// NaN and the infinities as Java spells them.
func xpathFormatNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsNaN(f) || math.IsInf(f, 0):
		return JavaDouble(f, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
