package analyzer

import (
	"reflect"
	"testing"
)

func TestOrderSuggestions(t *testing.T) {
	cases := []struct {
		name  []string
		cands [][]string
		want  []string
	}{
		// One shared qualifier is stripped; ties keep input order.
		{[]string{"bb"}, [][]string{{"t", "a"}, {"t", "b"}, {"t", "c"}}, []string{"`b`", "`a`", "`c`"}},
		// Different qualifiers are kept (and the quoting counts in the distance, as in Spark).
		{[]string{"aa"}, [][]string{{"t", "a"}, {"u", "x"}, {"u", "aa"}},
			[]string{"`t`.`a`", "`u`.`aa`", "`u`.`x`"}},
		// At most five.
		{[]string{"x"}, [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"x"}}, []string{"`x`", "`a`", "`b`", "`c`", "`d`"}},
	}
	for _, c := range cases {
		if got := orderSuggestions(c.name, c.cands); !reflect.DeepEqual(got, c.want) {
			t.Errorf("orderSuggestions(%v, %v) = %v, want %v", c.name, c.cands, got, c.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"`a`", "a", 2}, {"same", "same", 0}} {
		if got := levenshtein(c.a, c.b); got != c.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
