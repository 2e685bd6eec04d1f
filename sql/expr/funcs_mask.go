package expr

import (
	"strings"
	"unicode"
)

// mask(str[, upper[, lower[, digit[, other]]]]): upper-case letters become upper ('X' by
// default), lower-case ones lower ('x'), digits digit ('n'), other characters other (kept by
// default); a NULL replacement keeps that class as it is. Spark's Mask.

func init() {
	registerScalar(1, 5, bindMask, "mask")
}

func bindMask(name string, args []Expr, opts Options) (Expr, error) {
	defaults := []Expr{NewLiteral("X", strType), NewLiteral("x", strType), NewLiteral("n", strType), NewLiteral(nil, strType)}
	full := append(append([]Expr{}, args...), defaults[len(args)-1:]...)
	cs, err := coerceArgs(name, full, opts, strType)
	if err != nil {
		return nil, err
	}
	return &rowFunc{name: name, args: cs, t: strType, null: cs[0].Nullable(), str: callString(name, full),
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			repl := func(i int) (rune, bool) {
				if a[i] == nil {
					return 0, false
				}
				r := []rune(a[i].(string))
				if len(r) == 0 {
					return 0, false
				}
				return r[0], true
			}
			var b strings.Builder
			for _, c := range a[0].(string) {
				class := 4
				switch {
				case unicode.IsUpper(c):
					class = 1
				case unicode.IsLower(c):
					class = 2
				case unicode.IsDigit(c):
					class = 3
				}
				if r, ok := repl(class); ok {
					b.WriteRune(r)
				} else {
					b.WriteRune(c)
				}
			}
			return b.String(), nil
		}}, nil
}
