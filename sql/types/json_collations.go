package sqltypes

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/weirhq/weir/sql/collation"
)

// Spark's schema JSON writes a collated string as "string" and names its collation in the
// field's metadata: {"__COLLATIONS": {"f": "spark.UTF8_LCASE", "f.element": "icu.UNICODE_CI"}},
// by the path from the field through array elements and map keys and values.

const collationsKey = "__COLLATIONS"

// fieldCollations applies a field's __COLLATIONS metadata to t and returns the metadata
// without it.
func fieldCollations(name string, t DataType, md string) (DataType, string, error) {
	if !strings.Contains(md, collationsKey) {
		return t, md, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(md), &m); err != nil {
		return t, md, nil
	}
	var paths map[string]string
	if err := json.Unmarshal(m[collationsKey], &paths); err != nil {
		return t, md, nil
	}
	for path, full := range paths {
		_, cname, _ := strings.Cut(full, ".")
		c, err := collation.Lookup(cname)
		if err != nil {
			return t, md, err
		}
		rest, ok := strings.CutPrefix(path, name)
		if !ok {
			continue
		}
		t = withCollationAt(t, strings.Split(strings.TrimPrefix(rest, "."), "."), c.TypeName())
	}
	delete(m, collationsKey)
	if len(m) == 0 {
		return t, "", nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return t, md, nil
	}
	return t, string(out), nil
}

// withCollationAt sets the collation of the string at path (element, key, value steps) in t.
func withCollationAt(t DataType, path []string, c string) DataType {
	if len(path) == 0 || path[0] == "" {
		if t.Kind == String {
			t.StringCollation = c
		}
		return t
	}
	switch {
	case t.Kind == Array && path[0] == "element":
		e := withCollationAt(*t.Elem, path[1:], c)
		t.Elem = &e
	case t.Kind == Map && path[0] == "key":
		k := withCollationAt(*t.Key, path[1:], c)
		t.Key = &k
	case t.Kind == Map && path[0] == "value":
		v := withCollationAt(*t.Value, path[1:], c)
		t.Value = &v
	}
	return t
}

// collationPaths lists the collated strings of t (not inside nested structs, whose fields
// carry their own) by path from prefix, and returns t without them.
func collationPaths(prefix string, t DataType, out map[string]string) DataType {
	switch t.Kind {
	case String:
		if t.StringCollation != "" {
			c := collation.Of(t.StringCollation)
			provider := "icu."
			if c.Provider != collation.ICU {
				provider = "spark."
			}
			out[prefix] = provider + c.Name
			t.StringCollation = ""
		}
	case Array:
		e := collationPaths(prefix+".element", *t.Elem, out)
		t.Elem = &e
	case Map:
		k := collationPaths(prefix+".key", *t.Key, out)
		v := collationPaths(prefix+".value", *t.Value, out)
		t.Key, t.Value = &k, &v
	}
	return t
}

// withCollationMetadata adds paths to a field's metadata as __COLLATIONS.
func withCollationMetadata(md string, paths map[string]string) string {
	if len(paths) == 0 {
		return md
	}
	m := map[string]json.RawMessage{}
	if md != "" {
		_ = json.Unmarshal([]byte(md), &m)
	}
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, k)
		b.WriteByte(':')
		writeJSONString(&b, paths[k])
	}
	b.WriteByte('}')
	m[collationsKey] = json.RawMessage(b.String())
	out, err := json.Marshal(m)
	if err != nil {
		return md
	}
	return string(out)
}
