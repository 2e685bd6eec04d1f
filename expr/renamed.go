package expr

import "github.com/apache/arrow-go/v18/arrow/decimal128"

type decimalNum = decimal128.Num

// renamed is an expression evaluated as Expr but rendered as name (functions Spark rewrites into
// others, e.g. nvl → coalesce, keep their call's rendering).
type renamed struct {
	Expr
	name string
}

func (r *renamed) String() string { return r.name }
