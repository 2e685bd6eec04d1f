package expr

import (
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_binary(str[, fmt]) and try_to_binary: a string read as 'hex' (the default), 'utf-8' /
// 'utf8' or 'base64' (blanks ignored, padding optional), as Spark's ToBinary; malformed input
// is CONVERSION_INVALID_INPUT (NULL for try_to_binary); a format other than those four is a
// DATATYPE_MISMATCH.INVALID_ARG_VALUE (NULL for try_to_binary).

func init() {
	registerScalar(1, 2, bindToBinary, "to_binary", "try_to_binary")
}

func bindToBinary(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	try := name == "try_to_binary"
	format := "hex"
	if len(cs) == 2 {
		v, ok := literalValue(cs[1])
		if !ok {
			return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
				"the input fmt should be a foldable \"STRING\" expression; however, got %s.", quoteSQL(cs[1].String()))
		}
		if v == nil {
			return NewLiteral(nil, sqltypes.BinaryType), nil
		}
		format = strings.ToLower(v.(string))
		switch format {
		case "hex", "utf-8", "utf8", "base64":
		default:
			if try {
				return &rowFunc{name: name, args: cs, t: sqltypes.BinaryType, null: true, str: callString(name, args),
					fn: func(*Context, []any) (any, error) { return nil, nil }}, nil
			}
			return nil, typeMismatch("INVALID_ARG_VALUE", quoteSQL(callString(name, args)),
				"The fmt value must to be a case-insensitive \"STRING\" literal of 'hex', 'utf-8', 'utf8', or 'base64', but got '%s'.", v)
		}
	}
	f := strict(name, cs[:1], sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		out, ok := decodeBinaryFormat(s, format)
		if ok {
			return out, nil
		}
		if try {
			return nil, nil
		}
		return nil, sparkerr.Newf(sparkerr.SparkIllegalArgumentException, "CONVERSION_INVALID_INPUT", "22018",
			"The value '%s' ('%s') cannot be converted to \"BINARY\" because it is malformed. Correct the value as per the syntax, or change its format. Use `try_to_binary` to tolerate malformed input and return NULL instead.",
			s, strings.ToUpper(format))
	})
	if try {
		f.null = true
	}
	f.str = callString(name, args)
	return f, nil
}

func decodeBinaryFormat(s, format string) ([]byte, bool) {
	switch format {
	case "utf-8", "utf8":
		return []byte(s), true
	case "base64":
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
		return b, err == nil
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}
