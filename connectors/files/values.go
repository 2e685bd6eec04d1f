package files

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// jsonValue converts a decoded JSON value (numbers as json.Number) to the Go value of t
// (sqltypes conventions); a value that does not fit t is null, as in Spark's PERMISSIVE mode.
func jsonValue(v any, t sqltypes.DataType, loc *time.Location) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case sqltypes.Array:
		items, ok := v.([]any)
		if !ok {
			return nil
		}
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = jsonValue(it, *t.Elem, loc)
		}
		return out
	case sqltypes.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = jsonValue(obj[f.Name], f.Type, loc)
		}
		return out
	case sqltypes.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		mv := &sqltypes.MapValue{}
		for _, k := range keys {
			kv := parseScalar(k, *t.Key, loc)
			if kv == nil {
				return nil
			}
			mv.Keys = append(mv.Keys, kv)
			mv.Values = append(mv.Values, jsonValue(obj[k], *t.Value, loc))
		}
		return mv
	case sqltypes.String:
		switch x := v.(type) {
		case string:
			return x
		case json.Number:
			return x.String()
		case bool:
			return strconv.FormatBool(x)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return string(b)
	case sqltypes.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil
		}
		return b
	}
	switch x := v.(type) {
	case json.Number:
		return parseScalar(x.String(), t, loc)
	case string:
		return parseScalar(x, t, loc)
	}
	return nil
}

// parseScalar parses text as a value of the atomic type t; unparseable text is null.
func parseScalar(s string, t sqltypes.DataType, loc *time.Location) any {
	s2 := strings.TrimSpace(s)
	switch t.Kind {
	case sqltypes.String:
		return s
	case sqltypes.Boolean:
		switch strings.ToLower(s2) {
		case "true":
			return true
		case "false":
			return false
		}
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		bits := map[sqltypes.Kind]int{sqltypes.Byte: 8, sqltypes.Short: 16, sqltypes.Integer: 32, sqltypes.Long: 64}[t.Kind]
		n, err := strconv.ParseInt(s2, 10, bits)
		if err != nil {
			return nil
		}
		switch t.Kind {
		case sqltypes.Byte:
			return int8(n)
		case sqltypes.Short:
			return int16(n)
		case sqltypes.Integer:
			return int32(n)
		}
		return n
	case sqltypes.Float, sqltypes.Double:
		var f float64
		switch s2 {
		case "NaN":
			f = math.NaN()
		case "Infinity", "+Infinity", "Inf", "+Inf":
			f = math.Inf(1)
		case "-Infinity", "-Inf":
			f = math.Inf(-1)
		default:
			var err error
			if f, err = strconv.ParseFloat(s2, 64); err != nil {
				return nil
			}
		}
		if t.Kind == sqltypes.Float {
			return float32(f)
		}
		return f
	case sqltypes.Decimal:
		n, err := decimal128.FromString(s2, t.Precision, t.Scale)
		if err != nil || !n.FitsInPrecision(t.Precision) {
			return nil
		}
		return n
	case sqltypes.Binary:
		b, err := base64.StdEncoding.DecodeString(s2)
		if err != nil {
			return []byte(s)
		}
		return b
	case sqltypes.Date:
		d, err := time.Parse("2006-01-02", s2)
		if err != nil {
			return nil
		}
		return int32(d.Unix() / 86400)
	case sqltypes.Timestamp:
		if ts, ok := parseTimestamp(s2, loc, true); ok {
			return ts
		}
	case sqltypes.TimestampNTZ:
		if ts, ok := parseTimestamp(s2, time.UTC, false); ok {
			return ts
		}
	case sqltypes.Time:
		if nanos, ok := sqltypes.ParseTime(s2); ok {
			return nanos
		}
	}
	return nil
}

// Timestamp layouts Spark's JSON and CSV readers accept (ISO 8601 with 'T' or a space; zone
// optional).
var (
	zonedLayouts = []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z0700",
		"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00"}
	localLayouts = []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}
)

// parseTimestamp parses an ISO timestamp to microseconds since the epoch; one without a zone
// is in loc. A zone is refused when zoned is false (timestamp_ntz).
func parseTimestamp(s string, loc *time.Location, zoned bool) (int64, bool) {
	if zoned {
		for _, l := range zonedLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t.UnixMicro(), true
			}
		}
	}
	for _, l := range localLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t.UnixMicro(), true
		}
	}
	return 0, false
}
