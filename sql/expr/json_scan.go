package expr

import (
	"encoding/json"
	"unicode/utf8"
)

// jsonScan reads JSON text without encoding/json's reflection and token interfaces, for the
// vectorized from_json. It is conservative: it accepts only well-formed JSON (RFC 8259) whose
// strings are valid UTF-8 and carry no \u escape of a surrogate half, and reports !ok for
// anything else, so that callers fall back to parseJSONText for the row and every result stays
// exactly what parseJSONText and jsonToValue give.
type jsonScan struct {
	s []byte
	i int
}

// jsonPlain marks the bytes a string copies as they are: printable ASCII but " and \.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *jsonScan) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek is the next non-space byte (0 at the end).
func (p *jsonScan) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// consume skips the next non-space byte if it is c.
func (p *jsonScan) consume(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// str reads a string at the current position (after spaces): its raw bytes between the
// quotes and whether they hold escapes.
func (p *jsonScan) str() (raw []byte, escaped, ok bool) {
	if p.peek() != '"' {
		return nil, false, false
	}
	p.i++
	start := p.i
	ascii := true
	for p.i < len(p.s) {
		c := p.s[p.i]
		if jsonPlain[c] {
			p.i++
			continue
		}
		switch {
		case c == '"':
			raw = p.s[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(raw) {
				return nil, false, false
			}
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if p.i+1 >= len(p.s) {
				return nil, false, false
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				r, ok := hex4(p.s[p.i+2:])
				if !ok || utf8.RuneLen(r) < 0 { // a surrogate half: parseJSONText decides
					return nil, false, false
				}
				p.i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			p.i++
		}
	}
	return nil, false, false
}

// hex4 reads the 4 hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescapeJSON decodes the raw bytes of a string that str accepted.
func unescapeJSON(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(raw[i+1:])
			out = utf8.AppendRune(out, r)
			i += 4
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	return string(out)
}

// number reads a number at the current position (after spaces) and returns its text.
func (p *jsonScan) number() ([]byte, bool) {
	p.skipSpace()
	s, i := p.s, p.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		if i = skipDigits(s, i+1); i < 0 {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i = skipDigits(s, i); i < 0 {
			return nil, false
		}
	}
	p.i = i
	return s[start:i], true
}

// skipDigits is the index after the digits of s starting at i; -1 when there are none.
func skipDigits(s []byte, i int) int {
	d := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == d {
		return -1
	}
	return i
}

// literal reads true, false or null.
func (p *jsonScan) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// value reads any value into parseJSONText's representation: nil, bool, json.Number, string,
// []any or *jsonObject.
func (p *jsonScan) value(depth int) (any, bool) {
	if depth > 1000 {
		return nil, false
	}
	switch p.peek() {
	case '{':
		p.i++
		obj := &jsonObject{}
		ok := p.members('}', func() bool {
			raw, esc, ok := p.str()
			if !ok || !p.consume(':') {
				return false
			}
			v, ok := p.value(depth + 1)
			obj.keys = append(obj.keys, jsonString(raw, esc))
			obj.vals = append(obj.vals, v)
			return ok
		})
		return obj, ok
	case '[':
		p.i++
		arr := []any{}
		ok := p.members(']', func() bool {
			v, ok := p.value(depth + 1)
			arr = append(arr, v)
			return ok
		})
		return arr, ok
	case '"':
		raw, esc, ok := p.str()
		if !ok {
			return nil, false
		}
		return jsonString(raw, esc), true
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	}
	n, ok := p.number()
	if !ok {
		return nil, false
	}
	return json.Number(n), true
}

// skip reads any value as value does, without building it.
func (p *jsonScan) skip(depth int) bool {
	if depth > 1000 {
		return false
	}
	switch p.peek() {
	case '{':
		p.i++
		return p.members('}', func() bool {
			_, _, ok := p.str()
			return ok && p.consume(':') && p.skip(depth+1)
		})
	case '[':
		p.i++
		return p.members(']', func() bool { return p.skip(depth + 1) })
	case '"':
		_, _, ok := p.str()
		return ok
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	}
	_, ok := p.number()
	return ok
}

// members reads the members of an object or array whose opening byte was read, through the
// closing byte; member reads one member.
func (p *jsonScan) members(closing byte, member func() bool) bool {
	if p.consume(closing) {
		return true
	}
	for {
		if !member() {
			return false
		}
		if p.consume(closing) {
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

// jsonString is a scanned string's value.
func jsonString(raw []byte, escaped bool) string {
	if escaped {
		return unescapeJSON(raw)
	}
	return string(raw)
}
