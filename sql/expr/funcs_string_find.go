package expr

import (
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// String functions that pick or find: elt, find_in_set, quote, luhn_check.

func init() {
	registerScalar(2, -1, bindElt, "elt")
	registerScalar(2, 2, bindFindInSet, "find_in_set")
	registerScalar(1, 1, bindQuote, "quote")
	registerScalar(1, 1, bindLuhnCheck, "luhn_check")
}

// bindElt is Spark's Elt: the n-th (1-based) of the inputs, all as strings; NULL when n is
// NULL; an n outside the inputs is INVALID_ARRAY_INDEX under ANSI, else NULL.
func bindElt(name string, args []Expr, opts Options) (Expr, error) {
	n, err := coerceArg(name, args, 0, intType, opts)
	if err != nil {
		return nil, err
	}
	cs := []Expr{n}
	for i := 1; i < len(args); i++ {
		c, err := coerceArg(name, args, i, strType, opts)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	ansi := opts.ANSI
	return &rowFunc{name: name, args: cs, t: strType, null: true, str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			i := toInt64(a[0])
			if i < 1 || i >= int64(len(a)) {
				if ansi {
					return nil, invalidArrayIndex(i, int64(len(a)-1))
				}
				return nil, nil
			}
			return a[i], nil
		}}, nil
}

// bindFindInSet is Spark's FindInSet: the 1-based position of the string in the comma-separated
// list, 0 when absent or when the string itself contains a comma.
func bindFindInSet(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		if strings.Contains(s, ",") {
			return int32(0), nil
		}
		for i, p := range strings.Split(a[1].(string), ",") {
			if p == s {
				return int32(i + 1), nil
			}
		}
		return int32(0), nil
	})
}

// bindQuote is Spark's Quote: the string in single quotes, its single quotes escaped with a
// backslash.
func bindQuote(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		return "'" + strings.ReplaceAll(a[0].(string), "'", `\'`) + "'", nil
	})
}

// bindLuhnCheck is Spark's luhn_check: whether a string of digits passes the Luhn checksum
// (false for an empty string or any non-digit).
func bindLuhnCheck(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, sqltypes.BooleanType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		if s == "" {
			return false, nil
		}
		sum, second := 0, false
		for i := len(s) - 1; i >= 0; i-- {
			c := s[i]
			if c < '0' || c > '9' {
				return false, nil
			}
			d := int(c - '0')
			if second {
				d *= 2
				if d > 9 {
					d -= 9
				}
			}
			sum += d
			second = !second
		}
		return sum%10 == 0, nil
	})
}
