package collation

import (
	"sort"
	"strings"
)

// Row is one row of collations(): the columns CATALOG, SCHEMA, NAME, LANGUAGE, COUNTRY,
// ACCENT_SENSITIVITY, CASE_SENSITIVITY, PAD_ATTRIBUTE, ICU_VERSION ("" is NULL).
type Row struct {
	Catalog, Schema, Name, Language, Country              string
	AccentSensitivity, CaseSensitivity, PadAttribute, ICU string
}

// ICUVersion is the ICU version Spark 4.2's collations() reports for ICU collations.
const ICUVersion = "78.3.0.0"

// icuSuffixes are an ICU collation's modifier combinations in Spark's listing order.
var icuSuffixes = []string{"", "_AI", "_AI_RTRIM", "_CI", "_CI_AI", "_CI_AI_RTRIM", "_CI_RTRIM", "_RTRIM"}

// Rows lists every collation as Spark 4.2's collations() does: the UTF8 ones, then the ICU
// ones by name.
func Rows() []Row {
	var rows []Row
	for _, n := range []string{"UTF8_BINARY", "UTF8_LCASE", "UTF8_BINARY_RTRIM", "UTF8_LCASE_RTRIM"} {
		rows = append(rows, row(n, "", ""))
	}
	for _, s := range icuSuffixes {
		rows = append(rows, row("UNICODE"+s, "", ""))
	}
	for _, l := range Locales() {
		for _, s := range icuSuffixes {
			rows = append(rows, row(l.Name+s, l.Language, l.Country))
		}
	}
	icu := rows[4:]
	sort.Slice(icu, func(i, j int) bool { return icu[i].Name < icu[j].Name })
	return rows
}

func row(name, lang, country string) Row {
	c, err := Lookup(name)
	if err != nil {
		panic("collation listing names an invalid collation " + name)
	}
	r := Row{Catalog: "SYSTEM", Schema: "BUILTIN", Name: c.Name, Language: lang, Country: country,
		AccentSensitivity: "ACCENT_SENSITIVE", CaseSensitivity: "CASE_SENSITIVE", PadAttribute: "NO_PAD"}
	if c.AccentInsensitive {
		r.AccentSensitivity = "ACCENT_INSENSITIVE"
	}
	if c.CaseInsensitive || c.Provider == Lowercase {
		r.CaseSensitivity = "CASE_INSENSITIVE"
	}
	if c.RTrim {
		r.PadAttribute = "RTRIM"
	}
	if c.Provider == ICU {
		r.ICU = ICUVersion
	}
	return r
}

// suggest returns the listed collation name sharing the longest prefix with name
// (case-insensitive), the first listed on a tie.
func suggest(name string) []string {
	best, bestN := "", -1
	u := strings.ToUpper(name)
	for _, r := range Rows() {
		n, cand := 0, strings.ToUpper(r.Name)
		for n < len(u) && n < len(cand) && u[n] == cand[n] {
			n++
		}
		if n > bestN {
			best, bestN = r.Name, n
		}
	}
	return []string{best}
}
