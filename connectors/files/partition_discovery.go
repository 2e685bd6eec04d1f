package files

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// DefaultPartitionName is the directory value of a null (or empty) partition value, as Hive
// and Spark write it.
const DefaultPartitionName = "__HIVE_DEFAULT_PARTITION__"

// PartitionValue is one level of a Hive-style partition directory, name=value: Value is the
// unescaped text, Null a null value (DefaultPartitionName).
type PartitionValue struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	Null  bool   `json:"null,omitempty"`
}

// needsEscape reports whether Spark's ExternalCatalogUtils.escapePathName escapes c.
func needsEscape(c rune) bool {
	if c < 0x20 || c == 0x7F {
		return true
	}
	return strings.ContainsRune("\"#%'*/:=?\\{[]^", c)
}

// EscapePathName escapes a partition column name or value for a directory name as Spark does
// (special characters as %XX, upper-case hex).
func EscapePathName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if needsEscape(c) {
			b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)+0x100, 16)[1:]))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// UnescapePathName reverses EscapePathName (a '%' not followed by two hex digits stays).
func UnescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// PartitionDir is the directory fragment "name=value" of one partition value (null and the
// empty string as DefaultPartitionName).
func PartitionDir(name string, value string, null bool) string {
	v := DefaultPartitionName
	if !null && value != "" {
		v = EscapePathName(value)
	}
	return EscapePathName(name) + "=" + v
}

// partitionValuesOf parses the partition directories between root and the file at path;
// nil when a directory level is not name=value.
func partitionValuesOf(root, path string) []PartitionValue {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." {
		return nil
	}
	var out []PartitionValue
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		name, value, ok := strings.Cut(part, "=")
		if !ok || name == "" || strings.HasPrefix(part, "..") {
			return nil
		}
		pv := PartitionValue{Name: UnescapePathName(name)}
		if value == DefaultPartitionName {
			pv.Null = true
		} else {
			pv.Value = UnescapePathName(value)
		}
		out = append(out, pv)
	}
	return out
}

// inferPartitionType is the type Spark's basic partition inference gives a directory value:
// int, long, double, date (yyyy-MM-dd), else string; null for the default partition.
func inferPartitionType(v PartitionValue) sqltypes.DataType {
	if v.Null {
		return sqltypes.DataType{Kind: sqltypes.Null}
	}
	s := v.Value
	if _, err := strconv.ParseInt(s, 10, 32); err == nil {
		return sqltypes.DataType{Kind: sqltypes.Integer}
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return sqltypes.DataType{Kind: sqltypes.Long}
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") {
		return sqltypes.DataType{Kind: sqltypes.Double}
	}
	if _, err := time.Parse("2006-01-02", s); err == nil {
		return sqltypes.DataType{Kind: sqltypes.Date}
	}
	return sqltypes.DataType{Kind: sqltypes.String}
}

// mergePartitionTypes is the type holding both (Spark's upcast of partition types: int and
// long to long, numbers to double, anything else to string).
func mergePartitionTypes(a, b sqltypes.DataType) sqltypes.DataType {
	rank := map[sqltypes.Kind]int{sqltypes.Integer: 1, sqltypes.Long: 2, sqltypes.Double: 3}
	switch {
	case a.Kind == sqltypes.Null:
		return b
	case b.Kind == sqltypes.Null, a.Kind == b.Kind:
		return a
	case rank[a.Kind] > 0 && rank[b.Kind] > 0:
		if rank[a.Kind] > rank[b.Kind] {
			return a
		}
		return b
	}
	return sqltypes.DataType{Kind: sqltypes.String}
}

// withPartitionColumns is a read's schema with the files' partition columns: columns the
// data schema already has (case-insensitively) keep their place and type (the user's schema
// decides); the others are appended with their inferred types (all-null columns as string).
func withPartitionColumns(data sqltypes.Schema, files []dataFile) sqltypes.Schema {
	var names []string
	types := map[string]sqltypes.DataType{}
	for _, f := range files {
		for _, pv := range f.Partition {
			key := strings.ToLower(pv.Name)
			t, seen := types[key]
			if !seen {
				names = append(names, pv.Name)
				t = sqltypes.DataType{Kind: sqltypes.Null}
			}
			types[key] = mergePartitionTypes(t, inferPartitionType(pv))
		}
	}
	out := append(sqltypes.Schema(nil), data...)
	for _, n := range names {
		if schemaIndex(data, n) >= 0 {
			continue
		}
		t := types[strings.ToLower(n)]
		if t.Kind == sqltypes.Null {
			t = sqltypes.DataType{Kind: sqltypes.String}
		}
		out = append(out, sqltypes.Field{Name: n, Type: t, Nullable: true})
	}
	return out
}

// withoutPartitionColumns drops the files' partition columns from an inferred data schema
// (directory values win over same-named columns in the files, as in Spark).
func withoutPartitionColumns(data sqltypes.Schema, files []dataFile) sqltypes.Schema {
	drop := map[string]bool{}
	for _, f := range files {
		for _, pv := range f.Partition {
			drop[strings.ToLower(pv.Name)] = true
		}
	}
	if len(drop) == 0 {
		return data
	}
	var out sqltypes.Schema
	for _, c := range data {
		if !drop[strings.ToLower(c.Name)] {
			out = append(out, c)
		}
	}
	return out
}

// fillPartitionColumns replaces rec's partition columns by the file's directory values
// (parsed as the columns' types; unparsable values are null). It takes ownership of rec.
func (r *fileReader) fillPartitionColumns(rec arrow.RecordBatch, parts []PartitionValue) arrow.RecordBatch {
	if len(parts) == 0 {
		return rec
	}
	n := int(rec.NumRows())
	cols := append([]arrow.Array(nil), rec.Columns()...)
	var built []arrow.Array
	for _, pv := range parts {
		i := schemaIndex(r.schema, pv.Name)
		if i < 0 {
			continue
		}
		var v any
		if !pv.Null {
			v = parseScalar(pv.Value, r.schema[i].Type, r.loc)
		}
		vals := make([]any, n)
		for j := range vals {
			vals[j] = v
		}
		col := expr.BuildArray(r.mem, r.schema[i].Type, r.tz, vals)
		built = append(built, col)
		cols[i] = col
	}
	out := array.NewRecordBatch(r.arrow, cols, int64(n))
	rec.Release()
	for _, c := range built {
		c.Release()
	}
	return out
}

// schemaIndex is the position of the column named name (case-insensitively), -1 if none.
func schemaIndex(s sqltypes.Schema, name string) int {
	for i, c := range s {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}
