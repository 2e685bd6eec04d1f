package collation

import (
	"os"
	"strings"
	"testing"
)

// TestRowsMatchSpark compares Rows with Spark 4.2's collations() output (testdata).
func TestRowsMatchSpark(t *testing.T) {
	data, err := os.ReadFile("testdata/collations.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(data)), "\n")
	rows := Rows()
	if len(rows) != len(want) {
		t.Fatalf("%d rows, Spark lists %d", len(rows), len(want))
	}
	null := func(s string) string {
		if s == "" {
			return "NULL"
		}
		return s
	}
	for i, r := range rows {
		got := strings.Join([]string{r.Catalog, r.Schema, r.Name, null(r.Language), null(r.Country),
			r.AccentSensitivity, r.CaseSensitivity, r.PadAttribute, null(r.ICU)}, "\t")
		if got != want[i] {
			t.Errorf("row %d: got %q, Spark %q", i, got, want[i])
		}
	}
}

// TestLookup checks name resolution against the names Spark 4.2 resolved.
func TestLookup(t *testing.T) {
	for in, want := range map[string]string{
		"unicode_ci": "UNICODE_CI", "utf8_lcase": "UTF8_LCASE", "de_CI_AI": "de_CI_AI",
		"de_ci_ai": "de_CI_AI", "sr_Cyrl": "sr_Cyrl", "UNICODE_CS_AS": "UNICODE",
		"unicode_ai": "UNICODE_AI", "EN_ci": "en_CI", "en_USA_CS_AI": "en_USA_AI",
		"UNICODE_AI_CI": "UNICODE_CI_AI", "de_rtrim_ci": "de_CI_RTRIM",
		"unicode_rtrim": "UNICODE_RTRIM", "utf8_lcase_rtrim": "UTF8_LCASE_RTRIM",
		"system.builtin.unicode_ci": "UNICODE_CI", "utf8_binary": "UTF8_BINARY",
	} {
		c, err := Lookup(in)
		if err != nil || c.Name != want {
			t.Errorf("Lookup(%q) = %v, %v; Spark: %s", in, c, err, want)
		}
	}
	for _, in := range []string{"en_US", "xx_bogus", "utf8_lcase_ci", "unicode_cs_ci", "unicode_ci_ci"} {
		if _, err := Lookup(in); err == nil || !strings.Contains(err.Error(), "COLLATION_INVALID_NAME") {
			t.Errorf("Lookup(%q) = %v, want COLLATION_INVALID_NAME", in, err)
		}
	}
}

// TestOrder checks the collations' orders against Spark 4.2's ORDER BY x COLLATE c, x over
// b a B A ä Ä é e E (testdata of the probe, in the comment of each case).
func TestOrder(t *testing.T) {
	in := []string{"b", "a", "B", "A", "ä", "Ä", "é", "e", "E"}
	for name, want := range map[string]string{
		"UNICODE_CI": "A a Ä ä B b E e é",
		"UNICODE":    "a A ä Ä b B e E é",
		"UTF8_LCASE": "A a B b E e Ä ä é",
	} {
		c, _ := Lookup(name)
		got := append([]string(nil), in...)
		sortBy(got, c)
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %s; Spark: %s", name, g, want)
		}
	}
}

func sortBy(s []string, c *Collation) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0; j-- {
			d := c.Compare(s[j-1], s[j])
			if d < 0 || d == 0 && s[j-1] <= s[j] {
				break
			}
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}
