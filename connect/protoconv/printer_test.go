package protoconv_test

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// The printer renders plans deterministically for golden files: one relation per line,
// children indented, fields in declaration order (zero values omitted), expressions in a
// compact SQL-like form, maps sorted by key.

var relationType = reflect.TypeOf((*plan.Relation)(nil)).Elem()

func printRelation(b *strings.Builder, r plan.Relation, indent string) {
	if r == nil || reflect.ValueOf(r).IsNil() {
		fmt.Fprintf(b, "%s<nil>\n", indent)
		return
	}
	v := reflect.ValueOf(r).Elem()
	t := v.Type()
	fmt.Fprintf(b, "%s%s", indent, t.Name())
	if id := r.Common().PlanID; id != 0 {
		fmt.Fprintf(b, " #%d", id)
	}
	var children []plan.Relation
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		if f.Name == "RelCommon" || fv.IsZero() {
			continue
		}
		if f.Type == relationType {
			children = append(children, fv.Interface().(plan.Relation))
			continue
		}
		fmt.Fprintf(b, " %s=%s", f.Name, formatValue(fv.Interface()))
	}
	b.WriteString("\n")
	if lr, ok := r.(*plan.LocalRelation); ok {
		printRecords(b, lr.Records, indent+"  ")
	}
	for _, c := range children {
		printRelation(b, c, indent+"  ")
	}
}

func printRecords(b *strings.Builder, recs []arrow.RecordBatch, indent string) {
	for i, rec := range recs {
		fmt.Fprintf(b, "%srecord %d: %d rows\n", indent, i, rec.NumRows())
		for c := 0; c < int(rec.NumCols()); c++ {
			fmt.Fprintf(b, "%s  %s: %s\n", indent, rec.ColumnName(c), rec.Column(c))
		}
	}
}

func printCommand(b *strings.Builder, c plan.Command) {
	switch c := c.(type) {
	case plan.Query:
		b.WriteString("Query\n")
		printRelation(b, c.Input, "  ")
	case plan.CreateView:
		fmt.Fprintf(b, "CreateView Name=%q Replace=%t IsGlobal=%t\n", c.Name, c.Replace, c.IsGlobal)
		printRelation(b, c.Input, "  ")
	case *plan.WriteStream:
		fmt.Fprintf(b, "WriteStream Format=%q Options=%s OutputMode=%q Trigger=%d TriggerInterval=%q QueryName=%q Path=%q TableName=%q PartitionBy=%q ClusterBy=%q Foreach=%s ForeachBatch=%s\n",
			c.Format, formatValue(c.Options), c.OutputMode, c.Trigger, c.TriggerInterval, c.QueryName, c.Path, c.TableName,
			c.PartitionBy, c.ClusterBy, pythonFunction(c.Foreach), pythonFunction(c.ForeachBatch))
		printRelation(b, c.Input, "  ")
	case *plan.Write:
		fmt.Fprintf(b, "Write Format=%q Mode=%d Options=%s Path=%q TableName=%q TableMethod=%d PartitionBy=%q SortBy=%q ClusterBy=%q BucketBy=%+v\n",
			c.Format, c.Mode, formatValue(c.Options), c.Path, c.TableName, c.TableMethod, c.PartitionBy, c.SortBy, c.ClusterBy, c.BucketBy)
		printRelation(b, c.Input, "  ")
	case plan.RegisterPythonFunction:
		fmt.Fprintf(b, "RegisterPythonFunction %s\n", formatExpr(c.Func))
	default:
		fmt.Fprintf(b, "%T %+v\n", c, c)
	}
}

func printError(err error) string {
	if e, ok := sparkerr.As(err); ok {
		return fmt.Sprintf("error: %s: %s\n", e.JavaClass, e.Error())
	}
	return fmt.Sprintf("error: %v\n", err)
}

func formatValue(v any) string {
	switch v := v.(type) {
	case plan.Expr:
		return formatExpr(v)
	case []plan.Expr:
		return formatExprs(v)
	case []plan.SortOrder:
		parts := make([]string, len(v))
		for i, o := range v {
			parts[i] = formatExpr(o)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []plan.Literal:
		parts := make([]string, len(v))
		for i, l := range v {
			parts[i] = formatExpr(l)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []plan.Alias:
		parts := make([]string, len(v))
		for i, a := range v {
			parts[i] = formatExpr(a)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case [][]plan.Expr:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = formatExprs(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]plan.Expr:
		keys := sortedKeys(v)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + formatExpr(v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]string:
		keys := sortedKeys(v)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s:%q", k, v[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *sqltypes.Schema:
		return formatSchema(*v)
	case sqltypes.Schema:
		return formatSchema(v)
	case sqltypes.DataType:
		return v.String()
	case *arrow.Schema:
		parts := make([]string, 0, v.NumFields())
		for _, f := range v.Fields() {
			parts = append(parts, fmt.Sprintf("%s:%s", f.Name, f.Type))
		}
		return "arrow<" + strings.Join(parts, ", ") + ">"
	case []arrow.RecordBatch:
		return fmt.Sprintf("%d records", len(v))
	case *int64:
		return fmt.Sprint(*v)
	case *int32:
		return fmt.Sprint(*v)
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		return fmt.Sprintf("%q", v)
	case [][2]string:
		parts := make([]string, len(v))
		for i, p := range v {
			parts[i] = p[0] + "->" + p[1]
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%v", v)
}

func formatSchema(s sqltypes.Schema) string {
	parts := make([]string, len(s))
	for i, f := range s {
		parts[i] = f.Name + ":" + f.Type.String()
		if !f.Nullable {
			parts[i] += " not null"
		}
		if f.Metadata != "" {
			parts[i] += " " + f.Metadata
		}
	}
	return "schema<" + strings.Join(parts, ", ") + ">"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func formatExprs(es []plan.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = formatExpr(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func planSuffix(id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("#%d", id)
}

func formatExpr(e plan.Expr) string {
	switch e := e.(type) {
	case nil:
		return "<nil>"
	case plan.Literal:
		return fmt.Sprintf("%s:%s", formatGoValue(e.Value, e.Type), e.Type)
	case plan.ColumnRef:
		s := "col(" + sparkerr.Quote(e.Name...) + ")" + planSuffix(e.PlanID)
		if e.IsMetadata {
			s += "[metadata]"
		}
		return s
	case plan.Star:
		if len(e.Target) == 0 {
			return "*" + planSuffix(e.PlanID)
		}
		return sparkerr.Quote(e.Target...) + ".*" + planSuffix(e.PlanID)
	case plan.Call:
		s := e.Name + "("
		if e.Distinct {
			s += "DISTINCT "
		}
		args := formatExprs(e.Args)
		s += args[1:len(args)-1] + ")"
		if e.Filter != nil {
			s += " FILTER " + formatExpr(e.Filter)
		}
		return s
	case plan.Alias:
		s := formatExpr(e.Child) + " AS " + strings.Join(e.Names, ",")
		if e.Metadata != "" {
			s += " " + e.Metadata
		}
		return s
	case plan.Cast:
		to := e.To.String()
		if e.TypeString != "" {
			to = fmt.Sprintf("%q", e.TypeString)
		}
		mode := [...]string{"", " LEGACY", " ANSI", " TRY"}[e.Mode]
		return "cast(" + formatExpr(e.Child) + " AS " + to + mode + ")"
	case plan.SortOrder:
		s := formatExpr(e.Child)
		if e.Descending {
			s += " DESC"
		} else {
			s += " ASC"
		}
		if e.NullsFirst {
			return s + " NULLS FIRST"
		}
		return s + " NULLS LAST"
	case plan.ExtractValue:
		return formatExpr(e.Child) + "[" + formatExpr(e.Extraction) + "]"
	case plan.LambdaVar:
		return "λ" + e.Name
	case plan.Lambda:
		return "(" + strings.Join(e.Params, ", ") + ") -> " + formatExpr(e.Body)
	case plan.ScalarSubquery:
		return "scalar" + inlineRelation(e.Plan)
	case plan.Exists:
		return map[bool]string{false: "exists", true: "not-exists"}[e.Not] + inlineRelation(e.Plan)
	case plan.InSubquery:
		op := " IN "
		if e.Not {
			op = " NOT IN "
		}
		return formatExprs(e.Values) + op + inlineRelation(e.Plan)
	case *plan.PythonUDF:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = formatExpr(a)
			if e.ArgNames != nil && e.ArgNames[i] != "" {
				args[i] = e.ArgNames[i] + " => " + args[i]
			}
		}
		return fmt.Sprintf("python:%s(%s)[eval=%d type=%s py=%s det=%t cmd=%dB]", e.Name, strings.Join(args, ", "),
			e.EvalType, e.OutputType, e.PythonVer, e.Deterministic, len(e.Command))
	case plan.Window:
		s := formatExpr(e.Func) + " OVER ("
		if len(e.PartitionBy) > 0 {
			s += "PARTITION BY " + formatExprs(e.PartitionBy)
		}
		if len(e.OrderBy) > 0 {
			s += " ORDER BY " + formatValue(e.OrderBy)
		}
		if f := e.Frame; f != nil {
			kind := "ROWS"
			if f.IsRange {
				kind = "RANGE"
			}
			s += " " + kind + " BETWEEN " + formatBound(f.Lower) + " AND " + formatBound(f.Upper)
		}
		return s + ")"
	}
	return fmt.Sprintf("%T%+v", e, e)
}

// inlineRelation renders a relation tree on one line: {Node; child; …}.
func inlineRelation(r plan.Relation) string {
	var b strings.Builder
	printRelation(&b, r, "")
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return "{" + strings.Join(lines, "; ") + "}"
}

func formatBound(b *plan.FrameBound) string {
	switch {
	case b == nil:
		return "<nil>"
	case b.CurrentRow:
		return "CURRENT ROW"
	case b.Unbounded:
		return "UNBOUNDED"
	}
	return formatExpr(b.Offset)
}

// formatGoValue renders a literal's Go value, checking it has the Go type sqltypes prescribes.
func formatGoValue(v any, t sqltypes.DataType) string {
	if v == nil {
		return "NULL"
	}
	switch t.Kind {
	case sqltypes.Decimal:
		if n, ok := v.(decimal128.Num); ok {
			return n.ToString(t.Scale)
		}
	case sqltypes.Binary:
		if b, ok := v.([]byte); ok {
			return "0x" + hex.EncodeToString(b)
		}
	case sqltypes.String:
		if s, ok := v.(string); ok {
			return fmt.Sprintf("%q", s)
		}
	case sqltypes.Array:
		if vs, ok := v.([]any); ok {
			parts := make([]string, len(vs))
			for i, x := range vs {
				parts[i] = formatGoValue(x, *t.Elem)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	case sqltypes.Struct:
		if vs, ok := v.([]any); ok && len(vs) == len(t.Fields) {
			parts := make([]string, len(vs))
			for i, x := range vs {
				parts[i] = t.Fields[i].Name + "=" + formatGoValue(x, t.Fields[i].Type)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		}
	case sqltypes.Map:
		if m, ok := v.(*sqltypes.MapValue); ok {
			parts := make([]string, len(m.Keys))
			for i := range m.Keys {
				parts[i] = formatGoValue(m.Keys[i], *t.Key) + "->" + formatGoValue(m.Values[i], *t.Value)
			}
			return "map{" + strings.Join(parts, ", ") + "}"
		}
	default:
		want := map[sqltypes.Kind]string{
			sqltypes.Boolean: "bool", sqltypes.Byte: "int8", sqltypes.Short: "int16", sqltypes.Integer: "int32",
			sqltypes.Long: "int64", sqltypes.Float: "float32", sqltypes.Double: "float64", sqltypes.Date: "int32",
			sqltypes.Timestamp: "int64", sqltypes.TimestampNTZ: "int64", sqltypes.DayTimeInterval: "int64",
			sqltypes.YearMonthInterval: "int32", sqltypes.Time: "int64", sqltypes.CalendarInterval: "sqltypes.CalendarIntervalValue",
		}[t.Kind]
		if got := fmt.Sprintf("%T", v); got == want {
			return fmt.Sprint(v)
		}
	}
	return fmt.Sprintf("BAD-GO-VALUE(%T %v)", v, v)
}

// pythonFunction summarizes a Python function's payload.
func pythonFunction(f *plan.PythonFunction) string {
	if f == nil {
		return "none"
	}
	return fmt.Sprintf("python(evalType=%d, ver=%q, %d bytes, includes=%q)", f.EvalType, f.PythonVer, len(f.Command), f.Includes)
}
