package parser

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// FormatExpr renders an unresolved expression deterministically, for tests and for explaining
// unresolved plans. Calls print as name(args); literals other than int, string and boolean
// carry their type (1:bigint, 1.5:decimal(2,1)); subqueries print as #n references followed by
// their plans.
func FormatExpr(e plan.Expr) string {
	f := &formatter{}
	s := f.expr(e)
	if len(f.subs) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s)
	b.WriteByte('\n')
	f.writeSubqueries(&b, "", 0)
	return strings.TrimSuffix(b.String(), "\n")
}

// FormatRelation renders an unresolved relation tree in Spark's treeString style (children
// under "+- " and ":- ", subqueries under ":  ").
func FormatRelation(r plan.Relation) string {
	f := &formatter{}
	var b strings.Builder
	f.tree(&b, r, "", "")
	return strings.TrimSuffix(b.String(), "\n")
}

func formatOptionalExpr(e plan.Expr) string {
	if e == nil {
		return "-"
	}
	return FormatExpr(e)
}

// FormatCommand renders a command: its name and arguments, then any relation it holds.
func FormatCommand(c plan.Command) string {
	q := func(s string) string { return strconv.Quote(s) }
	withRel := func(head string, r plan.Relation) string {
		if r == nil {
			return head
		}
		f := &formatter{}
		var b strings.Builder
		b.WriteString(head + "\n")
		f.tree(&b, r, "   ", "+- ")
		return strings.TrimSuffix(b.String(), "\n")
	}
	switch x := c.(type) {
	case plan.Query:
		return FormatRelation(x.Input)
	case plan.CreateView:
		return withRel(fmt.Sprintf("CreateView %s columns=%v replace=%t global=%t ifNotExists=%t",
			x.Name, x.Columns, x.Replace, x.IsGlobal, x.IfNotExists), x.Input)
	case plan.DropView:
		return fmt.Sprintf("DropView %s ifExists=%t table=%t", strings.Join(x.Name, "."), x.IfExists, x.IsTable)
	case plan.CreateDatabase:
		return fmt.Sprintf("CreateDatabase %s ifNotExists=%t comment=%s location=%s properties=%s",
			strings.Join(x.Name, "."), x.IfNotExists, q(x.Comment), q(x.Location), formatProperties(x.Properties))
	case plan.DropDatabase:
		return fmt.Sprintf("DropDatabase %s ifExists=%t cascade=%t", strings.Join(x.Name, "."), x.IfExists, x.Cascade)
	case plan.CreateTable:
		cols := make([]string, len(x.Columns))
		for i, c := range x.Columns {
			cols[i] = c.Name + " " + c.Type.SQL()
		}
		return withRel(fmt.Sprintf("CreateTable %s columns=[%s] using=%s partitionBy=%v location=%s options=%s properties=%s ifNotExists=%t replace=%t",
			strings.Join(x.Name, "."), strings.Join(cols, ", "), q(x.Format), x.PartitionBy, q(x.Location),
			formatProperties(x.Options), formatProperties(x.Properties), x.IfNotExists, x.Replace), x.Query)
	case plan.CreatePersistentView:
		head := fmt.Sprintf("CreatePersistentView %s columns=%v text=%s replace=%t ifNotExists=%t",
			strings.Join(x.Name, "."), x.Columns, q(x.Text), x.Replace, x.IfNotExists)
		if x.Language != "" {
			head += " language=" + x.Language
		}
		return withRel(head, x.Query)
	case plan.AlterTable:
		head := "AlterTable " + strings.Join(x.Name, ".")
		switch {
		case x.AddColumns != nil:
			cols := make([]string, len(x.AddColumns))
			for i, c := range x.AddColumns {
				cols[i] = c.Name + " " + c.Type.SQL()
			}
			head += " addColumns=[" + strings.Join(cols, ", ") + "]"
		case x.RenameTo != nil:
			head += " renameTo=" + strings.Join(x.RenameTo, ".")
		case x.SetProperties != nil:
			head += " set=" + formatProperties(x.SetProperties)
		default:
			head += fmt.Sprintf(" unset=%v", x.UnsetProperties)
		}
		return head
	case plan.ShowCreateTable:
		return "ShowCreateTable " + strings.Join(x.Name, ".")
	case plan.ShowTableProperties:
		return fmt.Sprintf("ShowTableProperties %s key=%s", strings.Join(x.Name, "."), q(x.Key))
	case plan.TruncateTable:
		return "TruncateTable " + strings.Join(x.Name, ".")
	case plan.InsertInto:
		parts := make([]string, len(x.Partition))
		for i, pv := range x.Partition {
			parts[i] = pv.Column
			if pv.Value != nil {
				parts[i] += "=" + FormatExpr(pv.Value)
			}
		}
		return withRel(fmt.Sprintf("InsertInto %s overwrite=%t partition=[%s] columns=%v",
			strings.Join(x.Table, "."), x.Overwrite, strings.Join(parts, ", "), x.Columns), x.Input)
	case plan.DeleteFrom:
		return fmt.Sprintf("DeleteFrom %s alias=%s where=%s", strings.Join(x.Table, "."), q(x.Alias), formatOptionalExpr(x.Condition))
	case plan.UpdateTable:
		sets := make([]string, len(x.Assignments))
		for i, a := range x.Assignments {
			sets[i] = strings.Join(a.Column, ".") + " = " + FormatExpr(a.Value)
		}
		return fmt.Sprintf("UpdateTable %s alias=%s set=[%s] where=%s", strings.Join(x.Table, "."), q(x.Alias),
			strings.Join(sets, ", "), formatOptionalExpr(x.Condition))
	case plan.MergeInto:
		var b strings.Builder
		fmt.Fprintf(&b, "MergeInto %s alias=%s on=%s", strings.Join(x.Table, "."), q(x.Alias), FormatExpr(x.Condition))
		for _, c := range []struct {
			name    string
			actions []plan.MergeAction
		}{{"matched", x.Matched}, {"notMatched", x.NotMatched}, {"notMatchedBySource", x.NotMatchedBySource}} {
			for _, a := range c.actions {
				sets := make([]string, len(a.Assignments))
				for i, s := range a.Assignments {
					sets[i] = strings.Join(s.Column, ".") + " = " + FormatExpr(s.Value)
				}
				fmt.Fprintf(&b, "\n  %s %s when=%s set=[%s]", c.name, mergeActionNames[a.Kind], formatOptionalExpr(a.Condition),
					strings.Join(sets, ", "))
			}
		}
		return withRel(b.String(), x.Source)
	case plan.ShowTables:
		return fmt.Sprintf("ShowTables namespace=%s pattern=%s", strings.Join(x.Namespace, "."), q(x.Pattern))
	case plan.Describe:
		return withRel(fmt.Sprintf("Describe table=%s extended=%t", strings.Join(x.Table, "."), x.Extended), x.Query)
	case plan.SetConf:
		if x.Value == nil {
			return fmt.Sprintf("SetConf key=%s", q(x.Key))
		}
		return fmt.Sprintf("SetConf key=%s value=%s", q(x.Key), q(*x.Value))
	case plan.ResetConf:
		return fmt.Sprintf("ResetConf key=%s", q(x.Key))
	case plan.Explain:
		return withRel("Explain "+x.Mode, x.Input)
	case plan.ShowFunctions:
		return fmt.Sprintf("ShowFunctions pattern=%s", q(x.Pattern))
	case plan.ShowColumns:
		return fmt.Sprintf("ShowColumns %s", strings.Join(x.Table, "."))
	case plan.ShowDatabases:
		return fmt.Sprintf("ShowDatabases pattern=%s", q(x.Pattern))
	case plan.UseDatabase:
		return fmt.Sprintf("UseDatabase %s", strings.Join(x.Name, "."))
	}
	return fmt.Sprintf("%T", c)
}

// formatProperties renders a property map sorted by key: {a=1, b=2}.
func formatProperties(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(keys, ", ") + "}"
}

type formatter struct {
	// subs are the subqueries referenced by expressions rendered so far and not yet written.
	subs []numberedSubquery
	// next numbers subqueries across the whole rendering.
	next int
}

type numberedSubquery struct {
	id  int
	rel plan.Relation
}

// writeSubqueries writes the plans of the subqueries collected since index from.
func (f *formatter) writeSubqueries(b *strings.Builder, prefix string, from int) {
	subs := append([]numberedSubquery(nil), f.subs[from:]...)
	f.subs = f.subs[:from]
	for _, s := range subs {
		f.tree(b, s.rel, prefix+":     ", fmt.Sprintf("%s:  #%d ", prefix, s.id))
	}
}

func (f *formatter) tree(b *strings.Builder, r plan.Relation, prefix, first string) {
	mark := len(f.subs)
	b.WriteString(first)
	b.WriteString(f.label(r))
	b.WriteByte('\n')
	f.writeSubqueries(b, prefix, mark)
	kids := children(r)
	for i, c := range kids {
		if c == nil {
			continue
		}
		if i < len(kids)-1 {
			f.tree(b, c, prefix+":  ", prefix+":- ")
		} else {
			f.tree(b, c, prefix+"   ", prefix+"+- ")
		}
	}
}

func children(r plan.Relation) []plan.Relation {
	switch x := r.(type) {
	case *plan.Join:
		return []plan.Relation{x.Left, x.Right}
	case *plan.SetOp:
		return []plan.Relation{x.Left, x.Right}
	case *plan.Project:
		return []plan.Relation{x.Input}
	case *plan.Filter:
		return []plan.Relation{x.Input}
	case *plan.Limit:
		return []plan.Relation{x.Input}
	case *plan.Offset:
		return []plan.Relation{x.Input}
	case *plan.Tail:
		return []plan.Relation{x.Input}
	case *plan.Sort:
		return []plan.Relation{x.Input}
	case *plan.Aggregate:
		return []plan.Relation{x.Input}
	case *plan.Deduplicate:
		return []plan.Relation{x.Input}
	case *plan.SubqueryAlias:
		return []plan.Relation{x.Input}
	case *plan.ToDF:
		return []plan.Relation{x.Input}
	case *plan.WithColumns:
		return []plan.Relation{x.Input}
	case *plan.WithColumnsRenamed:
		return []plan.Relation{x.Input}
	case *plan.Drop:
		return []plan.Relation{x.Input}
	case *plan.Sample:
		return []plan.Relation{x.Input}
	case *plan.Hint:
		return []plan.Relation{x.Input}
	case *plan.ToSchema:
		return []plan.Relation{x.Input}
	case *plan.ShowString:
		return []plan.Relation{x.Input}
	case *plan.Repartition:
		return []plan.Relation{x.Input}
	case *plan.WithWatermark:
		return []plan.Relation{x.Input}
	case *plan.NAFill:
		return []plan.Relation{x.Input}
	case *plan.NADrop:
		return []plan.Relation{x.Input}
	case *plan.CollectMetrics:
		return []plan.Relation{x.Input}
	case *plan.StatFunction:
		return []plan.Relation{x.Input}
	case *plan.Unpivot:
		return []plan.Relation{x.Input}
	case *plan.Transpose:
		return []plan.Relation{x.Input}
	case *plan.NAReplace:
		return []plan.Relation{x.Input}
	case *plan.Generate:
		return []plan.Relation{x.Input}
	}
	return nil
}

func (f *formatter) list(es []plan.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = f.expr(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (f *formatter) sorts(ss []plan.SortOrder) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = f.expr(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func kv(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Quote(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

var joinNames = map[plan.JoinType]string{
	plan.InnerJoin: "Inner", plan.LeftOuterJoin: "LeftOuter", plan.RightOuterJoin: "RightOuter",
	plan.FullOuterJoin: "FullOuter", plan.LeftSemiJoin: "LeftSemi", plan.LeftAntiJoin: "LeftAnti",
	plan.CrossJoin: "Cross",
}

var setOpNames = map[plan.SetOpType]string{plan.Union: "Union", plan.Intersect: "Intersect", plan.Except: "Except"}

var groupNames = map[plan.GroupType]string{
	plan.GroupBy: "", plan.GroupRollup: " ROLLUP", plan.GroupCube: " CUBE", plan.GroupPivot: " PIVOT",
	plan.GroupingSets: " GROUPING SETS",
}

func planID(r plan.Relation) string {
	if id := r.Common().PlanID; id != 0 {
		return fmt.Sprintf(" #plan%d", id)
	}
	return ""
}

// label renders one relation node (without children).
func (f *formatter) label(r plan.Relation) string {
	if r == nil {
		return "<nil>"
	}
	return f.labelOf(r) + planID(r)
}

func (f *formatter) labelOf(r plan.Relation) string {
	switch x := r.(type) {
	case *plan.NamedTable:
		s := "NamedTable " + formatName(x.Name)
		if len(x.Options) > 0 {
			s += " " + kv(x.Options)
		}
		if tt := x.TimeTravel; tt != nil && tt.Timestamp != nil {
			s += " TIMESTAMP AS OF " + f.expr(tt.Timestamp)
		} else if tt != nil {
			s += " VERSION AS OF " + strconv.Quote(tt.Version)
		}
		return s
	case *plan.SubqueryAlias:
		s := "SubqueryAlias " + quoteIdent(x.Alias)
		if x.ColumnNames != nil {
			s += "(" + strings.Join(x.ColumnNames, ", ") + ")"
		}
		return s
	case *plan.Project:
		s := "Project " + f.list(x.Exprs)
		if x.Input == nil {
			s += " (no input)"
		}
		return s
	case *plan.Filter:
		return "Filter " + f.expr(x.Condition)
	case *plan.Aggregate:
		s := "Aggregate" + groupNames[x.Type]
		if x.Type == plan.GroupingSets {
			sets := make([]string, len(x.Sets))
			for i, set := range x.Sets {
				sets[i] = f.list(set)
			}
			s += " [" + strings.Join(sets, ", ") + "]"
		}
		if x.Type == plan.GroupPivot {
			vals := make([]plan.Expr, len(x.PivotValues))
			for i, v := range x.PivotValues {
				vals[i] = v
			}
			s += " " + f.expr(x.PivotCol) + " " + f.list(vals)
		}
		return s + " " + f.list(x.Grouping) + ", " + f.list(x.Aggs)
	case *plan.Deduplicate:
		s := "Deduplicate "
		if x.AllColumns {
			s += "ALL"
		} else {
			s += "[" + strings.Join(x.Columns, ", ") + "]"
		}
		if x.WithinWatermark {
			s += " WITHIN WATERMARK"
		}
		return s
	case *plan.SetOp:
		s := setOpNames[x.Type]
		if x.IsAll {
			s += " ALL"
		} else {
			s += " DISTINCT"
		}
		if x.ByName {
			s += " BY NAME"
		}
		if x.AllowMissing {
			s += " ALLOW MISSING"
		}
		return s
	case *plan.Join:
		s := "Join " + joinNames[x.Type]
		if x.Condition != nil {
			s += ", " + f.expr(x.Condition)
		}
		if x.UsingColumns != nil {
			s += " USING (" + strings.Join(x.UsingColumns, ", ") + ")"
		}
		return s
	case *plan.Sort:
		s := "Sort " + f.sorts(x.Order)
		if !x.IsGlobal {
			s += " (within partitions)"
		}
		return s
	case *plan.Limit:
		return fmt.Sprintf("Limit %d", x.N)
	case *plan.Offset:
		return fmt.Sprintf("Offset %d", x.N)
	case *plan.Tail:
		return fmt.Sprintf("Tail %d", x.N)
	case *plan.Range:
		return fmt.Sprintf("Range (%d, %d, step=%d, partitions=%d)", x.Start, x.End, x.Step, x.NumPartitions)
	case *plan.Values:
		rows := make([]string, len(x.Rows))
		for i, row := range x.Rows {
			rows[i] = "(" + strings.Trim(f.list(row), "[]") + ")"
		}
		s := "Values"
		if x.Names != nil {
			s += " [" + strings.Join(x.Names, ", ") + "]"
		}
		return s + " " + strings.Join(rows, ", ")
	case *plan.LocalRelation:
		s := fmt.Sprintf("LocalRelation batches=%d", len(x.Records))
		if x.Schema != nil {
			s += " schema=" + x.Schema.AsStruct().String()
		}
		return s
	case *plan.DataSource:
		return fmt.Sprintf("DataSource format=%s schema=%q paths=%v predicates=%v streaming=%t options=%s",
			x.Format, x.Schema, x.Paths, x.Predicates, x.IsStreaming, kv(x.Options))
	case *plan.ToDF:
		return "ToDF [" + strings.Join(x.Names, ", ") + "]"
	case *plan.WithColumns:
		es := make([]plan.Expr, len(x.Aliases))
		for i, a := range x.Aliases {
			es[i] = a
		}
		return "WithColumns " + f.list(es)
	case *plan.WithColumnsRenamed:
		parts := make([]string, len(x.Renames))
		for i, r := range x.Renames {
			parts[i] = r[0] + " -> " + r[1]
		}
		return "WithColumnsRenamed [" + strings.Join(parts, ", ") + "]"
	case *plan.Drop:
		return "Drop " + f.list(x.Columns) + " [" + strings.Join(x.Names, ", ") + "]"
	case *plan.Sample:
		s := fmt.Sprintf("Sample [%g, %g) withReplacement=%t", x.LowerBound, x.UpperBound, x.WithReplacement)
		if x.Seed != nil {
			s += fmt.Sprintf(" seed=%d", *x.Seed)
		}
		return s
	case *plan.Hint:
		if len(x.Params) == 0 {
			return "Hint " + x.Name
		}
		params := make([]string, len(x.Params))
		for i, e := range x.Params {
			params[i] = f.expr(e)
		}
		return "Hint " + x.Name + " [" + strings.Join(params, ", ") + "]"
	case *plan.ToSchema:
		return "ToSchema " + x.Schema.AsStruct().String()
	case *plan.ShowString:
		return fmt.Sprintf("ShowString rows=%d truncate=%d vertical=%t", x.NumRows, x.Truncate, x.Vertical)
	case *plan.Repartition:
		return fmt.Sprintf("Repartition %d shuffle=%t %s", x.NumPartitions, x.Shuffle, f.list(x.Exprs))
	case *plan.WithWatermark:
		return fmt.Sprintf("WithWatermark %s, %s", x.EventTime, x.Delay)
	case *plan.NAFill:
		vals := make([]plan.Expr, len(x.Values))
		for i, v := range x.Values {
			vals[i] = v
		}
		return "NAFill [" + strings.Join(x.Cols, ", ") + "] " + f.list(vals)
	case *plan.CollectMetrics:
		return "CollectMetrics " + x.Name + ", " + f.list(x.Metrics)
	case *plan.NAReplace:
		old, repl := make([]plan.Expr, len(x.Old)), make([]plan.Expr, len(x.New))
		for i := range x.Old {
			old[i], repl[i] = x.Old[i], x.New[i]
		}
		return "NAReplace [" + strings.Join(x.Cols, ", ") + "] " + f.list(old) + " -> " + f.list(repl)
	case *plan.Unpivot:
		return "Unpivot " + f.list(x.Ids) + " " + f.list(x.Values) + " " + x.VariableName + ", " + x.ValueName
	case *plan.Transpose:
		return "Transpose " + f.list(x.Index)
	case *plan.StatFunction:
		s := fmt.Sprintf("StatFunction %d [%s] method=%q probabilities=%v relativeError=%v",
			x.Kind, strings.Join(x.Cols, ", "), x.Method, x.Probabilities, x.RelativeError)
		if len(x.Statistics) > 0 {
			s += " statistics=[" + strings.Join(x.Statistics, ", ") + "]"
		}
		if x.Kind == plan.StatFreqItems {
			s += fmt.Sprintf(" support=%v", x.Support)
		}
		if x.SampleCol != nil {
			s += " sampleBy " + f.expr(x.SampleCol) + fmt.Sprintf(" fractions=%v seed=%d", x.Fractions, x.Seed)
		}
		return s
	case *plan.NADrop:
		s := "NADrop [" + strings.Join(x.Cols, ", ") + "]"
		if x.MinNonNulls != nil {
			s += fmt.Sprintf(" minNonNulls=%d", *x.MinNonNulls)
		}
		return s
	case *plan.SQLQuery:
		return "SQLQuery " + strconv.Quote(x.Query)
	case *plan.Generate:
		s := "Generate " + f.expr(x.Generator)
		if x.Outer {
			s += " OUTER"
		}
		if x.TableFunction {
			s += " (table function)"
		}
		if x.Alias != "" {
			s += " " + x.Alias
		}
		return s + " [" + strings.Join(x.ColumnNames, ", ") + "]"
	}
	return fmt.Sprintf("%T", r)
}

// simpleIdent matches identifiers that need no backquotes.
func simpleIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func quoteIdent(s string) string {
	if simpleIdent(s) {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func formatName(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = quoteIdent(p)
	}
	return strings.Join(q, ".")
}

func (f *formatter) subquery(r plan.Relation) string {
	f.next++
	f.subs = append(f.subs, numberedSubquery{f.next, r})
	return fmt.Sprintf("#%d", f.next)
}

func (f *formatter) expr(e plan.Expr) string {
	switch x := e.(type) {
	case nil:
		return "<nil>"
	case plan.Literal:
		return formatLiteral(x)
	case plan.ColumnRef:
		s := formatName(x.Name)
		if x.IsMetadata {
			s = "metadata:" + s
		}
		if x.PlanID != 0 {
			s += fmt.Sprintf("#plan%d", x.PlanID)
		}
		return s
	case plan.Star:
		s := "*"
		if len(x.Target) > 0 {
			s = formatName(x.Target) + ".*"
		}
		if x.PlanID != 0 {
			s += fmt.Sprintf("#plan%d", x.PlanID)
		}
		return s
	case plan.Call:
		s := x.Name + "("
		if x.Distinct {
			s += "DISTINCT "
		}
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = f.expr(a)
			if x.ArgNames != nil && x.ArgNames[i] != "" {
				args[i] = quoteIdent(x.ArgNames[i]) + " => " + args[i]
			}
		}
		s += strings.Join(args, ", ") + ")"
		if x.WithinGroup != nil {
			s += " WITHIN GROUP (ORDER BY " + f.sorts(x.WithinGroup) + ")"
		}
		if x.Filter != nil {
			s += " FILTER (WHERE " + f.expr(x.Filter) + ")"
		}
		return s
	case plan.Alias:
		names := make([]string, len(x.Names))
		for i, n := range x.Names {
			names[i] = quoteIdent(n)
		}
		s := f.expr(x.Child) + " AS "
		if len(names) == 1 {
			s += names[0]
		} else {
			s += "(" + strings.Join(names, ", ") + ")"
		}
		if x.Metadata != "" {
			s += " " + x.Metadata
		}
		return s
	case plan.Cast:
		fn := [...]string{"CAST", "LEGACY_CAST", "ANSI_CAST", "TRY_CAST"}[x.Mode%4]
		to := x.To.String()
		if x.TypeString != "" {
			to = x.TypeString
		}
		return fn + "(" + f.expr(x.Child) + " AS " + to + ")"
	case plan.SortOrder:
		s := f.expr(x.Child)
		if x.Descending {
			s += " DESC"
		} else {
			s += " ASC"
		}
		if x.NullsFirst {
			return s + " NULLS FIRST"
		}
		return s + " NULLS LAST"
	case plan.ExtractValue:
		return f.expr(x.Child) + "[" + f.expr(x.Extraction) + "]"
	case plan.LambdaVar:
		return "lambda " + quoteIdent(x.Name)
	case plan.Lambda:
		return "(" + strings.Join(x.Params, ", ") + ") -> " + f.expr(x.Body)
	case plan.ScalarSubquery:
		return "scalar-subquery" + f.subquery(x.Plan)
	case *plan.TableArgument:
		s := "TABLE"
		switch {
		case x.SinglePartition:
			s += " WITH SINGLE PARTITION"
		case x.PartitionBy != nil:
			s += " PARTITION BY " + f.list(x.PartitionBy)
		}
		if x.OrderBy != nil {
			orders := make([]plan.Expr, len(x.OrderBy))
			for i, o := range x.OrderBy {
				orders[i] = o
			}
			s += " ORDER BY " + f.list(orders)
		}
		return s + f.subquery(x.Input)
	case plan.Exists:
		s := "exists" + f.subquery(x.Plan)
		if x.Not {
			s = "NOT " + s
		}
		return s
	case plan.InSubquery:
		s := "(" + strings.Trim(f.list(x.Values), "[]") + ")"
		if x.Not {
			s += " NOT"
		}
		return s + " IN subquery" + f.subquery(x.Plan)
	case plan.Window:
		var parts []string
		if len(x.PartitionBy) > 0 {
			parts = append(parts, "PARTITION BY "+strings.Trim(f.list(x.PartitionBy), "[]"))
		}
		if len(x.OrderBy) > 0 {
			parts = append(parts, "ORDER BY "+strings.Trim(f.sorts(x.OrderBy), "[]"))
		}
		if x.Frame != nil {
			kind := "ROWS"
			if x.Frame.IsRange {
				kind = "RANGE"
			}
			parts = append(parts, kind+" BETWEEN "+f.bound(x.Frame.Lower, "PRECEDING")+" AND "+f.bound(x.Frame.Upper, "FOLLOWING"))
		}
		return f.expr(x.Func) + " OVER (" + strings.Join(parts, " ") + ")"
	case *plan.PythonUDF:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = f.expr(a)
			if x.ArgNames != nil && x.ArgNames[i] != "" {
				args[i] = x.ArgNames[i] + " => " + args[i]
			}
		}
		return x.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("%T", e)
}

func (f *formatter) bound(b *plan.FrameBound, unboundedDir string) string {
	switch {
	case b == nil || b.Unbounded:
		return "UNBOUNDED " + unboundedDir
	case b.CurrentRow:
		return "CURRENT ROW"
	}
	return "OFFSET " + f.expr(b.Offset)
}

// formatLiteral renders a literal; ints, strings and booleans bare, others as value:type.
func formatLiteral(l plan.Literal) string {
	if l.Value == nil {
		if l.Type.Kind == sqltypes.Null {
			return "NULL"
		}
		return "NULL:" + l.Type.String()
	}
	var v string
	switch x := l.Value.(type) {
	case bool:
		if l.Type.Kind == sqltypes.Boolean {
			return strconv.FormatBool(x)
		}
		v = strconv.FormatBool(x)
	case int32:
		if l.Type.Kind == sqltypes.Integer {
			return strconv.FormatInt(int64(x), 10)
		}
		v = strconv.FormatInt(int64(x), 10)
	case string:
		q := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(x) + "'"
		if l.Type.Kind == sqltypes.String {
			return q
		}
		v = q
	case int8, int16, int64:
		v = fmt.Sprint(x)
	case float32:
		v = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		v = strconv.FormatFloat(x, 'g', -1, 64)
	case decimal128.Num:
		v = x.ToString(l.Type.Scale)
	case []byte:
		v = "X'" + strings.ToUpper(hex.EncodeToString(x)) + "'"
	default:
		v = fmt.Sprint(x)
	}
	return v + ":" + l.Type.String()
}

var mergeActionNames = map[plan.MergeActionKind]string{plan.MergeDelete: "delete", plan.MergeUpdate: "update",
	plan.MergeUpdateStar: "update*", plan.MergeInsert: "insert", plan.MergeInsertStar: "insert*"}
