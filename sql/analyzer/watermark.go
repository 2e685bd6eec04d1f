package analyzer

import (
	"context"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveWithWatermark resolves withWatermark(eventTime, delay): the event-time column must be
// a timestamp, or a window struct whose end is one (Spark's CheckAnalysis), and the delay a
// non-negative interval string.
func (a *Analyzer) resolveWithWatermark(ctx context.Context, n *plan.WithWatermark) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	ref := plan.ColumnRef{Name: attributeName(n.EventTime)}
	col, rest, err := a.locateColumn(in, ref)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		return nil, sparkerr.Unsupported("withWatermark on a nested field (%s)", n.EventTime)
	}
	t := in.node.Schema()[col].Type
	if !eventTimeType(t) {
		name := "`" + in.cols[col].name + "`"
		return nil, sparkerr.Analysis("EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE", "42K09",
			"The event time %s has the invalid type \"%s\", but expected \"TIMESTAMP\".", name, t.SQL()).
			WithParams("eventName", name, "eventType", `"`+t.SQL()+`"`)
	}
	delay, ok := expr.ParseInterval(n.Delay)
	if !ok {
		return nil, sparkerr.IllegalArgument("Error parsing '%s' to interval", n.Delay)
	}
	if delay < 0 {
		return nil, sparkerr.IllegalArgument("requirement failed: delay threshold (%s) should not be negative.", n.Delay)
	}
	return a.keepScope(in, &logical.Watermark{Input: in.node, Column: col, Delay: delay, DelayText: n.Delay}), nil
}

// attributeName splits a dotted column name (UnresolvedAttribute(name)); a backquoted name is
// one part.
func attributeName(s string) []string {
	if len(s) > 1 && strings.HasPrefix(s, "`") && strings.HasSuffix(s, "`") {
		return []string{strings.ReplaceAll(s[1:len(s)-1], "``", "`")}
	}
	return strings.Split(s, ".")
}

// eventTimeType: a timestamp, or a struct (a window) whose end field is one.
func eventTimeType(t sqltypes.DataType) bool {
	if t.Kind == sqltypes.Timestamp {
		return true
	}
	if t.Kind == sqltypes.Struct {
		for _, f := range t.Fields {
			if f.Name == "end" {
				return f.Type.Kind == sqltypes.Timestamp
			}
		}
	}
	return false
}
