package expr

import (
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Errors raised by the query itself (Spark's misc_funcs): raise_error(message) fails with
// USER_RAISED_EXCEPTION (SQLSTATE P0001) carrying the message ("null" for NULL);
// assert_true(condition [, message]) is NULL where the condition is true and fails like
// raise_error elsewhere (false or NULL), the message defaulting to "'<condition>' is not true!".
// Both are of type void (NULL), as in Spark.

func init() {
	registerScalar(1, 1, bindRaiseError, "raise_error")
	registerScalar(1, 2, bindAssertTrue, "assert_true")
}

// userRaised is Spark's USER_RAISED_EXCEPTION with message msg.
func userRaised(msg string) error {
	return sparkerr.New(sparkerr.SparkRuntimeException, "USER_RAISED_EXCEPTION", "P0001", msg).
		WithParams("errorMessage", msg)
}

func bindRaiseError(name string, args []Expr, opts Options) (Expr, error) {
	msg, err := coerceArg(name, args, 0, sqltypes.StringType, opts)
	if err != nil {
		return nil, err
	}
	f := &rowFunc{name: name, args: []Expr{msg}, t: sqltypes.NullType, null: true,
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, userRaised("null")
			}
			return nil, userRaised(a[0].(string))
		}}
	f.text = sqlOf("raise_error(USER_RAISED_EXCEPTION, map(errorMessage, ", args[0], "))")
	return f, nil
}

func bindAssertTrue(name string, args []Expr, opts Options) (Expr, error) {
	cond := args[0]
	if k := cond.Type().Kind; k != sqltypes.Boolean && k != sqltypes.Null {
		return nil, unexpectedInputType(quoteSQL("(IF("+cond.String()+", NULL, raise_error(USER_RAISED_EXCEPTION, map(errorMessage, '"+
			cond.String()+"' is not true!))))"), 0, `"BOOLEAN"`, cond)
	}
	var msg Expr
	if len(args) == 2 {
		m, err := coerceArg(name, args, 1, sqltypes.StringType, opts)
		if err != nil {
			return nil, err
		}
		msg = m
	} else {
		msg = NewLiteral("'"+cond.String()+"' is not true!", sqltypes.StringType)
	}
	f := &rowFunc{name: name, args: []Expr{cond, msg}, t: sqltypes.NullType, null: true,
		fn: func(_ *Context, a []any) (any, error) {
			if ok, _ := a[0].(bool); ok {
				return nil, nil
			}
			if a[1] == nil {
				return nil, userRaised("null")
			}
			return nil, userRaised(a[1].(string))
		}}
	if len(args) == 2 {
		f.text = callText(name, args)
	} else {
		f.text = sqlOf("assert_true(", cond, ", '", cond, "' is not true!)")
	}
	return f, nil
}
