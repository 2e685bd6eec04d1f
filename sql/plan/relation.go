package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Relation is an unresolved relational plan node.
type Relation interface {
	// Common returns the node's shared fields.
	Common() *RelCommon
}

// RelCommon holds fields every relation has.
type RelCommon struct {
	// PlanID is the client's plan id, 0 if none.
	PlanID int64
}

// Common implements Relation.
func (c *RelCommon) Common() *RelCommon { return c }

// Range is spark.range / SQL range(): [Start, End) by Step, in NumPartitions partitions when
// HasNumPartitions (the default otherwise); a given count ≤ 0 is the analyzer's to refuse.
type Range struct {
	RelCommon
	Start, End, Step int64
	NumPartitions    int32
	HasNumPartitions bool
}

// LocalRelation is inline data (createDataFrame). Records may be empty when only Schema is
// given. Records are owned by the relation (released by its owner, the session or request).
type LocalRelation struct {
	RelCommon
	// Schema, if set, overrides names/types/nullability of the Arrow data (Spark applies the
	// user schema to the IPC data).
	Schema  *sqltypes.Schema
	Records []arrow.RecordBatch
	// ArrowSchema is the schema of the IPC data (when there is data).
	ArrowSchema *arrow.Schema
}

// Values is SQL VALUES (…), (…): rows of expressions, with optional column names.
type Values struct {
	RelCommon
	Rows  [][]Expr
	Names []string
}

// NamedTable reads a table or temp view by (possibly qualified) name.
type NamedTable struct {
	RelCommon
	Name    []string
	Options map[string]string
	// IsStreaming is spark.readStream.table(name).
	IsStreaming bool
	// TimeTravel is SQL's VERSION AS OF / TIMESTAMP AS OF after the name (nil: none).
	TimeTravel *TimeTravel
}

// TimeTravel is a table read's temporal clause: [FOR] VERSION|SYSTEM_VERSION AS OF version, or
// [FOR] TIMESTAMP|SYSTEM_TIME AS OF expr (a constant expression the analyzer evaluates as a
// timestamp).
type TimeTravel struct {
	Version   string // the version (a snapshot id or a reference name) when Timestamp is nil
	Timestamp Expr
}

// DataSource reads from a data source by format (spark.read / spark.readStream).
type DataSource struct {
	RelCommon
	Format      string
	Schema      string // DDL or JSON schema string given by the user, or ""
	Options     map[string]string
	Paths       []string
	Predicates  []string
	IsStreaming bool
}

// Project is SELECT exprs FROM Input. Input may be nil (SELECT without FROM).
type Project struct {
	RelCommon
	Input Relation
	Exprs []Expr
}

// Filter is WHERE / HAVING.
type Filter struct {
	RelCommon
	Input     Relation
	Condition Expr
}

// Limit keeps the first N rows.
type Limit struct {
	RelCommon
	Input Relation
	N     int64
}

// Offset skips the first N rows.
type Offset struct {
	RelCommon
	Input Relation
	N     int64
}

// Tail keeps the last N rows.
type Tail struct {
	RelCommon
	Input Relation
	N     int64
}

// Sort orders rows; IsGlobal false is sortWithinPartitions.
type Sort struct {
	RelCommon
	Input    Relation
	Order    []SortOrder
	IsGlobal bool
}

// GroupType is the kind of grouping.
type GroupType uint8

// Group types.
const (
	GroupBy GroupType = iota
	GroupRollup
	GroupCube
	GroupPivot
	GroupingSets
)

// Aggregate is GROUP BY. Aggs are the output expressions (which may also reference grouping
// expressions, as in SQL). When Grouping is empty it is a global aggregate.
type Aggregate struct {
	RelCommon
	Input    Relation
	Type     GroupType
	Grouping []Expr
	Aggs     []Expr
	// Pivot, for GroupPivot.
	PivotCol    Expr
	PivotValues []Literal
	// Sets, for GroupingSets.
	Sets [][]Expr
}

// Deduplicate is distinct() (Columns empty, AllColumns true) or dropDuplicates(cols).
type Deduplicate struct {
	RelCommon
	Input           Relation
	Columns         []string
	AllColumns      bool
	WithinWatermark bool
}

// SetOpType is the kind of set operation.
type SetOpType uint8

// Set operation kinds.
const (
	Union SetOpType = iota
	Intersect
	Except
)

// SetOp is UNION / INTERSECT / EXCEPT. IsAll keeps duplicates; ByName matches columns by name
// (unionByName), AllowMissing fills missing columns with null.
type SetOp struct {
	RelCommon
	Left, Right  Relation
	Type         SetOpType
	IsAll        bool
	ByName       bool
	AllowMissing bool
}

// JoinType is the kind of join.
type JoinType uint8

// Join types.
const (
	InnerJoin JoinType = iota
	LeftOuterJoin
	RightOuterJoin
	FullOuterJoin
	LeftSemiJoin
	LeftAntiJoin
	CrossJoin
)

// Join joins Left and Right on Condition (nil = no condition) or on equal UsingColumns.
type Join struct {
	RelCommon
	Left, Right  Relation
	Type         JoinType
	Condition    Expr
	UsingColumns []string
}

// SubqueryAlias names a relation (df.alias("t"), FROM x AS t); ColumnNames optionally renames
// its columns (FROM x AS t(a, b)).
type SubqueryAlias struct {
	RelCommon
	Input       Relation
	Alias       string
	ColumnNames []string
}

// ToDF renames all columns.
type ToDF struct {
	RelCommon
	Input Relation
	Names []string
}

// WithColumns adds or replaces columns (each Alias names its column).
type WithColumns struct {
	RelCommon
	Input   Relation
	Aliases []Alias
}

// WithColumnsRenamed renames columns old→new, in order.
type WithColumnsRenamed struct {
	RelCommon
	Input   Relation
	Renames [][2]string
}

// Drop removes columns given by expression or by name.
type Drop struct {
	RelCommon
	Input   Relation
	Columns []Expr
	Names   []string
}

// Sample keeps a random fraction of rows.
type Sample struct {
	RelCommon
	Input                  Relation
	LowerBound, UpperBound float64
	WithReplacement        bool
	Seed                   *int64
}

// Hint is a plan hint (ignored by the engine, kept for explain).
type Hint struct {
	RelCommon
	Input Relation
	Name  string
	// Params are the hint's parameters: literals (numbers of partitions) and column references
	// (the relations a join strategy hint names, the columns of a repartition hint).
	Params []Expr
}

// ToSchema casts and reorders the input to a target schema (DataFrame.to(schema)).
type ToSchema struct {
	RelCommon
	Input  Relation
	Schema sqltypes.Schema
}

// ShowString renders the input as Spark's show() table, a single string column "show_string";
// HTML: as Spark's htmlString (the notebook table, HtmlString), column "html_string".
type ShowString struct {
	RelCommon
	Input    Relation
	NumRows  int32
	Truncate int32
	Vertical bool
	HTML     bool
}

// Repartition changes partitioning (repartition / coalesce / repartitionByExpression).
// NumPartitions 0 is "not given" (only with Exprs); a negative count, or 0 without Exprs, is
// the analyzer's to refuse.
type Repartition struct {
	RelCommon
	Input         Relation
	NumPartitions int32
	Shuffle       bool
	Exprs         []Expr
}

// WithWatermark declares an event-time watermark.
type WithWatermark struct {
	RelCommon
	Input     Relation
	EventTime string
	Delay     string
}

// CollectMetrics is df.observe(name, *metrics): the input's rows unchanged, and the metrics
// (aggregate expressions, named) computed over them and reported under Name: to the client
// with a batch result, in each micro-batch's progress (observedMetrics) for a stream.
type CollectMetrics struct {
	RelCommon
	Input   Relation
	Name    string
	Metrics []Expr
}

// StatKind names a df.stat function that StatFunction computes.
type StatKind int

// The df.stat functions.
const (
	StatCorr StatKind = iota + 1
	StatCov
	StatApproxQuantile
	StatSummary
	StatCrosstab
	StatFreqItems
	StatSampleBy
)

// StatFunction is a df.stat function over columns of Input, computed as Spark's StatFunctions
// does: corr and cov of Cols[0] and Cols[1] (one row, column "corr" / "cov"), approxQuantile
// of Cols at Probabilities within RelativeError (one row, column "approx_quantile", an array
// per column); summary (df.summary, df.describe) of Statistics over Cols (every column when
// empty); crosstab of Cols[0] by Cols[1]; freqItems of Cols at Support; sampleBy of the rows
// by SampleCol's stratum at Fractions, drawing rand(Seed).
type StatFunction struct {
	RelCommon
	Input         Relation
	Kind          StatKind
	Cols          []string
	Method        string // corr's method ("pearson")
	Probabilities []float64
	RelativeError float64
	Statistics    []string
	Support       float64
	SampleCol     Expr
	Fractions     []StatFraction
	Seed          int64
}

// StatFraction is sampleBy's sampling fraction of one stratum.
type StatFraction struct {
	Stratum  Literal
	Fraction float64
}

// Unpivot is df.unpivot / melt: per input row, one row per value column holding the Ids, the
// value column's name (VariableName) and its value (ValueName). Values nil: every column that is
// not an id.
type Unpivot struct {
	RelCommon
	Input        Relation
	Ids          []Expr
	Values       []Expr
	VariableName string
	ValueName    string
}

// Transpose is df.transpose(index): the values of the index column (Index; none: the first
// column) become the columns, every other column a row.
type Transpose struct {
	RelCommon
	Input Relation
	Index []Expr
}

// NAFill, NADrop and NAReplace are df.na.fill/drop/replace.
type NAFill struct {
	RelCommon
	Input  Relation
	Cols   []string
	Values []Literal
}

// NAReplace is df.na.replace: in Cols (none: every column) whose type the first old value
// fits, each Old[i] becomes New[i] (a NULL New replaces with NULL).
type NAReplace struct {
	RelCommon
	Input    Relation
	Cols     []string
	Old, New []Literal
}

// NADrop drops rows with fewer than MinNonNulls non-null values among Cols (nil = all).
type NADrop struct {
	RelCommon
	Input       Relation
	Cols        []string
	MinNonNulls *int32
}

// SQLQuery is SQL text whose result is a relation (spark.sql("SELECT …")), with named and
// positional arguments. Front doors hand the text to the SQL parser.
type SQLQuery struct {
	RelCommon
	Query     string
	Args      map[string]Expr
	PosArgs   []Expr
	Resolved  Relation // set once parsed
	Statement Command  // set once parsed when the text is a command
}
