package expr

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// jsonObject is a parsed JSON object with its keys in input order (duplicates kept).
type jsonObject struct {
	keys []string
	vals []any
}

// parseJSONText parses one JSON value into: nil (null), bool, json.Number, string, []any
// (array) or *jsonObject. ok=false when the text is not well-formed JSON; empty reports blank
// input.
func parseJSONText(s string) (v any, ok, empty bool) {
	if strings.TrimSpace(s) == "" {
		return nil, false, true
	}
	dec := json.NewDecoder(strings.NewReader(JSONSingleQuotes(s)))
	dec.UseNumber()
	v, err := readJSONValue(dec)
	if err != nil {
		return nil, false, false
	}
	return v, true, false
}

func readJSONValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readJSONValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			obj := &jsonObject{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := readJSONValue(dec)
				if err != nil {
					return nil, err
				}
				obj.keys = append(obj.keys, k.(string))
				obj.vals = append(obj.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		}
		return nil, io.ErrUnexpectedEOF
	}
	return tok, nil
}

// compactJSON renders a parsed value as compact JSON (numbers keep their input text).
func compactJSON(v any) string {
	var b bytes.Buffer
	writeCompactJSON(&b, v)
	return b.String()
}

func writeCompactJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(x))
	case string:
		b.Write(quoteJSON(x))
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompactJSON(b, it)
		}
		b.WriteByte(']')
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(quoteJSON(k))
			b.WriteByte(':')
			writeCompactJSON(b, x.vals[i])
		}
		b.WriteByte('}')
	}
}

// quoteJSON quotes s as a JSON string without HTML escaping.
func quoteJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
