package logical

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Node is a resolved logical plan node.
type Node interface {
	Schema() sqltypes.Schema
	Children() []Node
	// Describe is the node's line in an explain tree, e.g. "Filter (a > 1)".
	Describe() string
}

// IsStreaming reports whether any leaf under n reads an unbounded source.
func IsStreaming(n Node) bool {
	if s, ok := n.(*SourceScan); ok {
		return s.Streaming
	}
	for _, c := range n.Children() {
		if IsStreaming(c) {
			return true
		}
	}
	return false
}

// TreeString renders n as Spark-like explain lines.
func TreeString(n Node) string {
	var b strings.Builder
	var walk func(Node, int)
	walk = func(n Node, depth int) {
		if depth > 0 {
			b.WriteString(strings.Repeat("   ", depth-1) + "+- ")
		}
		b.WriteString(n.Describe())
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func exprList(es []expr.Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.String()
	}
	return strings.Join(s, ", ")
}

// Range produces ids [Start, End) by Step in a single bigint column "id".
type Range struct {
	Start, End, Step int64
	Partitions       int
}

// Schema implements Node.
func (r *Range) Schema() sqltypes.Schema {
	return sqltypes.Schema{{Name: "id", Type: sqltypes.LongType}}
}

// Children implements Node.
func (r *Range) Children() []Node { return nil }

// Describe implements Node.
func (r *Range) Describe() string {
	return fmt.Sprintf("Range (%d, %d, step=%d, splits=%d)", r.Start, r.End, r.Step, r.Partitions)
}

// LocalData is inline rows (createDataFrame, VALUES, command results). Records hold the user
// columns in Out's types; the node keeps a reference and the planner retains what it uses.
type LocalData struct {
	Out     sqltypes.Schema
	Records []arrow.RecordBatch
	// Snapshot, when set, supplies the rows instead of Records each time the plan runs (a live
	// table such as the memory sink's); the batches it returns belong to the caller.
	Snapshot func() []arrow.RecordBatch
}

// Schema implements Node.
func (l *LocalData) Schema() sqltypes.Schema { return l.Out }

// Children implements Node.
func (l *LocalData) Children() []Node { return nil }

// Describe implements Node.
func (l *LocalData) Describe() string {
	return "LocalRelation [" + strings.Join(l.Out.Names(), ", ") + "]"
}

// SourceScan reads a data source (rate, socket, kafka, files…) through the sources registry.
type SourceScan struct {
	Format    string
	Options   map[string]string
	Paths     []string
	Out       sqltypes.Schema
	Streaming bool
	// UserSchema is the schema the user gave (DDL or JSON, as sent), "" if none; sources that
	// need it (files) are opened with it.
	UserSchema string
	// Filters are conjuncts over Out (bound to Out's column indices) that the optimizer pushed
	// down: a source may use them to skip data it can prove no row of passes (files, Parquet
	// row groups, partitions) but need not; the Filter above the scan still applies them.
	Filters []expr.Expr
}

// Schema implements Node.
func (s *SourceScan) Schema() sqltypes.Schema { return s.Out }

// Children implements Node.
func (s *SourceScan) Children() []Node { return nil }

// Describe implements Node.
func (s *SourceScan) Describe() string {
	kind := "Relation"
	if s.Streaming {
		kind = "StreamingRelation"
	}
	d := fmt.Sprintf("%s %s [%s]", kind, s.Format, strings.Join(s.Out.Names(), ", "))
	if len(s.Filters) > 0 {
		d += ", PushedFilters: [" + exprList(s.Filters) + "]"
	}
	return d
}

// Project computes Exprs (each named by expr.OutputName) from Input.
type Project struct {
	Input Node
	Exprs []expr.Expr
}

// Schema implements Node.
func (p *Project) Schema() sqltypes.Schema { return SchemaOf(p.Exprs) }

// Children implements Node.
func (p *Project) Children() []Node { return []Node{p.Input} }

// Describe implements Node.
func (p *Project) Describe() string { return "Project [" + exprList(p.Exprs) + "]" }

// SchemaOf is the schema of a projection list.
func SchemaOf(es []expr.Expr) sqltypes.Schema {
	s := make(sqltypes.Schema, len(es))
	for i, e := range es {
		s[i] = sqltypes.Field{Name: expr.OutputName(e), Type: e.Type(), Nullable: e.Nullable()}
	}
	return s
}

// Filter keeps rows where Cond is true (null counts as false).
type Filter struct {
	Input Node
	Cond  expr.Expr
}

// Schema implements Node.
func (f *Filter) Schema() sqltypes.Schema { return f.Input.Schema() }

// Children implements Node.
func (f *Filter) Children() []Node { return []Node{f.Input} }

// Describe implements Node.
func (f *Filter) Describe() string { return "Filter " + f.Cond.String() }

// Aggregate groups Input by Groups and computes Aggs per group. Output columns are the grouping
// expressions (named by OutputName) followed by the aggregates (named by Names, or String()).
// Anything computed from these (HAVING, expressions over aggregates) is a Project/Filter above.
type Aggregate struct {
	Input  Node
	Groups []expr.Expr
	Aggs   []expr.AggFunc
	Names  []string // output names of Aggs
}

// Schema implements Node.
func (a *Aggregate) Schema() sqltypes.Schema {
	s := SchemaOf(a.Groups)
	for i, ag := range a.Aggs {
		s = append(s, sqltypes.Field{Name: a.Names[i], Type: ag.Type(), Nullable: ag.Nullable()})
	}
	return s
}

// Children implements Node.
func (a *Aggregate) Children() []Node { return []Node{a.Input} }

// Describe implements Node.
func (a *Aggregate) Describe() string {
	ags := make([]string, len(a.Aggs))
	for i, ag := range a.Aggs {
		ags[i] = ag.String()
	}
	return "Aggregate [" + exprList(a.Groups) + "], [" + strings.Join(ags, ", ") + "]"
}

// SortKey is one ordering key.
type SortKey struct {
	Expr       expr.Expr
	Descending bool
	NullsFirst bool
}

// String renders the key like Spark: "a ASC NULLS FIRST".
func (k SortKey) String() string {
	dir, nulls := "ASC", "NULLS LAST"
	if k.Descending {
		dir = "DESC"
	}
	if k.NullsFirst {
		nulls = "NULLS FIRST"
	}
	return k.Expr.String() + " " + dir + " " + nulls
}

// Sort orders Input by Keys; Global false sorts within each partition only.
type Sort struct {
	Input  Node
	Keys   []SortKey
	Global bool
}

// Schema implements Node.
func (s *Sort) Schema() sqltypes.Schema { return s.Input.Schema() }

// Children implements Node.
func (s *Sort) Children() []Node { return []Node{s.Input} }

// Describe implements Node.
func (s *Sort) Describe() string {
	k := make([]string, len(s.Keys))
	for i, key := range s.Keys {
		k[i] = key.String()
	}
	return fmt.Sprintf("Sort [%s], %t", strings.Join(k, ", "), s.Global)
}

// Limit skips Offset rows, then keeps at most N (N < 0: no limit).
type Limit struct {
	Input     Node
	N, Offset int64
}

// Schema implements Node.
func (l *Limit) Schema() sqltypes.Schema { return l.Input.Schema() }

// Children implements Node.
func (l *Limit) Children() []Node { return []Node{l.Input} }

// Describe implements Node.
func (l *Limit) Describe() string {
	if l.Offset > 0 {
		return fmt.Sprintf("GlobalLimit %d, Offset %d", l.N, l.Offset)
	}
	return fmt.Sprintf("GlobalLimit %d", l.N)
}

// Tail keeps the last N rows.
type Tail struct {
	Input Node
	N     int64
}

// Schema implements Node.
func (t *Tail) Schema() sqltypes.Schema { return t.Input.Schema() }

// Children implements Node.
func (t *Tail) Children() []Node { return []Node{t.Input} }

// Describe implements Node.
func (t *Tail) Describe() string { return fmt.Sprintf("Tail %d", t.N) }
