package query

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// statefulOp describes one stateful operator of a plan as its checkpointed state depends on it:
// what it is, the schema of its state keys and of its state values. Two runs of a query may
// share a checkpoint only if these agree operator by operator (Spark's state schema check).
type statefulOp struct {
	Name  string `json:"name"`
	Key   string `json:"key"`
	Value string `json:"value"`
}

// sourceFormats lists the plan's source formats in post-order.
func sourceFormats(root logical.Node) []string {
	var out []string
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		for _, c := range n.Children() {
			walk(c)
		}
		if s, ok := n.(*logical.SourceScan); ok {
			out = append(out, strings.ToLower(s.Format))
		}
	}
	walk(root)
	return out
}

// statelessNodes are the logical nodes that keep no state across epochs.
var statelessNodes = map[string]bool{"Range": true, "LocalData": true, "SourceScan": true, "Project": true,
	"Filter": true, "Sort": true, "Limit": true, "Tail": true, "Union": true, "Sample": true, "Repartition": true}

// statefulOperators lists plan's stateful streaming operators in post-order. Aggregates are
// described by grouping keys and aggregate functions, joins of two streams by their sides'
// schemas and join type; any other streaming node not known to be stateless by its type and
// schemas.
func statefulOperators(root logical.Node) []statefulOp {
	var out []statefulOp
	var walk func(logical.Node)
	walk = func(n logical.Node) {
		for _, c := range n.Children() {
			walk(c)
		}
		if !logical.IsStreaming(n) {
			return
		}
		switch n := n.(type) {
		case *logical.Aggregate:
			var vals []string
			for _, a := range n.Aggs {
				vals = append(vals, a.String()+":"+a.Type().String())
			}
			out = append(out, statefulOp{Name: "aggregate", Key: schemaString(logical.SchemaOf(n.Groups)),
				Value: "[" + strings.Join(vals, ",") + "]"})
		case *logical.Join:
			l, r := n.Children()[0], n.Children()[1]
			if !logical.IsStreaming(l) || !logical.IsStreaming(r) {
				return
			}
			out = append(out, statefulOp{Name: "join " + fmt.Sprint(n.Type), Key: schemaString(l.Schema()),
				Value: schemaString(r.Schema())})
		default:
			name := reflect.TypeOf(n).Elem().Name()
			if statelessNodes[name] {
				return
			}
			in := ""
			if cs := n.Children(); len(cs) > 0 {
				in = schemaString(cs[0].Schema())
			}
			out = append(out, statefulOp{Name: strings.ToLower(name), Key: in, Value: schemaString(n.Schema())})
		}
	}
	walk(root)
	return out
}

func schemaString(s sqltypes.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Name + ":" + f.Type.String()
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

// compatible checks the plan about to run (want) against the checkpoint's metadata (have).
func compatible(have, want checkpointMeta) error {
	if len(have.Sources) != len(want.Sources) || strings.Join(have.Sources, ",") != strings.Join(want.Sources, ",") {
		return sparkerr.Analysis("STREAMING_SOURCES_NOT_MATCH_IN_CHECKPOINT", "42K03",
			"The query's sources [%s] do not match the sources of the checkpoint [%s]: the number or type of "+
				"sources cannot change between restarts of a query.",
			strings.Join(want.Sources, ", "), strings.Join(have.Sources, ", "))
	}
	names := func(ops []statefulOp) string {
		var s []string
		for _, o := range ops {
			s = append(s, o.Name)
		}
		return strings.Join(s, ", ")
	}
	if names(have.Stateful) != names(want.Stateful) {
		return sparkerr.Analysis("STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA", "42K03",
			"Streaming stateful operator name does not match with the operator in state metadata. This likely "+
				"to happen when user adds/removes/changes stateful operator of existing streaming query. Stateful "+
				"operators in the metadata: [%s]; Stateful operators in current batch: [%s].",
			names(have.Stateful), names(want.Stateful))
	}
	for i, h := range have.Stateful {
		w := want.Stateful[i]
		if h.Key != w.Key {
			return sparkerr.Analysis("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE", "42K03",
				"Provided key schema does not match existing state key schema. Please check number and type of "+
					"fields. Existing key_schema=%s and new key_schema=%s.", h.Key, w.Key)
		}
		if h.Value != w.Value {
			return sparkerr.Analysis("STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE", "42K03",
				"Provided value schema does not match existing state value schema. Please check number and type "+
					"of fields. Existing value_schema=%s and new value_schema=%s.", h.Value, w.Value)
		}
	}
	return nil
}
