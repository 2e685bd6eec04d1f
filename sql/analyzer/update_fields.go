package analyzer

import (
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// bindUpdateFields binds Column.withField / dropFields as Spark's UpdateFields.apply does: the
// field name is a multipart identifier (a.b, `a.b`); a nested path sets the first part to the
// inner struct (read from the struct being updated) updated by the rest.
func (b *binder) bindUpdateFields(u plan.UpdateFields) (expr.Expr, error) {
	base, err := b.bind(u.Struct)
	if err != nil {
		return nil, err
	}
	var value expr.Expr
	if u.Value != nil {
		if value, err = b.bind(u.Value); err != nil {
			return nil, err
		}
	}
	path := []string{""}
	if u.Field != "" {
		if path, err = parser.ParseMultipartIdentifier(u.Field); err != nil {
			return nil, err
		}
	}
	return b.updateFieldPath(base, path, value)
}

func (b *binder) updateFieldPath(base expr.Expr, path []string, value expr.Expr) (expr.Expr, error) {
	if len(path) > 1 {
		inner, err := expr.BindExtractValue(base, expr.NewLiteral(path[0], sqltypes.StringType))
		if err != nil {
			return nil, err
		}
		if value, err = b.updateFieldPath(inner, path[1:], value); err != nil {
			return nil, err
		}
	}
	return expr.UpdateFields(base, []expr.FieldUpdate{{Name: path[0], Value: value}}, b.a.CaseSensitive)
}

// updateFieldsChildren are the struct and value (when set) of a withField / dropFields.
func updateFieldsChildren(u plan.UpdateFields) []plan.Expr {
	if u.Value == nil {
		return []plan.Expr{u.Struct}
	}
	return []plan.Expr{u.Struct, u.Value}
}
