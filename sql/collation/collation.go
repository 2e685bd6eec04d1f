package collation

import (
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/search"
)

// Provider is how a collation compares.
type Provider uint8

const (
	// Binary compares UTF-8 bytes (UTF8_BINARY).
	Binary Provider = iota
	// Lowercase compares lowercased strings by bytes (UTF8_LCASE).
	Lowercase
	// ICU compares by the Unicode Collation Algorithm (UNICODE and the locales).
	ICU
)

// Collation is one of Spark's collations.
type Collation struct {
	// Name is the canonical name: "UTF8_BINARY", "UNICODE_CI", "de_CI_AI".
	Name     string
	Provider Provider
	// Locale is the ICU locale name ("de", "sr_Cyrl", "en_USA"); "" for UNICODE and UTF8_*.
	Locale string
	// CaseInsensitive (_CI), AccentInsensitive (_AI) and RTrim (_RTRIM) are the modifiers.
	CaseInsensitive, AccentInsensitive, RTrim bool

	// collators pools *collate.Collator, which is not safe for concurrent use.
	collators *sync.Pool
	// search is the ICU substring matcher, made on first use.
	matcherOnce sync.Once
	search      *search.Matcher
}

// Default is UTF8_BINARY.
var Default = &Collation{Name: "UTF8_BINARY"}

// FullName is the name collation() returns: SYSTEM.BUILTIN.<name>.
func (c *Collation) FullName() string { return "SYSTEM.BUILTIN." + c.Name }

// TypeName is the collation as sqltypes.DataType.StringCollation carries it: "" for UTF8_BINARY.
func (c *Collation) TypeName() string {
	if c.Name == Default.Name {
		return ""
	}
	return c.Name
}

// BinaryEquality reports whether equal strings are exactly the byte-equal ones (UTF8_BINARY).
func (c *Collation) BinaryEquality() bool { return c.Provider == Binary && !c.RTrim }

// Of returns the collation a string type carries ("" is UTF8_BINARY); a name the type cannot
// carry (never produced by Lookup) falls back to UTF8_BINARY.
func Of(typeName string) *Collation {
	if typeName == "" {
		return Default
	}
	c, err := Lookup(typeName)
	if err != nil {
		return Default
	}
	return c
}

func (c *Collation) trim(s string) string {
	if c.RTrim {
		return strings.TrimRight(s, " ")
	}
	return s
}

// Compare orders a and b by the collation.
func (c *Collation) Compare(a, b string) int {
	a, b = c.trim(a), c.trim(b)
	switch c.Provider {
	case Lowercase:
		return strings.Compare(Lower(a), Lower(b))
	case ICU:
		col := c.collators.Get().(*collate.Collator)
		defer c.collators.Put(col)
		return col.CompareString(a, b)
	}
	return strings.Compare(a, b)
}

// Equal reports whether a and b are equal under the collation.
func (c *Collation) Equal(a, b string) bool {
	if c.BinaryEquality() {
		return a == b
	}
	return c.Compare(a, b) == 0
}

// Key appends s's collation key to dst: keys compare by bytes as their strings compare by
// the collation.
func (c *Collation) Key(dst []byte, s string) []byte {
	s = c.trim(s)
	switch c.Provider {
	case Lowercase:
		return append(dst, Lower(s)...)
	case ICU:
		col := c.collators.Get().(*collate.Collator)
		defer c.collators.Put(col)
		var buf collate.Buffer
		return append(dst, col.KeyFromString(&buf, s)...)
	}
	return append(dst, s...)
}

// Lower is UTF8_LCASE's lowercase form of s (Java's String.toLowerCase in the root locale).
func Lower(s string) string { return strings.ToLower(s) }

// newCollators returns the pool of ICU collators of a locale and modifiers.
func newCollators(tag language.Tag, ci, ai bool) *sync.Pool {
	var opts []collate.Option
	if ci {
		opts = append(opts, collate.IgnoreCase)
	}
	if ai {
		opts = append(opts, collate.IgnoreDiacritics)
	}
	return &sync.Pool{New: func() any { return collate.New(tag, opts...) }}
}
