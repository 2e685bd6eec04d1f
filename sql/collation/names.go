package collation

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/weirhq/weir/sparkerr"
	"golang.org/x/text/language"
)

//go:embed locales.tsv
var localesTSV string

// Locale is one ICU locale of Spark's listing.
type Locale struct {
	Name, Language, Country string // Country "" when the locale names none
}

var (
	localesOnce sync.Once
	locales     []Locale
	localeIndex map[string]int // upper-cased name → index in locales
	cache       sync.Map       // upper-cased requested name → *Collation
)

func loadLocales() {
	localesOnce.Do(func() {
		localeIndex = map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(localesTSV), "\n") {
			f := strings.Split(line, "\t")
			l := Locale{Name: f[0], Language: f[1]}
			if f[2] != "NULL" {
				l.Country = f[2]
			}
			localeIndex[strings.ToUpper(l.Name)] = len(locales)
			locales = append(locales, l)
		}
	})
}

// Locales returns the ICU locales in Spark's order.
func Locales() []Locale {
	loadLocales()
	return locales
}

// Lookup resolves a collation name the way Spark does: case-insensitively, with an optional
// SYSTEM.BUILTIN. prefix, the modifiers in any order (_CS and _AS are the defaults and are
// dropped from the canonical name). An unknown name is COLLATION_INVALID_NAME.
func Lookup(name string) (*Collation, error) {
	key := strings.ToUpper(name)
	if c, ok := cache.Load(key); ok {
		return c.(*Collation), nil
	}
	c := parse(strings.TrimPrefix(key, "SYSTEM.BUILTIN."))
	if c == nil {
		return nil, InvalidName(name)
	}
	cache.Store(key, c)
	return c, nil
}

// InvalidName is COLLATION_INVALID_NAME with the closest valid names as proposals.
func InvalidName(name string) *sparkerr.Error {
	proposals := strings.Join(suggest(name), ", ")
	return sparkerr.Newf(sparkerr.SparkException, "COLLATION_INVALID_NAME", "42704",
		"The value %s does not represent a correct collation name. Suggested valid collation names: [%s].",
		name, proposals).WithParams("collationName", name, "proposals", proposals)
}

// parse resolves an upper-cased name without the SYSTEM.BUILTIN. prefix, or returns nil.
func parse(upper string) *Collation {
	parts := strings.Split(upper, "_")
	c := &Collation{}
	rest := parts
	switch {
	case len(parts) >= 2 && parts[0] == "UTF8" && parts[1] == "BINARY":
		c.Name, c.Provider, rest = "UTF8_BINARY", Binary, parts[2:]
	case len(parts) >= 2 && parts[0] == "UTF8" && parts[1] == "LCASE":
		c.Name, c.Provider, rest = "UTF8_LCASE", Lowercase, parts[2:]
	case parts[0] == "UNICODE":
		c.Name, c.Provider, rest = "UNICODE", ICU, parts[1:]
	default:
		loadLocales()
		found := false
		for n := min(3, len(parts)); n >= 1 && !found; n-- {
			if i, ok := localeIndex[strings.Join(parts[:n], "_")]; ok {
				c.Locale, c.Name, c.Provider, rest, found = locales[i].Name, locales[i].Name, ICU, parts[n:], true
			}
		}
		if !found {
			return nil
		}
	}
	var seenCase, seenAccent bool
	for _, m := range rest {
		switch {
		case (m == "CS" || m == "CI") && !seenCase && c.Provider == ICU:
			seenCase, c.CaseInsensitive = true, m == "CI"
		case (m == "AS" || m == "AI") && !seenAccent && c.Provider == ICU:
			seenAccent, c.AccentInsensitive = true, m == "AI"
		case m == "RTRIM" && !c.RTrim:
			c.RTrim = true
		default:
			return nil
		}
	}
	if c.CaseInsensitive {
		c.Name += "_CI"
	}
	if c.AccentInsensitive {
		c.Name += "_AI"
	}
	if c.RTrim {
		c.Name += "_RTRIM"
	}
	if c.Provider == ICU {
		c.upperFirst = upperFirstLocales[c.Locale]
		c.collators = newCollators(icuTag(c.Locale), c.CaseInsensitive, c.AccentInsensitive)
	}
	return c
}

// icuTag maps a Spark locale name (language[_Script][_Country], country in ISO 3166 alpha-3)
// to a BCP 47 tag; "" is the root locale (UNICODE).
func icuTag(locale string) language.Tag {
	if locale == "" {
		return language.Und
	}
	parts := strings.Split(locale, "_")
	tag := parts[0]
	for _, p := range parts[1:] {
		if len(p) == 3 {
			if r, err := language.ParseRegion(p); err == nil {
				p = r.String()
			}
		}
		tag += "-" + p
	}
	t, err := language.Parse(tag)
	if err != nil {
		return language.Und
	}
	return t
}
