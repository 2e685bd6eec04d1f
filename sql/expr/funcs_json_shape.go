package expr

import (
	"encoding/json"
	"io"
	"strings"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// json_array_length and json_object_keys: the number of elements of a JSON array and the keys
// of a JSON object at the top level (in document order, duplicates kept); NULL for other JSON
// values and for malformed JSON, as Spark's LengthOfJsonArray and JsonObjectKeys.

func init() {
	registerScalar(1, 1, bindJSONShape, "json_array_length", "json_object_keys")
}

func bindJSONShape(name string, args []Expr, opts Options) (Expr, error) {
	cs, err := coerceArgs(name, args, opts, strType)
	if err != nil {
		return nil, err
	}
	t := intType
	if name == "json_object_keys" {
		t = sqltypes.ArrayType(strType, true)
	}
	f := nullableStrict(name, cs, t, func(_ *Context, a []any) (any, error) {
		if name == "json_array_length" {
			n, ok := jsonTopLevel(a[0].(string), '[', nil)
			if !ok {
				return nil, nil
			}
			return int32(n), nil
		}
		keys := []any{}
		if _, ok := jsonTopLevel(a[0].(string), '{', func(k string) { keys = append(keys, k) }); !ok {
			return nil, nil
		}
		return keys, nil
	})
	f.str = callString(name, args)
	return f, nil
}

// jsonTopLevel reads s as one JSON value that must open with delim ('[' or '{') and counts its
// top-level members, calling key with each object key; ok is false for malformed JSON, another
// kind of value or trailing content.
func jsonTopLevel(s string, delim json.Delim, key func(string)) (int, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != delim {
		return 0, false
	}
	n := 0
	for dec.More() {
		if delim == '{' {
			k, err := dec.Token()
			if err != nil {
				return 0, false
			}
			ks, isStr := k.(string)
			if !isStr {
				return 0, false
			}
			if key != nil {
				key(ks)
			}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, false
		}
		n++
	}
	if _, err := dec.Token(); err != nil {
		return 0, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, false
	}
	return n, true
}
