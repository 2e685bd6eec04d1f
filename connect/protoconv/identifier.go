package protoconv

import (
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// SplitIdentifier splits a multi-part name ("a.b", "`a.b`.c", "`a“b`") into its parts the way
// Spark's UnresolvedAttribute.parseAttributeName does: dots separate parts, backquotes quote a
// whole part, and a doubled backquote inside quotes is a literal backquote.
func SplitIdentifier(name string) ([]string, error) {
	bad := func() error {
		return sparkerr.Analysis("INVALID_ATTRIBUTE_NAME_SYNTAX", "42601",
			"Syntax error in the attribute name: %s. Check that backticks appear in pairs, a quoted string is a complete name part and use a backtick only inside quoted name parts.",
			name).WithParams("name", name)
	}
	var parts []string
	var cur strings.Builder
	inQuote := false
	// quotedPart is true when the current part was a complete quoted part.
	quotedPart := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if inQuote {
			if c != '`' {
				cur.WriteByte(c)
				continue
			}
			if i+1 < len(name) && name[i+1] == '`' {
				cur.WriteByte('`')
				i++
				continue
			}
			inQuote = false
			quotedPart = true
			if i+1 < len(name) && name[i+1] != '.' {
				return nil, bad()
			}
			continue
		}
		switch c {
		case '`':
			if cur.Len() > 0 || quotedPart {
				return nil, bad()
			}
			inQuote = true
		case '.':
			if i == 0 || name[i-1] == '.' || i == len(name)-1 {
				return nil, bad()
			}
			parts = append(parts, cur.String())
			cur.Reset()
			quotedPart = false
		default:
			cur.WriteByte(c)
		}
	}
	if inQuote {
		return nil, bad()
	}
	return append(parts, cur.String()), nil
}
