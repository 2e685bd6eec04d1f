package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	"github.com/weirhq/weir/sql/showstring"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var (
	showStringSchema = sqltypes.Schema{{Name: "show_string", Type: sqltypes.StringType}}
	htmlStringSchema = sqltypes.Schema{{Name: "html_string", Type: sqltypes.StringType}}
)

// showStringSchemaNode stands for the analyzed ShowString relation (schema only).
func showStringSchemaNode(show *plan.ShowString) logical.Node {
	if show.HTML {
		return &logical.LocalData{Out: htmlStringSchema}
	}
	return &logical.LocalData{Out: showStringSchema}
}

// showString runs show.Input (limited to NumRows+1 rows, every column cast to string) and renders
// it like Spark's Dataset.showString (htmlString when show.HTML).
func (s *Session) showString(ctx context.Context, show *plan.ShowString) (*Result, error) {
	node, err := s.analyzer().Resolve(ctx, show.Input)
	if err != nil {
		return nil, err
	}
	opts := s.exprOptions()
	schema := node.Schema()
	casts := make([]expr.Expr, len(schema))
	for i, f := range schema {
		col := &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
		c, err := expr.NewCast(col, sqltypes.StringType, plan.CastTry, opts)
		if err != nil {
			return nil, err
		}
		casts[i] = &expr.Alias{Child: c, Name: f.Name}
	}
	limited := &logical.Project{Input: &logical.Limit{Input: node, N: int64(show.NumRows) + 1}, Exprs: casts}
	res, err := s.run(ctx, limited)
	if err != nil {
		return nil, err
	}
	recs, err := collect(ctx, res)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, rec := range recs {
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				col := rec.Column(c).(*array.String)
				if col.IsNull(r) {
					row[c] = "NULL"
				} else {
					row[c] = col.Value(r)
				}
			}
			rows = append(rows, row)
		}
		rec.Release()
	}
	if show.HTML {
		return s.rowsResult(htmlStringSchema, [][]any{{showstring.FormatHTML(schema.Names(), rows, int(show.NumRows), int(show.Truncate))}})
	}
	text := showstring.Format(schema.Names(), rows, int(show.NumRows), int(show.Truncate), show.Vertical)
	return s.rowsResult(showStringSchema, [][]any{{text}})
}

// rowsResult makes a Result of literal rows (Go values per sqltypes conventions).
func (s *Session) rowsResult(schema sqltypes.Schema, rows [][]any) (*Result, error) {
	rec := s.rowsRecord(schema, rows)
	sent := false
	next := func(context.Context) (arrow.RecordBatch, error) {
		if sent {
			return nil, io.EOF
		}
		sent = true
		rec.Retain()
		return rec, nil
	}
	return NewResult(schema, next, rec.Release), nil
}

// rowsRecord builds one record of schema from rows.
func (s *Session) rowsRecord(schema sqltypes.Schema, rows [][]any) arrow.RecordBatch {
	cols := make([]arrow.Array, len(schema))
	for c, f := range schema {
		vals := make([]any, len(rows))
		for r, row := range rows {
			vals[r] = row[c]
		}
		cols[c] = expr.BuildArray(s.mem, f.Type, s.timeZone(), vals)
	}
	rec := array.NewRecordBatch(sqltypes.ToArrowSchema(schema, s.timeZone()), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}
