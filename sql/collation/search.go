package collation

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/search"
)

// Substring search under a collation (contains, startswith, endswith, instr, locate,
// replace): UTF8_BINARY by bytes, UTF8_LCASE by lowercased characters, ICU collations by
// collation elements (golang.org/x/text/search, as Spark uses ICU's StringSearch). Offsets are
// byte offsets in s.

// Index returns the byte offsets of the first match of pat in s at or after byte from, or
// -1, -1.
func (c *Collation) Index(s, pat string, from int) (start, end int) {
	switch c.Provider {
	case Lowercase:
		lp := Lower(pat)
		for i := from; i <= len(s); {
			if n := c.matchLower(s[i:], lp); n >= 0 {
				return i, i + n
			}
			if i == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return -1, -1
	case ICU:
		if pat == "" {
			return from, from
		}
		st, e := c.matcher().IndexString(s[from:], pat)
		if st < 0 {
			return -1, -1
		}
		return from + st, from + e
	}
	i := strings.Index(s[from:], pat)
	if i < 0 {
		return -1, -1
	}
	return from + i, from + i + len(pat)
}

// HasPrefix reports whether s starts with pat under c.
func (c *Collation) HasPrefix(s, pat string) bool {
	switch c.Provider {
	case Lowercase:
		return c.matchLower(s, Lower(pat)) >= 0
	case ICU:
		if pat == "" {
			return true
		}
		st, _ := c.matcher().IndexString(s, pat, search.Anchor)
		return st == 0
	}
	return strings.HasPrefix(s, pat)
}

// HasSuffix reports whether s ends with pat under c.
func (c *Collation) HasSuffix(s, pat string) bool {
	if c.Provider == Binary {
		return strings.HasSuffix(s, pat)
	}
	if pat == "" {
		return true
	}
	for i := 0; i < len(s); {
		if c.Provider == Lowercase {
			if n := c.matchLower(s[i:], Lower(pat)); n == len(s)-i {
				return true
			}
		} else if _, e := c.matcher().IndexString(s[i:], pat, search.Anchor); e == len(s)-i {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

// matchLower returns how many bytes of s, lowercased character by character, spell lp, or -1.
func (c *Collation) matchLower(s, lp string) int {
	n := 0
	for lp != "" {
		if n == len(s) {
			return -1
		}
		r, w := utf8.DecodeRuneInString(s[n:])
		l := Lower(string(r))
		if !strings.HasPrefix(lp, l) {
			return -1
		}
		lp, n = lp[len(l):], n+w
	}
	return n
}

// matcher is the collation's ICU search matcher (read-only, shared).
func (c *Collation) matcher() *search.Matcher {
	c.matcherOnce.Do(func() {
		var opts []search.Option
		if c.CaseInsensitive {
			opts = append(opts, search.IgnoreCase)
		}
		if c.AccentInsensitive {
			opts = append(opts, search.IgnoreDiacritics)
		}
		c.search = search.New(icuTag(c.Locale), opts...)
	})
	return c.search
}
