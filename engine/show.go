package engine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/weirhq/weir/expr"
	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/plan"
	"github.com/weirhq/weir/sqltypes"
)

var showStringSchema = sqltypes.Schema{{Name: "show_string", Type: sqltypes.StringType}}

// showStringSchemaNode stands for the analyzed ShowString relation (schema only).
func showStringSchemaNode() logical.Node { return &logical.LocalData{Out: showStringSchema} }

// showString runs show.Input (limited to NumRows+1 rows, every column cast to string) and renders
// it like Spark's Dataset.showString.
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
	text := formatShow(schema.Names(), rows, int(show.NumRows), int(show.Truncate), show.Vertical)
	return s.rowsResult(showStringSchema, [][]any{{text}})
}

func truncateCell(s string, truncate int) string {
	if truncate <= 0 || utf8.RuneCountInString(s) <= truncate {
		return s
	}
	r := []rune(s)
	if truncate < 4 {
		return string(r[:truncate])
	}
	return string(r[:truncate-3]) + "..."
}

func pad(s string, width int, left bool) string {
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if left {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// formatShow is Spark's showString layout.
func formatShow(names []string, rows [][]string, numRows, truncate int, vertical bool) string {
	more := len(rows) > numRows
	if more {
		rows = rows[:numRows]
	}
	cells := make([][]string, 0, len(rows)+1)
	header := make([]string, len(names))
	for i, n := range names {
		header[i] = truncateCell(n, truncate)
	}
	cells = append(cells, header)
	for _, r := range rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = truncateCell(c, truncate)
		}
		cells = append(cells, row)
	}
	var b strings.Builder
	if vertical {
		writeVertical(&b, cells)
	} else {
		writeTable(&b, cells, truncate > 0)
	}
	if more {
		unit := "rows"
		if numRows == 1 {
			unit = "row"
		}
		fmt.Fprintf(&b, "only showing top %d %s\n", numRows, unit)
	}
	return b.String()
}

func writeTable(b *strings.Builder, cells [][]string, rightAlign bool) {
	widths := make([]int, len(cells[0]))
	for i := range widths {
		widths[i] = 3
	}
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var sep strings.Builder
	sep.WriteString("+")
	for _, w := range widths {
		sep.WriteString(strings.Repeat("-", w) + "+")
	}
	sep.WriteString("\n")
	line := func(row []string) {
		b.WriteString("|")
		for i, c := range row {
			b.WriteString(pad(c, widths[i], rightAlign) + "|")
		}
		b.WriteString("\n")
	}
	b.WriteString(sep.String())
	line(cells[0])
	b.WriteString(sep.String())
	for _, row := range cells[1:] {
		line(row)
	}
	b.WriteString(sep.String())
}

func writeVertical(b *strings.Builder, cells [][]string) {
	header, rows := cells[0], cells[1:]
	if len(rows) == 0 {
		b.WriteString("(0 rows)\n")
		return
	}
	nameW, dataW := 0, 0
	for _, n := range header {
		nameW = max(nameW, utf8.RuneCountInString(n))
	}
	for _, row := range rows {
		for _, c := range row {
			dataW = max(dataW, utf8.RuneCountInString(c))
		}
	}
	for i, row := range rows {
		head := fmt.Sprintf("-RECORD %d", i)
		b.WriteString(head + strings.Repeat("-", max(0, nameW+dataW+3-utf8.RuneCountInString(head))) + "\n")
		for j, c := range row {
			b.WriteString(" " + pad(header[j], nameW, false) + " | " + pad(c, dataW, false) + "\n")
		}
	}
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
