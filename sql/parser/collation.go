package parser

import (
	"strings"

	"github.com/weirhq/weir/sql/collation"
)

// collationWords parses the name after COLLATE: name or SYSTEM.BUILTIN.name (any case). It
// returns the whole name and its last part, the one Spark renders.
func (p *parser) collationWords() (full, last string) {
	parts := []string{p.anyIdentifier()}
	for p.peek().isOp(".") && (p.peekAt(1).kind == tokWord || p.peekAt(1).kind == tokQuotedIdent) {
		p.pos++
		parts = append(parts, p.anyIdentifier())
	}
	return strings.Join(parts, "."), parts[len(parts)-1]
}

// collationName parses and resolves the name after COLLATE in a type (STRING COLLATE name).
func (p *parser) collationName() *collation.Collation {
	full, _ := p.collationWords()
	c, err := collation.Lookup(full)
	if err != nil {
		p.fail(collation.InvalidName(full))
	}
	return c
}
