package collation

import (
	"bytes"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/search"
	"golang.org/x/text/unicode/norm"
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
	// upperFirst: the locale sorts uppercase before lowercase (CLDR's caseFirst upper).
	upperFirst bool
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

// trim drops trailing spaces under _RTRIM, and swaps case where the locale sorts uppercase
// first (upperFirst), so the collator's lowercase-first tertiary order becomes it.
func (c *Collation) trim(s string) string {
	if c.RTrim {
		s = strings.TrimRight(s, " ")
	}
	if c.upperFirst && !c.CaseInsensitive {
		s = strings.Map(swapCase, s)
	}
	return s
}

// swapCase swaps the case of a letter of a one-to-one case pair (not İ, ı, ligatures).
func swapCase(r rune) rune {
	if l := unicode.ToLower(r); l != r && unicode.ToUpper(l) == r {
		return l
	}
	if u := unicode.ToUpper(r); u != r && unicode.ToLower(u) == r {
		return u
	}
	return r
}

// upperFirstLocales are the locales CLDR tailors with [caseFirst upper], which x/text's
// collator does not apply.
var upperFirstLocales = map[string]bool{"da": true, "mt": true}

// Compare orders a and b by the collation.
func (c *Collation) Compare(a, b string) int {
	a, b = c.trim(a), c.trim(b)
	switch c.Provider {
	case Lowercase:
		return strings.Compare(Lower(a), Lower(b))
	case ICU:
		col := c.collators.Get().(*collate.Collator)
		defer c.collators.Put(col)
		if r := col.CompareString(a, b); r != 0 || !c.caseLevel() {
			return r
		}
		return bytes.Compare(caseSignature(nil, a), caseSignature(nil, b))
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
		dst = append(dst, col.KeyFromString(&buf, s)...)
		if c.caseLevel() {
			dst = caseSignature(append(dst, 0, 0), s)
		}
		return dst
	}
	return append(dst, s...)
}

// caseLevel reports whether the collation compares case after ignoring accents (_AI without
// _CI): ICU's primary strength with its case level, which x/text's collator does not have;
// the collator compares primary weights and caseSignature the case.
func (c *Collation) caseLevel() bool { return c.AccentInsensitive && !c.CaseInsensitive }

// ligatures are the letters DUCET expands to two letters that NFKD leaves whole.
var ligatures = strings.NewReplacer("æ", "ae", "Æ", "AE", "œ", "oe", "Œ", "OE")

// caseSignature appends the case of s's cased letters (compatibility-decomposed, as ICU's
// collation elements of ﬁ are those of fi) to dst, lowercase below uppercase.
func caseSignature(dst []byte, s string) []byte {
	for _, r := range ligatures.Replace(norm.NFKD.String(s)) {
		switch {
		case unicode.IsLower(r):
			dst = append(dst, 1)
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			dst = append(dst, 2)
		}
	}
	return dst
}

// Lower is UTF8_LCASE's lowercase form of s: Java's String.toLowerCase in the root locale,
// which lowers İ (U+0130) to i and a combining dot above where Go's simple mapping gives i.
func Lower(s string) string {
	l := strings.ToLower(s)
	if strings.ContainsRune(s, 'İ') {
		var b strings.Builder
		for _, r := range s {
			if r == 'İ' {
				b.WriteString("i\u0307")
				continue
			}
			b.WriteString(strings.ToLower(string(r)))
		}
		return b.String()
	}
	return l
}

// newCollators returns the pool of ICU collators of a locale and modifiers.
func newCollators(tag language.Tag, ci, ai bool) *sync.Pool {
	var opts []collate.Option
	if ci {
		opts = append(opts, collate.IgnoreCase)
	}
	if ai {
		// Case, when it counts, is compared apart (caseLevel).
		opts = append(opts, collate.IgnoreDiacritics, collate.IgnoreCase)
	}
	return &sync.Pool{New: func() any { return collate.New(tag, opts...) }}
}
