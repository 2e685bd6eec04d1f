package expr

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Regular expression and LIKE functions (Java regex syntax, run with RE2).

// compileJavaRegex compiles a Java regex (RE2 subset) with caching (regex_cache.go).
func compileJavaRegex(p string) (*regexp.Regexp, error) {
	if r, ok := compiledRegexes.get(p); ok {
		return r, nil
	}
	r, err := regexp.Compile(p)
	if err != nil {
		return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.PATTERN", "22023",
			"The value of parameter(s) `regexp` in `regexp` is invalid: %s", err).Wrap(err)
	}
	compiledRegexes.put(p, r)
	return r, nil
}

func bindSplit(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, sqltypes.ArrayType(strType, false), []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		limit := -1
		if len(a) == 3 {
			limit = int(toInt64(a[2]))
		}
		if limit == 0 {
			limit = -1
		}
		s := a[0].(string)
		var parts []string
		if a[1].(string) == "" {
			parts = strings.Split(s, "")
			if limit > 0 && len(parts) > limit {
				parts = append(parts[:limit-1], strings.Join(parts[limit-1:], ""))
			}
		} else {
			re, err := compileJavaRegex(a[1].(string))
			if err != nil {
				return nil, err
			}
			parts = re.Split(s, limit)
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	})
}

// javaReplacement converts Java's $n / ${name} replacement syntax to Go's.
func javaReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\' && i+1 < len(r):
			i++
			if r[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(r[i])
			}
		case c == '$' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			j := i + 1
			for j < len(r) && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			b.WriteString("${" + r[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func bindRegexpReplace(name string, args []Expr, opts Options) (Expr, error) {
	e, err := strFunc(name, args, opts, strType, []sqltypes.DataType{strType, strType, strType, intType}, func(a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		prefix, rest, ok := replaceFrom(a)
		if !ok {
			return a[0], nil
		}
		return prefix + re.ReplaceAllString(rest, javaReplacement(a[2].(string))), nil
	})
	if err != nil {
		return nil, err
	}
	return withSize(e, func(a []any) (int64, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return 0, err
		}
		prefix, rest, ok := replaceFrom(a)
		if !ok {
			return int64(len(prefix)), nil
		}
		return regexpReplaceBytes(re, prefix, rest, javaReplacement(a[2].(string))), nil
	}), nil
}

// replaceFrom splits regexp_replace's subject at its position argument (1-based characters);
// false (and the whole subject as prefix) when the position is past its end, where Spark returns
// the subject unchanged.
func replaceFrom(a []any) (prefix, rest string, ok bool) {
	s := a[0].(string)
	pos := int64(1)
	if len(a) == 4 {
		pos = toInt64(a[3])
	}
	pos = max(pos, 1)
	if pos == 1 {
		return "", s, true
	}
	r := []rune(s)
	if int64(len(r)) <= pos-1 {
		return s, "", false
	}
	return string(r[:pos-1]), string(r[pos-1:]), true
}

// regexpReplaceBytes bounds the size of regexp_replace's result without building it: each match
// becomes the template with every group reference at most the whole match. When the bound from
// the most matches rest can have is under 64 KiB it is returned as is; otherwise the matches are
// counted (one pass that keeps only the unmatched text).
func regexpReplaceBytes(re *regexp.Regexp, prefix, rest, template string) int64 {
	// tmpl: the template's literal bytes; refs: its group references (${n}).
	refs, tmpl := int64(0), int64(len(template))
	for rest := template; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		refs, tmpl = refs+1, tmpl-int64(j+1)
		rest = rest[i+j+1:]
	}
	maxMatches := int64(utf8.RuneCountInString(rest)) + 1
	crude := addBytes(int64(len(prefix)+len(rest)), mulBytes(maxMatches, addBytes(tmpl, mulBytes(refs, int64(len(rest))))))
	if crude <= 64<<10 {
		return crude
	}
	size := int64(len(prefix))
	kept := re.ReplaceAllStringFunc(rest, func(m string) string {
		size = addBytes(size, addBytes(tmpl, mulBytes(refs, int64(len(m)))))
		return ""
	})
	return addBytes(size, int64(len(kept)))
}

func bindRegexpExtract(name string, args []Expr, opts Options) (Expr, error) {
	if len(args) == 2 {
		args = append(args, NewLiteral(int32(1), intType))
	}
	return strFunc(name, args, opts, strType, []sqltypes.DataType{strType, strType, intType}, func(a []any) (any, error) {
		re, err := compileJavaRegex(a[1].(string))
		if err != nil {
			return nil, err
		}
		idx := int(toInt64(a[2]))
		if idx < 0 || idx > re.NumSubexp() {
			return nil, sparkerr.Newf(sparkerr.SparkRuntimeException, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX", "22023",
				"The value of parameter(s) `idx` in `regexp_extract` is invalid: Expects group index between 0 and %d, but got %d.", re.NumSubexp(), idx)
		}
		m := re.FindStringSubmatch(a[0].(string))
		if m == nil {
			return "", nil
		}
		return m[idx], nil
	})
}

func bindRegexpLike(name string, args []Expr, opts Options) (Expr, error) {
	flags, err := regexCollation(name, args)
	if err != nil {
		return nil, err
	}
	if pat, ok := constPattern(args[1]); ok && args[0].Type().Kind == sqltypes.String {
		re, err := compileJavaRegex(flags + pat)
		if err != nil {
			return nil, err
		}
		return &stringPredicate{child: args[0], pred: re.MatchString,
			str: sqlOf(strings.ToUpper(name)+"(", args[0], ", ", args[1], ")")}, nil
	}
	e, err := strFunc(name, args, opts, sqltypes.BooleanType, nil, func(a []any) (any, error) {
		re, err := compileJavaRegex(flags + a[1].(string))
		if err != nil {
			return nil, err
		}
		return re.MatchString(a[0].(string)), nil
	})
	if err == nil {
		e.(*rowFunc).text = sqlOf(strings.ToUpper(name)+"(", args[0], ", ", args[1], ")")
	}
	return e, err
}

// likeToRegex converts a SQL LIKE pattern with escape character esc to an anchored regex.
func likeToRegex(p string, esc rune, ci bool) string {
	var b strings.Builder
	b.WriteString("(?s)")
	if ci {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	r := []rune(p)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == esc && i+1 < len(r):
			i++
			b.WriteString(regexp.QuoteMeta(string(r[i])))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

func bindLike(name string, args []Expr, opts Options) (Expr, error) {
	esc := '\\'
	if len(args) == 3 {
		v, ok := literalValue(args[2])
		s, _ := v.(string)
		if !ok || utf8.RuneCountInString(s) != 1 {
			return nil, typeMismatch("INVALID_ESCAPE_CHAR", quoteSQL(callString(name, args)), "the escape character must be a single character string literal")
		}
		esc, _ = utf8.DecodeRuneInString(s)
		args = args[:2]
	}
	lcase, err := likeCollation(name, args)
	if err != nil {
		return nil, err
	}
	ci := name == "ilike" || lcase
	if pat, ok := constPattern(args[1]); ok && args[0].Type().Kind == sqltypes.String {
		pred, err := likePredicate(pat, esc, ci)
		if err != nil {
			return nil, err
		}
		return &stringPredicate{child: args[0], pred: pred,
			str: sqlOf(args[0], " "+strings.ToUpper(name)+" ", args[1])}, nil
	}
	e, err := strFunc(name, args, opts, sqltypes.BooleanType, nil, func(a []any) (any, error) {
		re, err := compileJavaRegex(likeToRegex(a[1].(string), esc, ci))
		if err != nil {
			return nil, err
		}
		return re.MatchString(a[0].(string)), nil
	})
	if err == nil {
		e.(*rowFunc).text = sqlOf(args[0], " "+strings.ToUpper(name)+" ", args[1])
	}
	return e, err
}
