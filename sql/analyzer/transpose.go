package analyzer

import (
	"context"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// resolveTranspose resolves df.transpose(index) as Spark's ResolveTranspose: the index column
// (the first column when none is given) must be an atomic column; its non-NULL values, read
// while analysing (at most spark.sql.transposeMaxValues of them) and sorted ascending (ties in
// input order), become the columns, named by the value as a string; every other column becomes
// one row, "key" its name and its values cast to the other columns' tightest common type.
func (a *Analyzer) resolveTranspose(ctx context.Context, n *plan.Transpose) (*resolved, error) {
	in, err := a.resolve(ctx, n.Input)
	if err != nil {
		return nil, err
	}
	if len(in.cols) == 0 {
		return newResolved(&logical.LocalData{Out: sqltypes.Schema{{Name: "key", Type: sqltypes.StringType}}}), nil
	}
	index := 0
	if len(n.Index) > 0 {
		x, err := a.binderOver(in).bind(n.Index[0])
		if err != nil {
			return nil, err
		}
		col, isCol := trimAlias(x).(*expr.Column)
		if !isCol {
			return nil, transposeIndexError("Index column must be an atomic attribute")
		}
		index = col.Index
	}
	it := in.cols[index].typ
	if it.Kind == sqltypes.Array || it.Kind == sqltypes.Map || it.Kind == sqltypes.Struct || it.Kind == sqltypes.Variant {
		return nil, transposeIndexError("Index column must be of atomic type, but found: " + sparkTypeName(it))
	}
	var valueCols []int
	var common sqltypes.DataType
	for i, c := range in.cols {
		if i == index {
			continue
		}
		if len(valueCols) == 0 {
			common = c.typ
		} else {
			t, ok := tightestCommonType(common, c.typ)
			if !ok {
				dt1, dt2 := `"`+common.SQL()+`"`, `"`+c.typ.SQL()+`"`
				return nil, sparkerr.Analysis("TRANSPOSE_NO_LEAST_COMMON_TYPE", "42K09",
					"Transpose requires non-index columns to share a least common type, but %s and %s do not.", dt1, dt2).
					WithParams("dt1", dt1, "dt2", dt2)
			}
			common = t
		}
		valueCols = append(valueCols, i)
	}
	if len(valueCols) == 0 {
		common = sqltypes.StringType
	}
	// The rows: the index and each value column cast to the common type, NULL indexes dropped.
	limit := a.TransposeMaxValues
	if limit <= 0 {
		limit = 500
	}
	exprs := []expr.Expr{in.ref(index)}
	for _, i := range valueCols {
		var x expr.Expr = in.ref(i)
		if !x.Type().Equal(common) {
			if x, err = expr.NewCast(x, common, plan.CastDefault, a.Options); err != nil {
				return nil, err
			}
		}
		exprs = append(exprs, &expr.Alias{Child: x, Name: in.cols[i].name})
	}
	notNull, err := expr.Bind("isnotnull", []expr.Expr{in.ref(index)}, a.Options)
	if err != nil {
		return nil, err
	}
	rowsNode := &logical.Limit{N: int64(limit) + 1, Input: &logical.Project{Exprs: exprs,
		Input: &logical.Filter{Input: in.node, Cond: notNull}}}
	if a.Collect == nil {
		return nil, sparkerr.Unsupported("transpose needs to read the data")
	}
	rows, err := a.Collect(ctx, rowsNode, limit+1)
	if err != nil {
		return nil, err
	}
	if len(rows) > limit {
		return nil, sparkerr.Analysis("TRANSPOSE_EXCEED_ROW_LIMIT", "54006",
			"Number of rows exceeds the allowed limit of %d for TRANSPOSE. If this was intended, set spark.sql.transposeMaxValues to at least the current row count.", limit).
			WithParams("maxValues", strconv.Itoa(limit), "config", "spark.sql.transposeMaxValues")
	}
	slices.SortStableFunc(rows, func(x, y []any) int { return expr.Compare(x[0], y[0], it) })
	// The output: key, then one column per index value.
	schema := sqltypes.Schema{{Name: "key", Type: sqltypes.StringType}}
	for _, r := range rows {
		name, err := a.pivotValueName(expr.NewLiteral(r[0], it))
		if err != nil {
			return nil, err
		}
		schema = append(schema, sqltypes.Field{Name: name, Type: common, Nullable: true})
	}
	cols := make([]arrow.Array, len(schema))
	keys := make([]any, len(valueCols))
	for k, i := range valueCols {
		keys[k] = in.cols[i].name
	}
	cols[0] = expr.BuildArray(memory.DefaultAllocator, sqltypes.StringType, a.Options.TimeZone, keys)
	for c, r := range rows {
		values := make([]any, len(valueCols))
		for k := range valueCols {
			values[k] = r[k+1]
		}
		cols[c+1] = expr.BuildArray(memory.DefaultAllocator, common, a.Options.TimeZone, values)
	}
	rec := array.NewRecordBatch(sqltypes.ToArrowSchema(schema, a.Options.TimeZone), cols, int64(len(valueCols)))
	for _, c := range cols {
		c.Release()
	}
	return newResolved(&logical.LocalData{Out: schema, Records: []arrow.RecordBatch{rec}}), nil
}

// transposeIndexError is Spark's TRANSPOSE_INVALID_INDEX_COLUMN.
func transposeIndexError(reason string) error {
	return sparkerr.Analysis("TRANSPOSE_INVALID_INDEX_COLUMN", "42804", "Invalid index column for TRANSPOSE because: %s", reason).
		WithParams("reason", reason)
}

// tightestCommonType is Spark's TypeCoercion.findTightestCommonType: equal types, NULL with
// anything, numbers other than decimals widened, a decimal with an integer it holds exactly,
// DATE with TIMESTAMP; nothing else (no string promotion).
func tightestCommonType(a, b sqltypes.DataType) (sqltypes.DataType, bool) {
	switch {
	case a.EqualIgnoreNullable(b):
		return a, true
	case a.Kind == sqltypes.Null:
		return b, true
	case b.Kind == sqltypes.Null:
		return a, true
	case a.IsNumeric() && b.IsNumeric() && a.Kind != sqltypes.Decimal && b.Kind != sqltypes.Decimal:
		return expr.CommonType(a, b)
	case a.Kind == sqltypes.Decimal && b.IsIntegral():
		if decimalHolds(a, b) {
			return a, true
		}
	case b.Kind == sqltypes.Decimal && a.IsIntegral():
		if decimalHolds(b, a) {
			return b, true
		}
	case (a.Kind == sqltypes.Date || a.Kind == sqltypes.Timestamp) && (b.Kind == sqltypes.Date || b.Kind == sqltypes.Timestamp):
		return sqltypes.TimestampType, true
	}
	return sqltypes.DataType{}, false
}

// decimalHolds reports whether decimal d holds every value of integer type i (Spark's
// DecimalType.isWiderThan: DecimalType.forType(i) fits in d's integral digits).
func decimalHolds(d, i sqltypes.DataType) bool {
	digits := map[sqltypes.Kind]int{sqltypes.Byte: 3, sqltypes.Short: 5, sqltypes.Integer: 10, sqltypes.Long: 20}[i.Kind]
	return int(d.Precision-d.Scale) >= digits
}
