package expr

import (
	"encoding/json"
	"testing"
)

func TestJSONSingleQuotes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`{'partition': 0, 'epoch': 1}`, `{"partition": 0, "epoch": 1}`},
		{`{'value': 'text'}`, `{"value": "text"}`},
		{`{"s": "it's"}`, `{"s": "it's"}`},
		{`{'s': 'say "hi"'}`, `{"s": "say \"hi\""}`},
		{`{'s': 'it\'s'}`, `{"s": "it's"}`},
		{`{'s': 'a\nb'}`, `{"s": "a\nb"}`},
		{`{"k": "x\"'y", 'm': 'z'}`, `{"k": "x\"'y", "m": "z"}`},
		{`{'s': 'open`, `{"s": "open`},
	} {
		got := JSONSingleQuotes(c.in)
		if got != c.want {
			t.Errorf("JSONSingleQuotes(%s) = %s, want %s", c.in, got, c.want)
		}
		if c.in != `{'s': 'open` && !json.Valid([]byte(got)) {
			t.Errorf("JSONSingleQuotes(%s) = %s is not JSON", c.in, got)
		}
	}
}
