package expr

import "strings"

// JSONSingleQuotes rewrites JSON text that quotes strings or field names with single quotes
// (Jackson's ALLOW_SINGLE_QUOTES, on by default in Spark's JSON reader and from_json:
// `{'a': 'x'}`) into standard JSON; text without a single quote outside double-quoted strings is
// returned unchanged. Inside a single-quoted string `\'` is a quote and `"` is escaped; other
// escapes are kept. An unterminated string is left for the JSON parser to refuse.
func JSONSingleQuotes(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"': // a double-quoted string, copied as is
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				b.WriteString(s[i:])
				return b.String()
			}
			b.WriteString(s[i : j+1])
			i = j
		case '\'':
			b.WriteByte('"')
			j := i + 1
			for ; j < len(s) && s[j] != '\''; j++ {
				switch {
				case s[j] == '\\' && j+1 < len(s) && s[j+1] == '\'':
					b.WriteByte('\'')
					j++
				case s[j] == '\\' && j+1 < len(s):
					b.WriteByte('\\')
					b.WriteByte(s[j+1])
					j++
				case s[j] == '"':
					b.WriteString(`\"`)
				default:
					b.WriteByte(s[j])
				}
			}
			if j >= len(s) {
				return b.String() // unterminated: the parser refuses it
			}
			b.WriteByte('"')
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
