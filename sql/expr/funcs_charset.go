package expr

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Character sets (Spark 4's Encode / StringDecode): encode(str, charset) → binary and
// decode(bin, charset) → string over the charsets Spark accepts without
// spark.sql.legacy.javaCharsets, any letter case. A character the charset cannot hold, or bytes
// that are not valid in it, fail with MALFORMED_CHARACTER_CODING (Spark's default
// spark.sql.legacy.codingErrorAction = false); another charset name fails with
// INVALID_PARAMETER_VALUE.CHARSET. decode with more than two arguments is the other decode:
// decode(expr, search, result [, search, result]… [, default]), CASE WHEN expr <=> search ….

func init() {
	registerScalar(2, 2, bindCharset, "encode")
	registerScalar(2, -1, bindCharset, "decode")
}

// charsets are Spark's accepted names, in its error message's order.
var charsets = []string{"iso-8859-1", "us-ascii", "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-8"}

func bindCharset(name string, args []Expr, opts Options) (Expr, error) {
	if name == "decode" && len(args) > 2 {
		return bindDecodeCases(args, opts)
	}
	in := sqltypes.StringType
	out := sqltypes.BinaryType
	if name == "decode" {
		in, out = sqltypes.BinaryType, sqltypes.StringType
	}
	a, err := coerceArg(name, args, 0, in, opts)
	if err != nil {
		return nil, err
	}
	cs, err := coerceArg(name, args, 1, sqltypes.StringType, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{a, cs}, out, func(_ *Context, v []any) (any, error) {
		charset := strings.ToLower(v[1].(string))
		known := false
		for _, c := range charsets {
			known = known || c == charset
		}
		if !known {
			return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_PARAMETER_VALUE.CHARSET", "22023",
				"The value of parameter(s) `charset` in `%s` is invalid: expects one of the %s, but got %s.",
				name, strings.Join(charsets, ", "), v[1].(string)).WithParams("parameter", "`charset`", "functionName", "`"+name+"`")
		}
		var res any
		ok := true
		if name == "encode" {
			res, ok = encodeCharset(v[0].(string), charset)
		} else {
			res, ok = decodeCharset(v[0].([]byte), charset)
		}
		if !ok {
			return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "MALFORMED_CHARACTER_CODING", "22000",
				"Invalid value found when performing `%s` with %s", name, charset).WithParams("function", "`"+name+"`", "charset", charset)
		}
		return res, nil
	})
	f.text = callText(name, args)
	return f, nil
}

// encodeCharset encodes s (UTF-8) in charset; false when a character has no encoding there.
func encodeCharset(s, charset string) ([]byte, bool) {
	switch charset {
	case "utf-8":
		return []byte(s), utf8.ValidString(s)
	case "us-ascii", "iso-8859-1":
		limit := rune(0x7f)
		if charset == "iso-8859-1" {
			limit = 0xff
		}
		out := make([]byte, 0, len(s))
		for _, r := range s {
			if r > limit || r == utf8.RuneError {
				return nil, false
			}
			out = append(out, byte(r))
		}
		return out, true
	case "utf-32":
		out := make([]byte, 0, 4*len(s))
		for _, r := range s {
			if r == utf8.RuneError {
				return nil, false
			}
			out = binary.BigEndian.AppendUint32(out, uint32(r))
		}
		return out, true
	}
	// UTF-16: big-endian with a byte-order mark (as Java's "UTF-16" encoder), or without one.
	var out []byte
	order := binary.AppendByteOrder(binary.BigEndian)
	switch charset {
	case "utf-16":
		out = []byte{0xfe, 0xff}
	case "utf-16le":
		order = binary.LittleEndian
	}
	for _, r := range s {
		if r == utf8.RuneError {
			return nil, false
		}
		for _, u := range utf16.Encode([]rune{r}) {
			out = order.AppendUint16(out, u)
		}
	}
	if out == nil {
		out = []byte{}
	}
	return out, true
}

// decodeCharset decodes b from charset into UTF-8; false when b is not valid there.
func decodeCharset(b []byte, charset string) (string, bool) {
	switch charset {
	case "utf-8":
		return string(b), utf8.Valid(b)
	case "us-ascii", "iso-8859-1":
		var sb strings.Builder
		for _, c := range b {
			if charset == "us-ascii" && c > 0x7f {
				return "", false
			}
			sb.WriteRune(rune(c))
		}
		return sb.String(), true
	case "utf-32":
		if len(b)%4 != 0 {
			return "", false
		}
		var sb strings.Builder
		for i := 0; i < len(b); i += 4 {
			r := rune(binary.BigEndian.Uint32(b[i:]))
			if !utf8.ValidRune(r) {
				return "", false
			}
			sb.WriteRune(r)
		}
		return sb.String(), true
	}
	order := binary.ByteOrder(binary.BigEndian)
	switch {
	case charset == "utf-16le":
		order = binary.LittleEndian
	case charset == "utf-16" && len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		b = b[2:]
	case charset == "utf-16" && len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe:
		b, order = b[2:], binary.LittleEndian
	}
	if len(b)%2 != 0 {
		return "", false
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = order.Uint16(b[2*i:])
	}
	for i := 0; i < len(units); i++ { // unpaired surrogates are malformed
		switch u := units[i]; {
		case u >= 0xd800 && u < 0xdc00:
			if i+1 >= len(units) || units[i+1] < 0xdc00 || units[i+1] >= 0xe000 {
				return "", false
			}
			i++
		case u >= 0xdc00 && u < 0xe000:
			return "", false
		}
	}
	return string(utf16.Decode(units)), true
}

// bindDecodeCases is decode(expr, search, result [, search, result]… [, default]): the result
// of the first search equal to expr (NULL equal to NULL), else default (NULL without one).
func bindDecodeCases(args []Expr, opts Options) (Expr, error) {
	var whenArgs []Expr
	i := 1
	for ; i+1 < len(args); i += 2 {
		eq, err := bindComparison("<=>", []Expr{args[0], args[i]}, opts)
		if err != nil {
			return nil, err
		}
		whenArgs = append(whenArgs, eq, args[i+1])
	}
	if i < len(args) {
		whenArgs = append(whenArgs, args[i])
	}
	e, err := bindWhen("when", whenArgs, opts)
	if err != nil {
		return nil, err
	}
	e.(*caseWhen).str = callText("decode", args)
	return e, nil
}
