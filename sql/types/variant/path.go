package variant

import (
	"strconv"
	"strings"
)

// PathSegment is one step of a path: an object key, or an array index when IsIndex.
type PathSegment struct {
	Key     string
	Index   int
	IsIndex bool
}

// ParsePath reads a JSONPath as Spark's VariantPathParser does: "$" then any number of .key,
// ['key'], ["key"] and [index] (index a non-negative integer). ok is false on anything else.
func ParsePath(s string) ([]PathSegment, bool) {
	if !strings.HasPrefix(s, "$") {
		return nil, false
	}
	var segs []PathSegment
	i := 1
	for i < len(s) {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i+1 {
				return nil, false
			}
			segs = append(segs, PathSegment{Key: s[i+1 : j]})
			i = j
		case '[':
			if i+1 >= len(s) {
				return nil, false
			}
			if q := s[i+1]; q == '\'' || q == '"' {
				end := strings.Index(s[i+2:], string(q)+"]")
				if end < 0 {
					return nil, false
				}
				segs = append(segs, PathSegment{Key: s[i+2 : i+2+end]})
				i = i + 2 + end + 2
				continue
			}
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, false
			}
			digits := s[i+1 : i+end]
			if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
				return nil, false
			}
			n, err := strconv.Atoi(digits)
			if err != nil {
				return nil, false
			}
			segs = append(segs, PathSegment{Index: n, IsIndex: true})
			i += end + 1
		default:
			return nil, false
		}
	}
	return segs, true
}

// Walk follows path from v; ok is false when a step is missing (no such key, index out of
// range, or a step of the wrong kind for the value).
func (v Value) Walk(path []PathSegment) (Value, bool) {
	for _, p := range path {
		switch {
		case p.IsIndex && v.Type() == Array:
			if p.Index >= v.Len() {
				return Value{}, false
			}
			v = v.Elem(p.Index)
		case !p.IsIndex && v.Type() == Object:
			f, ok := v.Get(p.Key)
			if !ok {
				return Value{}, false
			}
			v = f
		default:
			return Value{}, false
		}
	}
	return v, true
}
