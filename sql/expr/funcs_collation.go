package expr

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/collation"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Collations: collate(s, name) and s COLLATE name, collation(s), and the collation of the
// string arguments of every other function (Spark's CollationTypeCoercion): an explicit
// collation (COLLATE) wins over an implicit one (a column's type), which wins over the
// default (literals and other expressions); two different explicit collations are
// COLLATION_MISMATCH.EXPLICIT, two different implicit ones with no explicit one are
// INDETERMINATE_COLLATION_IN_EXPRESSION. The losing string arguments are retyped to the
// winning collation, and a string result takes it too (upper(x COLLATE UTF8_LCASE) is
// UTF8_LCASE).

func init() {
	registerScalar(2, 2, bindCollate, "collate")
	registerScalar(1, 1, bindCollation, "collation")
}

// collated is child with a string type of another collation, same values: collate(), or an
// argument or result retyped by collation coercion.
type collated struct {
	child Expr
	t     sqltypes.DataType
	// strength is the collation's: explicit for collate(), whose rendering is the call's
	// text; for a retyped argument or result, the strength it had or won (kept, so that
	// binding a chain of calls does not walk it again).
	strength strength
	text     sqlText
}

func (c *collated) Type() sqltypes.DataType { return c.t }
func (c *collated) Nullable() bool          { return c.child.Nullable() }
func (c *collated) Children() []Expr        { return []Expr{c.child} }
func (c *collated) String() string          { return renderSQL(c) }

// writeSQL renders collate() as its call, a retyped literal as Spark does ('a' collate
// UTF8_LCASE), anything else as itself.
func (c *collated) writeSQL(b *strings.Builder) {
	switch l, ok := c.child.(*Literal); {
	case c.text != nil:
		c.text.write(b)
	case ok && l.Value != nil:
		b.WriteString(renderSQLValue(l.Value, l.T))
		b.WriteString(" collate ")
		b.WriteString(collation.Of(c.t.StringCollation).Name)
	default:
		writeSQL(b, c.child)
	}
}

func (c *collated) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	return c.child.Eval(ctx, batch)
}

func bindCollate(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind != sqltypes.String {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRING"`, args[0])
	}
	n, ok := constantString(args[1])
	if !ok {
		return nil, sparkerr.DatatypeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input collation should be a foldable \"STRING\" expression; however, got %s.", quoteSQL(args[1].String())).
			WithParams("inputName", "`collation`", "inputType", `"STRING"`, "inputExpr", quoteSQL(args[1].String()))
	}
	c, err := collation.Lookup(n)
	if err != nil {
		return nil, err
	}
	t := args[0].Type()
	t.StringCollation = c.TypeName()
	return &collated{child: args[0], t: t, strength: strengthExplicit, text: callText(name, args)}, nil
}

func bindCollation(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind != sqltypes.String {
		return nil, unexpectedInputType(quoteSQL(callString(name, args)), 0, `"STRING"`, args[0])
	}
	return &renamed{Expr: NewLiteral(collation.Of(t.StringCollation).FullName(), strType), text: callText(name, args)}, nil
}

// constantString is the value of a non-null string literal.
func constantString(e Expr) (string, bool) {
	l, ok := e.(*Literal)
	if !ok || l.Value == nil || l.T.Kind != sqltypes.String {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

// strength is how strongly an expression's collation holds (Spark's CollationStrength).
type strength int8

const (
	strengthDefault strength = iota
	strengthImplicit
	strengthExplicit
)

// collationStrength: collate() is explicit, a column implicit, a literal default, anything
// else the strongest of its string children.
func collationStrength(e Expr) strength {
	switch x := e.(type) {
	case *collated:
		return x.strength
	case *Column:
		return strengthImplicit
	case *Literal:
		return strengthDefault
	}
	s := strengthDefault
	for _, c := range e.Children() {
		if c.Type().Kind == sqltypes.String {
			s = max(s, collationStrength(c))
		}
	}
	return s
}

// collationFree are the functions whose string arguments do not take part in collation
// coercion and whose string result is UTF8_BINARY.
var collationFree = map[string]bool{"collate": true, "collation": true, "typeof": true,
	// patterns keep their type: LIKE takes its case from the string's collation.
	"like": true, "ilike": true, "rlike": true, "regexp": true, "regexp_like": true}

// won is the collation a call's string arguments settled on, and its strength.
type won struct {
	c *collation.Collation
	s strength
}

// coerceCollations applies collation coercion to a call's string arguments: it returns the
// arguments retyped to the winning collation and that collation, or nil when every string
// argument is UTF8_BINARY.
func coerceCollations(name string, args []Expr) ([]Expr, *won, error) {
	if collationFree[name] || !anyCollatedString(args) {
		// Binding stays linear: strengths (a walk of the argument) only for collated calls.
		return args, nil, nil
	}
	win, winS, found, implicitClash := "", strengthDefault, false, false
	var explicitTypes []string
	strengths := make([]strength, len(args))
	for i, a := range args {
		c, ok := stringCollation(a.Type())
		if !ok {
			continue
		}
		s := collationStrength(a)
		strengths[i] = s
		switch {
		case !found || s > winS:
			win, winS, found, implicitClash = c, s, true, false
			explicitTypes = []string{collatedTypeSQL(c)}
		case s == winS && c != win && s == strengthExplicit:
			explicitTypes = append(explicitTypes, collatedTypeSQL(c))
		case s == winS && c != win && s == strengthImplicit:
			implicitClash = true
		}
	}
	if len(explicitTypes) > 1 {
		list := `["` + strings.Join(explicitTypes, `", "`) + `"]`
		return nil, nil, sparkerr.Analysis("COLLATION_MISMATCH.EXPLICIT", "42P21",
			"Could not determine which collation to use for string functions and operators. Error occurred due to the mismatch between explicit collations: %s. Decide on a single explicit collation and remove others.", list).
			WithParams("explicitTypes", list)
	}
	if implicitClash {
		// Bound over UTF8_BINARY; indeterminateCollation then decides.
		return retypeCollations(args, "", strengths), nil, errIndeterminate
	}
	return retypeCollations(args, win, strengths), &won{collation.Of(win), winS}, nil
}

// stringCollation is the collation of a string or an array of strings.
func stringCollation(t sqltypes.DataType) (string, bool) {
	switch {
	case t.Kind == sqltypes.String:
		return t.StringCollation, true
	case t.Kind == sqltypes.Array && t.Elem.Kind == sqltypes.String:
		return t.Elem.StringCollation, true
	}
	return "", false
}

// retypeCollations retypes the string (and array of string) arguments to collation c.
func retypeCollations(args []Expr, c string, strengths []strength) []Expr {
	out := args
	for i, a := range args {
		t := a.Type()
		if cur, ok := stringCollation(t); !ok || cur == c {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]Expr(nil), args...)
		}
		if t.Kind == sqltypes.Array {
			e := *t.Elem
			e.StringCollation = c
			t.Elem = &e
		} else {
			t.StringCollation = c
		}
		out[i] = &collated{child: a, t: t, strength: strengths[i]}
	}
	return out
}

// errIndeterminate is coerceCollations' answer to string arguments of two implicit
// collations: Spark's result is a string of indeterminate collation, and anything that
// compares by collation fails (indeterminateCollation), as a comparison does.
var errIndeterminate = errors.New("indeterminate collation")

// indeterminateCollation is INDETERMINATE_COLLATION_IN_EXPRESSION over e, a call whose string
// arguments have two implicit collations: e's string result is UTF8_BINARY (Spark calls its
// collation indeterminate), any other result fails as it does in Spark.
func indeterminateCollation(e Expr) (Expr, error) {
	if e.Type().Kind == sqltypes.String {
		return e, nil
	}
	return nil, sparkerr.Analysis("INDETERMINATE_COLLATION_IN_EXPRESSION", "42P22",
		"Data type of %s has indeterminate collation. Use COLLATE clause to set the collation explicitly.",
		quoteSQL(e.String())).WithParams("expr", quoteSQL(e.String()))
}

func anyCollatedString(args []Expr) bool {
	for _, a := range args {
		if c, ok := stringCollation(a.Type()); ok && c != "" {
			return true
		}
	}
	return false
}

// collatedResult gives a string result the collation of its call's arguments.
func collatedResult(name string, e Expr, w *won) Expr {
	t := e.Type()
	if w == nil || collationFree[name] || t.Kind != sqltypes.String || t.StringCollation == w.c.TypeName() {
		return e
	}
	t.StringCollation = w.c.TypeName()
	return &collated{child: e, t: t, strength: w.s}
}

// collatedTypeSQL is a string type's SQL with its collation, UTF8_BINARY included.
func collatedTypeSQL(c string) string {
	return "STRING COLLATE " + collation.Of(c).Name
}

// CollationKey is e's collation key (BINARY): keys are byte-equal and byte-ordered as e's
// values are equal and ordered by e's collation. The optimizer groups, joins, deduplicates
// and sorts collated strings by it.
func CollationKey(e Expr) Expr { return &collationKey{child: e} }

// NeedsCollationKey reports whether values of t compare other than by their bytes.
func NeedsCollationKey(t sqltypes.DataType) bool {
	return t.Kind == sqltypes.String && !collation.Of(t.StringCollation).BinaryEquality()
}

type collationKey struct{ child Expr }

func (k *collationKey) Type() sqltypes.DataType { return sqltypes.BinaryType }
func (k *collationKey) Nullable() bool          { return k.child.Nullable() }
func (k *collationKey) Children() []Expr        { return []Expr{k.child} }
func (k *collationKey) String() string          { return "collationkey(" + k.child.String() + ")" }

func (k *collationKey) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	in, err := k.child.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	s := in.(*array.String)
	c := collation.Of(k.child.Type().StringCollation)
	b := array.NewBinaryBuilder(ctx.mem(), arrow.BinaryTypes.Binary)
	defer b.Release()
	b.Reserve(s.Len())
	var key []byte
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AppendNull()
			continue
		}
		key = c.Key(key[:0], s.Value(i))
		b.Append(key)
	}
	return b.NewArray(), nil
}

// collationOf is the collation of a string expression (UTF8_BINARY for other types).
func collationOf(e Expr) *collation.Collation {
	if t := e.Type(); t.Kind == sqltypes.String {
		return collation.Of(t.StringCollation)
	}
	return collation.Default
}

// collatedPredicate is startswith, endswith or contains under c.
func collatedPredicate(c *collation.Collation, name, s, p string) bool {
	switch name {
	case "startswith":
		return c.HasPrefix(s, p)
	case "endswith":
		return c.HasSuffix(s, p)
	}
	i, _ := c.Index(s, p, 0)
	return i >= 0
}

// replaceCollated replaces every match of search (non-empty) in s under c, left to right.
func replaceCollated(c *collation.Collation, s, search, rep string) string {
	var b strings.Builder
	at := 0
	for _, m := range collatedMatches(c, s, search) {
		b.WriteString(s[at:m[0]])
		b.WriteString(rep)
		at = m[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// collatedMatches are the byte spans of the non-overlapping matches of pat (non-empty) in s
// under c, left to right.
func collatedMatches(c *collation.Collation, s, pat string) [][2]int {
	var out [][2]int
	for at := 0; at <= len(s); {
		i, j := c.Index(s, pat, at)
		if i < 0 || j == i {
			break
		}
		out = append(out, [2]int{i, j})
		at = j
	}
	return out
}

// nthMatch is the span of the n-th match of pat (non-empty) in s under c, counting from the
// left (n > 0) or from the right (n < 0); each search starts one character past (before) the
// previous match's start, so matches may overlap, as in Spark's subStringIndex. ok is false
// when there are fewer than |n| matches.
func nthMatch(c *collation.Collation, s, pat string, n int) (span [2]int, ok bool) {
	if n > 0 {
		for from := 0; n > 0; n-- {
			i, j := c.Index(s, pat, from)
			if i < 0 || i == len(s) {
				return span, false
			}
			span = [2]int{i, j}
			_, w := utf8.DecodeRuneInString(s[i:])
			from = i + w
		}
		return span, true
	}
	for pos := len(s); n < 0; n++ {
		found := false
		for i := pos; i >= 0 && !found; {
			if st, e := c.Index(s, pat, i); st == i {
				span, found = [2]int{st, e}, true
			}
			if i == 0 {
				break
			}
			_, w := utf8.DecodeLastRuneInString(s[:i])
			i -= w
		}
		if !found || span[0] == 0 && n < -1 {
			return span, false
		}
		_, w := utf8.DecodeLastRuneInString(s[:span[0]])
		pos = span[0] - w
	}
	return span, true
}

// splitCollated is strings.Split(s, sep) with sep (non-empty) matched under c.
func splitCollated(c *collation.Collation, s, sep string) []string {
	var parts []string
	at := 0
	for _, m := range collatedMatches(c, s, sep) {
		parts = append(parts, s[at:m[0]])
		at = m[1]
	}
	return append(parts, s[at:])
}

// likeCollation checks LIKE's string under collation: UTF8_LCASE matches case-insensitively
// (lcase true), the ICU collations are not accepted (Spark's DATATYPE_MISMATCH).
func likeCollation(name string, args []Expr) (lcase bool, err error) {
	return patternCollation(args, func() string {
		return sqlOf(args[0], " "+strings.ToUpper(name)+" ", args[1]).String()
	})
}

// regexCollation is likeCollation for rlike/regexp_like: the regex flags UTF8_LCASE adds.
func regexCollation(name string, args []Expr) (string, error) {
	lcase, err := patternCollation(args, func() string {
		return sqlOf(strings.ToUpper(name)+"(", args[0], ", ", args[1], ")").String()
	})
	if lcase {
		return "(?i)", err
	}
	return "", err
}

func patternCollation(args []Expr, call func() string) (lcase bool, err error) {
	switch collationOf(args[0]).Provider {
	case collation.Lowercase:
		return true, nil
	case collation.ICU:
		return false, unexpectedInputType(quoteSQL(call()), 0, `"STRING"`, args[0])
	}
	return false, nil
}

// distinctCollationKeys is the arguments of an aggregate over DISTINCT values with collated
// strings replaced by their collation keys (args itself when there are none).
func distinctCollationKeys(args []Expr) []Expr {
	out := args
	for i, a := range args {
		if NeedsCollationKey(a.Type()) {
			if &out[0] == &args[0] {
				out = append([]Expr(nil), args...)
			}
			out[i] = CollationKey(a)
		}
	}
	return out
}

// setOfCollated refuses collect_set over collated strings, as Spark does.
func setOfCollated(name string, args []Expr) error {
	if !NeedsCollationKey(args[0].Type()) {
		return nil
	}
	sql := quoteSQL(callString(name, args))
	return typeMismatch("UNSUPPORTED_INPUT_TYPE", sql,
		"The input of `%s` can't be \"MAP\" or \"COLLATED STRING\" type data.", name).
		WithParams("functionName", "`"+name+"`", "dataType", `"MAP" or "COLLATED STRING"`)
}

// trimCollated is trim, ltrim or rtrim (btrim: trim) of the characters of cut from s, a
// character of s matching one of cut under c.
func trimCollated(c *collation.Collation, name, s, cut string) string {
	in := func(r rune) bool {
		for _, t := range cut {
			if c.Equal(string(r), string(t)) {
				return true
			}
		}
		return false
	}
	if name != "rtrim" {
		s = strings.TrimLeftFunc(s, in)
	}
	if name != "ltrim" {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

// translateCollated is translate(s, from, to) with each character of s replaced by the to
// character of the first from character it matches under c (dropped past the end of to).
func translateCollated(c *collation.Collation, s string, from, to []rune) string {
	var b strings.Builder
	for _, r := range s {
		i := 0
		for i < len(from) && !c.Equal(string(r), string(from[i])) {
			i++
		}
		switch {
		case i == len(from):
			b.WriteRune(r)
		case i < len(to):
			b.WriteRune(to[i])
		}
	}
	return b.String()
}
