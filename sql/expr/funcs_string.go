package expr

import (
	"encoding/base64"
	"github.com/weirhq/weir/sql/collation"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// String functions.

func init() {
	registerScalar(1, 1, stringMap(strings.ToUpper), "upper", "ucase")
	registerScalar(1, 1, stringMap(strings.ToLower), "lower", "lcase")
	registerScalar(1, 1, stringMap(reverseString), "reverse")
	registerScalar(1, 1, stringMap(initcap), "initcap")
	registerScalar(1, 1, bindLength, "length", "char_length", "character_length", "len")
	registerScalar(1, 1, bindByteLength, "octet_length", "bit_length")
	registerScalar(1, 2, bindTrim, "trim", "ltrim", "rtrim", "btrim")
	registerScalar(2, 3, bindSubstring, "substring", "substr")
	registerScalar(0, -1, bindConcat, "concat")
	registerScalar(1, -1, bindConcatWs, "concat_ws")
	registerScalar(2, 3, bindReplace, "replace")
	registerScalar(2, 2, bindInstr, "instr")
	registerScalar(2, 3, bindLocate, "locate", "position")
	registerScalar(2, 3, bindPad, "lpad", "rpad")
	registerScalar(2, 2, bindRepeat, "repeat")
	registerScalar(1, 1, bindSpace, "space")
	registerScalar(2, 3, bindSplit, "split")
	registerScalar(2, 2, bindStringPredicate, "startswith", "endswith", "contains")
	registerScalar(3, 4, bindRegexpReplace, "regexp_replace")
	registerScalar(2, 3, bindRegexpExtract, "regexp_extract")
	registerScalar(2, 2, bindRegexpLike, "rlike", "regexp", "regexp_like")
	registerScalar(2, 3, bindLike, "like", "ilike")
	registerScalar(1, -1, bindFormatString, "format_string", "printf")
	registerScalar(1, 1, bindASCII, "ascii")
	registerScalar(2, 2, bindLeftRight, "left", "right")
	registerScalar(3, 3, bindTranslate, "translate")
	registerScalar(3, 3, bindSubstringIndex, "substring_index")
	registerScalar(3, 3, bindSplitPart, "split_part")
	registerScalar(1, 1, bindChr, "chr", "char")
	registerScalar(2, 2, bindLevenshtein, "levenshtein")
	registerScalar(3, 4, bindOverlay, "overlay")
	registerScalar(1, 1, bindSoundex, "soundex")
	registerScalar(1, 1, bindBase64, "base64", "unbase64")
	registerScalar(2, 2, bindFormatNumber, "format_number")
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func initcap(s string) string {
	r := []rune(s)
	start := true
	for i, c := range r {
		if start {
			r[i] = unicode.ToUpper(c)
		} else {
			r[i] = unicode.ToLower(c)
		}
		start = c == ' '
	}
	return string(r)
}

// stringMap binds a string → string function.
func stringMap(fn func(string) string) func(string, []Expr, Options) (Expr, error) {
	return func(name string, args []Expr, opts Options) (Expr, error) {
		if name == "reverse" && args[0].Type().Kind == sqltypes.Array {
			t := args[0].Type()
			return strict(name, args, t, func(_ *Context, a []any) (any, error) {
				in := a[0].([]any)
				out := make([]any, len(in))
				for i, v := range in {
					out[len(in)-1-i] = v
				}
				return out, nil
			}), nil
		}
		cs, err := coerceArgs(name, args, opts, sqltypes.StringType)
		if err != nil {
			return nil, err
		}
		if cs[0].Type().Kind == sqltypes.String {
			m := &stringMapExpr{child: cs[0], fn: fn, str: callString(name, args)}
			switch name {
			case "upper", "ucase":
				m.ascii = asciiUpper
			case "lower", "lcase":
				m.ascii = asciiLower
			}
			return m, nil
		}
		f := strict(name, cs, sqltypes.StringType, func(_ *Context, a []any) (any, error) {
			return fn(a[0].(string)), nil
		})
		f.str = callString(name, args)
		return f, nil
	}
}

// strFunc binds a function over string arguments (all coerced to string) with result type t.
func strFunc(name string, args []Expr, opts Options, t sqltypes.DataType, types []sqltypes.DataType, fn func(a []any) (any, error)) (Expr, error) {
	if types == nil {
		types = []sqltypes.DataType{sqltypes.StringType}
	}
	cs, err := coerceArgs(name, args, opts, types...)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, t, func(_ *Context, a []any) (any, error) { return fn(a) })
	f.text = callText(name, args)
	return f, nil
}

var (
	strType = sqltypes.StringType
	intType = sqltypes.IntegerType
)

func bindLength(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind == sqltypes.Binary {
		return strict(name, args, intType, func(_ *Context, a []any) (any, error) {
			return int32(len(a[0].([]byte))), nil
		}), nil
	}
	e, err := strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		return int32(utf8.RuneCountInString(a[0].(string))), nil
	})
	if err == nil {
		e.(*rowFunc).vec = lengthKernel
	}
	return e, err
}

func bindByteLength(name string, args []Expr, opts Options) (Expr, error) {
	mul := int32(1)
	if name == "bit_length" {
		mul = 8
	}
	if args[0].Type().Kind == sqltypes.Binary {
		return strict(name, args, intType, func(_ *Context, a []any) (any, error) {
			return int32(len(a[0].([]byte))) * mul, nil
		}), nil
	}
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		return int32(len(a[0].(string))) * mul, nil
	})
}

func bindTrim(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	e, err := strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		cut := " "
		if len(a) == 2 {
			cut = a[1].(string)
		}
		if !c.BinaryEquality() {
			return trimCollated(c, name, s, cut), nil
		}
		switch name {
		case "ltrim":
			return strings.TrimLeft(s, cut), nil
		case "rtrim":
			return strings.TrimRight(s, cut), nil
		}
		return strings.Trim(s, cut), nil
	})
	if err == nil && len(args) == 2 {
		mode := map[string]string{"trim": "BOTH", "btrim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}[name]
		e.(*rowFunc).str = "TRIM(" + mode + " " + args[1].String() + " FROM " + args[0].String() + ")"
	}
	return e, err
}

// substringSQL is UTF8String.substringSQL: 1-based pos, 0 acts as 1, negative counts from the end.
func substringSQL(s string, pos, length int64) string {
	r := []rune(s)
	n := int64(len(r))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end := n
	if length < n+1 {
		end = start + length
	}
	if start < 0 {
		start = 0
	}
	if end > n {
		end = n
	}
	if start >= end {
		return ""
	}
	return string(r[start:end])
}

func bindSubstring(name string, args []Expr, opts Options) (Expr, error) {
	if args[0].Type().Kind == sqltypes.Binary {
		cs, err := coerceArgs(name, args, opts, sqltypes.BinaryType, intType)
		if err != nil {
			return nil, err
		}
		return strict(name, cs, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
			b := a[0].([]byte)
			l := int64(1 << 40)
			if len(a) == 3 {
				l = toInt64(a[2])
			}
			return []byte(substringBytes(b, toInt64(a[1]), l)), nil
		}), nil
	}
	e, err := strFunc(name, args, opts, strType, []sqltypes.DataType{strType, intType}, func(a []any) (any, error) {
		l := int64(1 << 40)
		if len(a) == 3 {
			l = toInt64(a[2])
		}
		return substringSQL(a[0].(string), toInt64(a[1]), l), nil
	})
	if err == nil {
		e.(*rowFunc).vec = substringKernel
	}
	return e, err
}

func substringBytes(b []byte, pos, length int64) []byte {
	start, end := substringRange(int64(len(b)), pos, length)
	if start >= end {
		return []byte{}
	}
	return b[start:end]
}

func bindConcat(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) > 0 && args[0].Type().Kind == sqltypes.Array {
		t, ok := commonTypeOf(args)
		if !ok || t.Kind != sqltypes.Array {
			return nil, typeMismatch("DATA_DIFF_TYPES", quoteSQL(callString(name, args)),
				"Input to `concat` should all be the same type, but it's [%s].", typesList(args))
		}
		cs, err := castAll(args, t, opts)
		if err != nil {
			return nil, err
		}
		f := strict(name, cs, t, func(_ *Context, a []any) (any, error) {
			var out []any
			for _, x := range a {
				out = append(out, x.([]any)...)
			}
			if out == nil {
				out = []any{}
			}
			return out, nil
		})
		f.size = func(a []any) (int64, error) {
			var n int64
			for _, x := range a {
				n = addBytes(n, addBytes(valueBytes(x, t), mulBytes(int64(len(x.([]any))), goAnyBytes)))
			}
			return n, nil
		}
		f.text = callText(name, args)
		return f, nil
	}
	allBinary := len(args) > 0
	for _, a := range args {
		allBinary = allBinary && a.Type().Kind == sqltypes.Binary
	}
	if allBinary {
		return withSize(strict(name, args, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
			var out []byte
			for _, x := range a {
				out = append(out, x.([]byte)...)
			}
			return out, nil
		}), func(a []any) (int64, error) {
			var n int64
			for _, x := range a {
				n = addBytes(n, int64(len(x.([]byte))))
			}
			return n, nil
		}), nil
	}
	if len(args) == 0 {
		return &renamed{Expr: NewLiteral("", strType), name: "concat()"}, nil
	}
	e, err := strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		var b strings.Builder
		for _, x := range a {
			b.WriteString(x.(string))
		}
		return b.String(), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) {
		var n int64
		for _, x := range a {
			n = addBytes(n, int64(len(x.(string))))
		}
		return n, nil
	}), nil
}

func bindConcatWs(name string, args []Expr, opts Options) (Expr, error) {
	cs := make([]Expr, len(args))
	for i, a := range args {
		if i > 0 && a.Type().Kind == sqltypes.Array {
			c, err := implicitCast(a, sqltypes.ArrayType(strType, true), opts)
			if err != nil {
				return nil, err
			}
			cs[i] = c
			continue
		}
		c, err := coerceArg(name, args, i, strType, opts)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	f := &rowFunc{name: name, args: cs, t: strType, null: cs[0].Nullable(), str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			var parts []string
			for _, x := range a[1:] {
				switch v := x.(type) {
				case string:
					parts = append(parts, v)
				case []any:
					for _, e := range v {
						if e != nil {
							parts = append(parts, e.(string))
						}
					}
				}
			}
			return strings.Join(parts, a[0].(string)), nil
		},
		size: func(a []any) (int64, error) {
			if a[0] == nil {
				return 0, nil
			}
			var n, parts int64
			for _, x := range a[1:] {
				switch v := x.(type) {
				case string:
					n, parts = addBytes(n, int64(len(v))), parts+1
				case []any:
					for _, e := range v {
						if e != nil {
							n, parts = addBytes(n, int64(len(e.(string)))), parts+1
						}
					}
				}
			}
			return addBytes(n, mulBytes(max(parts-1, 0), int64(len(a[0].(string))))), nil
		}}
	return f, nil
}

func bindReplace(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	e, err := strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		s, search := a[0].(string), a[1].(string)
		rep := ""
		if len(a) == 3 {
			rep = a[2].(string)
		}
		if search == "" {
			return s, nil
		}
		if !c.BinaryEquality() {
			return replaceCollated(c, s, search, rep), nil
		}
		return strings.ReplaceAll(s, search, rep), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) {
		s, search := a[0].(string), a[1].(string)
		if search == "" || len(a) < 3 || len(a[2].(string)) <= len(search) {
			return int64(len(s)), nil
		}
		grow := int64(len(a[2].(string)) - len(search))
		n := strings.Count(s, search)
		if !c.BinaryEquality() {
			// A collated match may be shorter than search: count its full length as growth.
			n, grow = len(collatedMatches(c, s, search)), int64(len(a[2].(string)))
		}
		return addBytes(int64(len(s)), mulBytes(int64(n), grow)), nil
	}), nil
}

// runeIndex is the 0-based character index of sub in s at or after character from, or -1,
// matching by collation c.
func runeIndex(c *collation.Collation, s, sub string, from int) int {
	r := []rune(s)
	if from > len(r) {
		return -1
	}
	rest := string(r[from:])
	i, _ := c.Index(rest, sub, 0)
	if i < 0 {
		return -1
	}
	return from + utf8.RuneCountInString(rest[:i])
}

func bindInstr(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		return int32(runeIndex(c, a[0].(string), a[1].(string), 0) + 1), nil
	})
}

func bindLocate(name string, args []Expr, opts Options) (Expr, error) {
	types := []sqltypes.DataType{strType, strType, intType}
	c := collationOf(args[1])
	cs, err := coerceArgs(name, args, opts, types...)
	if err != nil {
		return nil, err
	}
	f := &rowFunc{name: name, args: cs, t: intType, null: cs[0].Nullable() || cs[1].Nullable(), str: callString(name, args),
		fn: func(_ *Context, a []any) (any, error) {
			pos := int64(1)
			if len(a) == 3 {
				if a[2] == nil {
					return int32(0), nil
				}
				pos = toInt64(a[2])
			}
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			if pos < 1 {
				return int32(0), nil
			}
			return int32(runeIndex(c, a[1].(string), a[0].(string), int(pos-1)) + 1), nil
		}}
	return f, nil
}

func bindPad(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 2 {
		args = append(args, NewLiteral(" ", strType))
	}
	e, err := strFunc(name, args, opts, strType, []sqltypes.DataType{strType, intType, strType}, func(a []any) (any, error) {
		return padString(a[0].(string), toInt64(a[1]), a[2].(string), name == "lpad"), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) {
		return padBytes(a[0].(string), toInt64(a[1]), a[2].(string)), nil
	}), nil
}

// padString is UTF8String.lpad/rpad: s cut or padded to n characters with pad repeated (its
// first characters last); an empty pad leaves s as it is.
func padString(s string, n int64, pad string, left bool) string {
	if n <= 0 {
		return ""
	}
	chars := int64(utf8.RuneCountInString(s))
	if chars >= n {
		return substringSQL(s, 1, n)
	}
	if pad == "" {
		return s
	}
	spaces := n - chars
	padChars := int64(utf8.RuneCountInString(pad))
	count, rest := spaces/padChars, spaces%padChars
	remain := substringSQL(pad, 1, rest)
	var b strings.Builder
	b.Grow(len(s) + int(count)*len(pad) + len(remain))
	if !left {
		b.WriteString(s)
	}
	for range count {
		b.WriteString(pad)
	}
	b.WriteString(remain)
	if left {
		b.WriteString(s)
	}
	return b.String()
}

// padBytes is the size of padString's result, computed without building it.
func padBytes(s string, n int64, pad string) int64 {
	if n <= 0 {
		return 0
	}
	chars := int64(utf8.RuneCountInString(s))
	if chars >= n || pad == "" {
		return int64(len(s))
	}
	spaces := n - chars
	padChars := int64(utf8.RuneCountInString(pad))
	count, rest := spaces/padChars, spaces%padChars
	return addBytes(int64(len(s)), addBytes(mulBytes(count, int64(len(pad))), int64(len(substringSQL(pad, 1, rest)))))
}

func bindRepeat(name string, args []Expr, opts Options) (Expr, error) {
	e, err := strFunc(name, args, opts, strType, []sqltypes.DataType{strType, intType}, func(a []any) (any, error) {
		n := toInt64(a[1])
		if n <= 0 {
			return "", nil
		}
		return strings.Repeat(a[0].(string), int(n)), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) {
		n := toInt64(a[1])
		if n <= 0 {
			return 0, nil
		}
		need := mulBytes(int64(len(a[0].(string))), n)
		if need > math.MaxInt32 {
			// UTF8String.repeat: new byte[Math.multiplyExact(numBytes, times)].
			return 0, javaArithmetic("integer overflow")
		}
		return need, nil
	}), nil
}

// bindSpace is space(n): n blanks (none for n < 0).
func bindSpace(name string, args []Expr, opts Options) (Expr, error) {
	e, err := strFunc(name, args, opts, strType, []sqltypes.DataType{intType}, func(a []any) (any, error) {
		return strings.Repeat(" ", int(max(toInt64(a[0]), 0))), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) { return max(toInt64(a[0]), 0), nil }), nil
}

func bindStringPredicate(name string, args []Expr, opts Options) (Expr, error) {
	if c := collationOf(args[0]); !c.BinaryEquality() {
		return strFunc(name, args, opts, sqltypes.BooleanType, nil, func(a []any) (any, error) {
			return collatedPredicate(c, name, a[0].(string), a[1].(string)), nil
		})
	}
	if p, ok := constPattern(args[1]); ok && args[0].Type().Kind == sqltypes.String {
		pred := func(s string) bool { return strings.Contains(s, p) }
		switch name {
		case "startswith":
			pred = func(s string) bool { return strings.HasPrefix(s, p) }
		case "endswith":
			pred = func(s string) bool { return strings.HasSuffix(s, p) }
		}
		return &stringPredicate{child: args[0], pred: pred, str: callText(name, args)}, nil
	}
	return strFunc(name, args, opts, sqltypes.BooleanType, nil, func(a []any) (any, error) {
		s, p := a[0].(string), a[1].(string)
		switch name {
		case "startswith":
			return strings.HasPrefix(s, p), nil
		case "endswith":
			return strings.HasSuffix(s, p), nil
		}
		return strings.Contains(s, p), nil
	})
}

func bindASCII(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		if s == "" {
			return int32(0), nil
		}
		r, _ := utf8.DecodeRuneInString(s)
		return int32(r), nil
	})
}

func bindLeftRight(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, strType, []sqltypes.DataType{strType, intType}, func(a []any) (any, error) {
		r := []rune(a[0].(string))
		n := int(toInt64(a[1]))
		if n <= 0 {
			return "", nil
		}
		if n > len(r) {
			n = len(r)
		}
		if name == "left" {
			return string(r[:n]), nil
		}
		return string(r[len(r)-n:]), nil
	})
}

func bindTranslate(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	return strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		from, to := []rune(a[1].(string)), []rune(a[2].(string))
		if !c.BinaryEquality() {
			return translateCollated(c, a[0].(string), from, to), nil
		}
		m := map[rune]rune{}
		for i, c := range from {
			if _, seen := m[c]; seen {
				continue
			}
			if i < len(to) {
				m[c] = to[i]
			} else {
				m[c] = -1
			}
		}
		var b strings.Builder
		for _, c := range a[0].(string) {
			if r, ok := m[c]; ok {
				if r >= 0 {
					b.WriteRune(r)
				}
				continue
			}
			b.WriteRune(c)
		}
		return b.String(), nil
	})
}

func bindSubstringIndex(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	return strFunc(name, args, opts, strType, []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		s, delim, n := a[0].(string), a[1].(string), int(toInt64(a[2]))
		if delim == "" || n == 0 {
			return "", nil
		}
		// The delimiters are the matches of delim (under the string's collation).
		m, ok := nthMatch(c, s, delim, n)
		switch {
		case !ok:
			return s, nil
		case n > 0:
			return s[:m[0]], nil
		}
		return s[m[1]:], nil
	})
}

func bindSplitPart(name string, args []Expr, opts Options) (Expr, error) {
	c := collationOf(args[0])
	return strFunc(name, args, opts, strType, []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		s, delim, n := a[0].(string), a[1].(string), int(toInt64(a[2]))
		if n == 0 {
			return nil, sparkerr.New(sparkerr.SparkRuntimeException, "INVALID_INDEX_OF_ZERO", "22003",
				"The index 0 is invalid. An index shall be either < 0 or > 0 (the first element has index 1).")
		}
		var parts []string
		if delim == "" {
			parts = []string{s}
		} else {
			parts = splitCollated(c, s, delim)
		}
		if n < 0 {
			n = len(parts) + n + 1
		}
		if n < 1 || n > len(parts) {
			return "", nil
		}
		return parts[n-1], nil
	})
}

func bindChr(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, sqltypes.LongType)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		n := toInt64(a[0])
		if n < 0 {
			return "", nil
		}
		return string(rune(n % 256)), nil
	})
	f.str = callString(name, args)
	return f, nil
}

func bindLevenshtein(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, intType, nil, func(a []any) (any, error) {
		x, y := []rune(a[0].(string)), []rune(a[1].(string))
		prev := make([]int, len(y)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(x); i++ {
			cur := make([]int, len(y)+1)
			cur[0] = i
			for j := 1; j <= len(y); j++ {
				cost := 1
				if x[i-1] == y[j-1] {
					cost = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			}
			prev = cur
		}
		return int32(prev[len(y)]), nil
	})
}

func bindOverlay(name string, args []Expr, opts Options) (Expr, error) {
	types := []sqltypes.DataType{strType, strType, intType, intType}
	cs, err := coerceArgs(name, args, opts, types...)
	if err != nil {
		return nil, err
	}
	f := strict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		in, rep := []rune(a[0].(string)), a[1].(string)
		pos := int(toInt64(a[2]))
		l := len([]rune(rep))
		if len(a) == 4 && toInt64(a[3]) >= 0 {
			l = int(toInt64(a[3]))
		}
		head := substringSQL(string(in), 1, int64(pos-1))
		tail := substringSQL(string(in), int64(pos+l), 1<<40)
		return head + rep + tail, nil
	})
	f.text = callText(name, args)
	return f, nil
}

func bindSoundex(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		s := a[0].(string)
		if s == "" || !unicode.IsLetter(rune(s[0])) {
			return s, nil
		}
		code := func(c rune) byte {
			switch unicode.ToUpper(c) {
			case 'B', 'F', 'P', 'V':
				return '1'
			case 'C', 'G', 'J', 'K', 'Q', 'S', 'X', 'Z':
				return '2'
			case 'D', 'T':
				return '3'
			case 'L':
				return '4'
			case 'M', 'N':
				return '5'
			case 'R':
				return '6'
			case 'H', 'W':
				return 'h'
			}
			return '0'
		}
		out := []byte{byte(unicode.ToUpper(rune(s[0])))}
		last := code(rune(s[0]))
		for _, c := range s[1:] {
			if len(out) == 4 {
				break
			}
			k := code(c)
			if k == 'h' {
				continue
			}
			if k != '0' && k != last {
				out = append(out, k)
			}
			last = k
		}
		for len(out) < 4 {
			out = append(out, '0')
		}
		return string(out), nil
	})
}

// bindBase64 is base64 (binary, or a string's UTF-8 bytes, to base64 text) and unbase64 (base64
// text, padded or not, to binary; NULL when the text is not base64).
func bindBase64(name string, args []Expr, opts Options) (Expr, error) {
	if name == "unbase64" {
		s, err := coerceArg(name, args, 0, strType, opts)
		if err != nil {
			return nil, err
		}
		f := nullableStrict(name, []Expr{s}, sqltypes.BinaryType, func(_ *Context, a []any) (any, error) {
			in := a[0].(string)
			b, err := base64.StdEncoding.DecodeString(in)
			if err != nil {
				b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(in, "="))
				if err != nil {
					return nil, nil
				}
			}
			return b, nil
		})
		f.text = callText(name, args)
		return f, nil
	}
	b, err := binaryArg(name, args, opts)
	if err != nil {
		return nil, err
	}
	f := strict(name, []Expr{b}, strType, func(_ *Context, a []any) (any, error) {
		return base64.StdEncoding.EncodeToString(a[0].([]byte)), nil
	})
	f.text = callText(name, args)
	return f, nil
}
