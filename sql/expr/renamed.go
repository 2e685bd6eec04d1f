package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

type decimalNum = decimal128.Num

// renamed is an expression evaluated as Expr but rendered as name (functions Spark rewrites into
// others, e.g. nvl → coalesce, keep their call's rendering).
type renamed struct {
	Expr
	name string
	// text, when set, is the rendering kept lazily (see sqlText) instead of name.
	text sqlText
}

func (r *renamed) String() string {
	if r.text != nil {
		return r.text.String()
	}
	return r.name
}

func (r *renamed) writeSQL(b *strings.Builder) {
	if r.text != nil {
		r.text.write(b)
		return
	}
	b.WriteString(r.name)
}
