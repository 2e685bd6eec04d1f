package query

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"time"

	"github.com/weirhq/weir/operators"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// observedMetricsProgress is a progress's observedMetrics: for each df.observe of the plan
// whose metrics the epoch computed, its metrics as a JSON object (Spark's Row.jsonValue: field
// name to value).
func observedMetricsProgress(obs []*operators.ObservedMetrics, epoch int64) map[string]jsonObject {
	out := map[string]jsonObject{}
	for _, o := range obs {
		rep, ok := o.Take(epoch)
		if !ok {
			continue
		}
		row := jsonObject{}
		for i, f := range o.Schema {
			row[f.Name] = metricJSON(rep.Values[i], f.Type)
		}
		out[o.Name] = row
	}
	return out
}

// metricJSON renders a metric value as Spark's Row.jsonValue does: numbers and booleans as
// such (non-finite doubles as strings, which JSON cannot hold), decimals as numbers, dates and
// timestamps as strings, binary as base64, arrays as arrays, structs and string-keyed maps as
// objects, other maps as arrays of {key, value}.
func metricJSON(v any, t sqltypes.DataType) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case sqltypes.Float, sqltypes.Double:
		f, _ := v.(float64)
		if f32, ok := v.(float32); ok {
			f = float64(f32)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return jsonNonFinite(f)
		}
		return f
	case sqltypes.Decimal:
		return json.Number(v.(sqltypes.Decimal128).ToString(t.Scale))
	case sqltypes.Binary:
		return base64.StdEncoding.EncodeToString(v.([]byte))
	case sqltypes.Date:
		return time.Unix(int64(v.(int32))*86400, 0).UTC().Format("2006-01-02")
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return time.UnixMicro(v.(int64)).UTC().Format("2006-01-02 15:04:05.999999")
	case sqltypes.Time:
		return sqltypes.FormatTime(v.(int64))
	case sqltypes.Array:
		elems := v.([]any)
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = metricJSON(e, *t.Elem)
		}
		return out
	case sqltypes.Struct:
		fields := v.([]any)
		out := jsonObject{}
		for i, f := range t.Fields {
			if i < len(fields) {
				out[f.Name] = metricJSON(fields[i], f.Type)
			}
		}
		return out
	case sqltypes.Map:
		m := v.(*sqltypes.MapValue)
		if t.Key.Kind == sqltypes.String {
			out := jsonObject{}
			for i, k := range m.Keys {
				out[k.(string)] = metricJSON(m.Values[i], *t.Value)
			}
			return out
		}
		out := make([]any, len(m.Keys))
		for i, k := range m.Keys {
			out[i] = jsonObject{"key": metricJSON(k, *t.Key), "value": metricJSON(m.Values[i], *t.Value)}
		}
		return out
	}
	return v
}

func jsonNonFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "Infinity"
	}
	return "-Infinity"
}
