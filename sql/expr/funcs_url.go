package expr

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// URL functions: url_encode and url_decode as Java's URLEncoder/URLDecoder (UTF-8, form
// encoding: a space is '+'), parse_url as Spark's ParseUrl over java.net.URI; the try_ forms
// give NULL where the others fail (CANNOT_DECODE_URL, INVALID_URL).

func init() {
	registerScalar(1, 1, bindURLEncode, "url_encode")
	registerScalar(1, 1, bindURLDecode, "url_decode", "try_url_decode")
	registerScalar(2, 3, bindParseURL, "parse_url", "try_parse_url")
}

func bindURLEncode(name string, args []Expr, opts Options) (Expr, error) {
	return strFunc(name, args, opts, strType, nil, func(a []any) (any, error) {
		return javaURLEncode(a[0].(string)), nil
	})
}

// javaURLEncode is URLEncoder.encode(s, UTF_8): letters, digits and ".-*_" stay, a space
// becomes '+', every other byte %XX.
func javaURLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// javaURLDecode is URLDecoder.decode(s, UTF_8); ok is false where Java throws (a '%' not
// followed by two hex digits).
func javaURLDecode(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", false
			}
			hi, ok1 := unhexDigit(s[i+1])
			lo, ok2 := unhexDigit(s[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			b.WriteByte(hi<<4 | lo)
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD"), true
}

func unhexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func bindURLDecode(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	try := name == "try_url_decode"
	f := strict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		s := a[0].(string)
		out, ok := javaURLDecode(s)
		if ok {
			return out, nil
		}
		if try {
			return nil, nil
		}
		return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "CANNOT_DECODE_URL", "22546",
			"The provided URL cannot be decoded: %s. Please ensure that the URL is properly formatted and try again.", s).
			WithParams("url", s)
	})
	if try {
		f.null = true
	}
	f.str = callString(name, args)
	return f, nil
}

// javaURIIllegal are characters java.net.URI refuses unescaped.
const javaURIIllegal = " \"<>\\^`{|}"

func bindParseURL(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	try := name == "try_parse_url"
	ansi := opts.ANSI
	f := nullableStrict(name, cs, strType, func(_ *Context, a []any) (any, error) {
		raw := a[0].(string)
		u, ok := parseJavaURI(raw)
		if !ok {
			if try || !ansi {
				return nil, nil
			}
			return nil, sparkerr.Newf(sparkerr.IllegalArgumentException, "INVALID_URL", "22P02",
				"The url is invalid: %s. Use `try_parse_url` to tolerate invalid URL and return NULL instead.", raw).
				WithParams("url", raw)
		}
		part := a[1].(string)
		if len(a) == 3 {
			if part != "QUERY" {
				return nil, nil
			}
			q, ok := uriQuery(u, raw)
			if !ok {
				return nil, nil
			}
			re, err := compileJavaRegex(`(&|^)` + regexp.QuoteMeta(a[2].(string)) + `=([^&]*)`)
			if err != nil {
				return nil, err
			}
			m := re.FindStringSubmatch(q)
			if m == nil {
				return nil, nil
			}
			return m[2], nil
		}
		return uriPart(u, raw, part)
	})
	f.str = callString(name, args)
	return f, nil
}

// parseJavaURI parses raw as java.net.URI would accept it.
func parseJavaURI(raw string) (*url.URL, bool) {
	if strings.ContainsAny(raw, javaURIIllegal) {
		return nil, false
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f {
			return nil, false
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, false
	}
	return u, true
}

func uriQuery(u *url.URL, raw string) (string, bool) {
	if u.RawQuery == "" && !u.ForceQuery {
		return "", false
	}
	return u.RawQuery, true
}

func uriPart(u *url.URL, raw, part string) (any, error) {
	orNil := func(s string, ok bool) (any, error) {
		if !ok {
			return nil, nil
		}
		return s, nil
	}
	switch part {
	case "HOST":
		return orNil(u.Hostname(), u.Hostname() != "")
	case "PATH":
		if u.Opaque != "" {
			return nil, nil
		}
		return u.EscapedPath(), nil
	case "QUERY":
		return orNil(uriQuery(u, raw))
	case "REF":
		_, frag, ok := strings.Cut(raw, "#")
		return orNil(frag, ok)
	case "PROTOCOL":
		return orNil(u.Scheme, u.Scheme != "")
	case "FILE":
		if q, ok := uriQuery(u, raw); ok {
			return u.EscapedPath() + "?" + q, nil
		}
		return u.EscapedPath(), nil
	case "AUTHORITY":
		if u.Host == "" && u.User == nil {
			return nil, nil
		}
		if u.User != nil {
			return u.User.String() + "@" + u.Host, nil
		}
		return u.Host, nil
	case "USERINFO":
		if u.User == nil {
			return nil, nil
		}
		return u.User.String(), nil
	}
	return nil, nil
}
