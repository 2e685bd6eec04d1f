package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// UTF-8 validity functions over strings (a binary argument is read as a string of its bytes):
// is_valid_utf8, make_valid_utf8 (each invalid byte becomes U+FFFD), validate_utf8
// (INVALID_UTF8_STRING on an invalid string) and try_validate_utf8 (NULL instead).

func init() {
	registerScalar(1, 1, bindUTF8Check, "is_valid_utf8", "make_valid_utf8", "validate_utf8", "try_validate_utf8")
}

func bindUTF8Check(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	t := strType
	if name == "is_valid_utf8" {
		t = sqltypes.BooleanType
	}
	f := strict(name, cs, t, func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		switch name {
		case "is_valid_utf8":
			return utf8.ValidString(s), nil
		case "make_valid_utf8":
			return makeValidUTF8(s), nil
		case "try_validate_utf8":
			if !utf8.ValidString(s) {
				return nil, nil
			}
			return s, nil
		}
		if !utf8.ValidString(s) {
			return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_UTF8_STRING", "22029",
				"Invalid UTF8 byte sequence found in string: %s.", escapeInvalidUTF8(s))
		}
		return s, nil
	})
	if name == "try_validate_utf8" {
		f.null = true
	}
	f.str = callString(name, args)
	return f, nil
}

func makeValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escapeInvalidUTF8 renders s as Spark's message does: valid characters as they are, each
// invalid byte as \xHH.
func escapeInvalidUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "\\x%02X", s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
