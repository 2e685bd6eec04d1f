package analyzer

import (
	"sort"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// maxSuggestions is how many candidates Spark lists in UNRESOLVED_COLUMN.WITH_SUGGESTION.
const maxSuggestions = 5

// orderSuggestions is Spark's StringUtils.orderSuggestedIdentifiersBySimilarity followed by
// take(5): qualifiers shared by all candidates are stripped, candidates are quoted and sorted
// (stably) by Levenshtein distance to the unresolved name.
func orderSuggestions(name []string, candidates [][]string) []string {
	base := strings.Join(name, ".")
	stripped := candidates
	switch {
	case len(name) == 1 && sameQualifier(candidates, 1):
		stripped = takeRight(candidates, 1)
	case len(name) <= 2 && sameQualifier(candidates, 2):
		stripped = takeRight(candidates, 2)
	}
	quoted := make([]string, len(stripped))
	dist := make([]int, len(stripped))
	for i, c := range stripped {
		quoted[i] = sparkerr.Quote(c...)
		dist[i] = levenshtein(quoted[i], base)
	}
	order := make([]int, len(quoted))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return dist[order[i]] < dist[order[j]] })
	out := make([]string, 0, maxSuggestions)
	for _, i := range order {
		if len(out) == maxSuggestions {
			break
		}
		out = append(out, quoted[i])
	}
	return out
}

// sameQualifier reports whether all candidates share the same parts before their last drop
// parts (Spark's candidates.groupBy(_.dropRight(drop)).size == 1).
func sameQualifier(cands [][]string, drop int) bool {
	if len(cands) == 0 {
		return false
	}
	key := func(c []string) string {
		n := len(c) - drop
		if n < 0 {
			n = 0
		}
		return strings.Join(c[:n], "\x00") + "\x01" + string(rune('0'+n))
	}
	first := key(cands[0])
	for _, c := range cands[1:] {
		if key(c) != first {
			return false
		}
	}
	return true
}

func takeRight(cands [][]string, n int) [][]string {
	out := make([][]string, len(cands))
	for i, c := range cands {
		if len(c) > n {
			c = c[len(c)-n:]
		}
		out[i] = c
	}
	return out
}

// levenshtein is the edit distance between a and b over UTF-16-like code points (runes).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// unresolvedColumn is UNRESOLVED_COLUMN.WITH_SUGGESTION (or WITHOUT_SUGGESTION when the input
// has no columns) with Spark's ordered suggestions; candidates are qualifier ++ name.
func unresolvedColumn(name []string, candidates [][]string) *sparkerr.Error {
	if len(candidates) == 0 {
		return sparkerr.Analysis("UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "42703",
			"A column, variable, or function parameter with name %s cannot be resolved.",
			sparkerr.Quote(name...)).WithParams("objectName", sparkerr.Quote(name...))
	}
	sugg := orderSuggestions(name, candidates)
	e := sparkerr.UnresolvedColumn(name, nil)
	proposal := "[" + strings.Join(sugg, ", ") + "]"
	e.Message = "A column, variable, or function parameter with name " + sparkerr.Quote(name...) +
		" cannot be resolved. Did you mean one of the following? " + proposal + "."
	e.Params["proposal"] = proposal
	return e
}

// candidateNames lists the columns of r as qualifier ++ name.
func candidateNames(cols []column) [][]string {
	out := make([][]string, 0, len(cols))
	for _, c := range cols {
		if !c.hidden {
			out = append(out, append(append([]string{}, c.qualifier...), c.name))
		}
	}
	return out
}
