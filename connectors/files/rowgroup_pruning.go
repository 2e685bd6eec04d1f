package files

import (
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// columnRange is what a Parquet row group's statistics say of one column: its min and max (Go
// values of the column's Spark type, when hasMinMax) and its null count (when hasNulls).
type columnRange struct {
	min, max  any
	hasMinMax bool
	nulls     int64
	hasNulls  bool
	rows      int64
}

// rowGroupPruner decides from a row group's statistics whether a scan's pushed-down filters
// can pass none of its rows.
type rowGroupPruner struct {
	terms  []expr.RangeTerm
	schema sqltypes.Schema
	arrow  *arrow.Schema
	mem    memory.Allocator
	tz     string
	loc    *time.Location
}

func newRowGroupPruner(filters []expr.Expr, schema sqltypes.Schema, as *arrow.Schema, mem memory.Allocator, tz string, loc *time.Location) *rowGroupPruner {
	var terms []expr.RangeTerm
	for _, f := range filters {
		for _, t := range expr.RangeTerms(f) {
			if t.Column >= 0 && t.Column < len(schema) {
				terms = append(terms, t)
			}
		}
	}
	if len(terms) == 0 {
		return nil
	}
	return &rowGroupPruner{terms: terms, schema: schema, arrow: as, mem: mem, tz: tz, loc: loc}
}

// skips reports whether no row of a row group passes the terms; rangeOf gives a column's
// statistics in the row group (ok false: unknown, nothing is concluded from that column).
func (p *rowGroupPruner) skips(rangeOf func(col int) (columnRange, bool)) bool {
	if p == nil {
		return false
	}
	for _, t := range p.terms {
		r, ok := rangeOf(t.Column)
		if !ok {
			continue
		}
		if p.termExcludes(t, r) {
			return true
		}
	}
	return false
}

// termExcludes reports whether t is false or NULL for every value r describes.
func (p *rowGroupPruner) termExcludes(t expr.RangeTerm, r columnRange) bool {
	allNull := r.hasNulls && r.nulls == r.rows
	switch t.Op {
	case "isnull":
		return r.hasNulls && r.nulls == 0
	case "isnotnull":
		return allNull
	}
	if allNull {
		return true // a comparison with NULL passes no row
	}
	if !r.hasMinMax {
		return false
	}
	lo, hi, ok := p.operandRange(t, r)
	if !ok {
		return false
	}
	typ := t.Operand.Type()
	outside := func(v any) bool { return expr.Compare(v, lo, typ) < 0 || expr.Compare(v, hi, typ) > 0 }
	switch t.Op {
	case "=":
		return outside(t.Values[0])
	case "<":
		return expr.Compare(lo, t.Values[0], typ) >= 0
	case "<=":
		return expr.Compare(lo, t.Values[0], typ) > 0
	case ">":
		return expr.Compare(hi, t.Values[0], typ) <= 0
	case ">=":
		return expr.Compare(hi, t.Values[0], typ) < 0
	case "in":
		for _, v := range t.Values {
			if !outside(v) {
				return false
			}
		}
		return true
	}
	return false
}

// operandRange is t.Operand over the column's min and max: the column's own when the operand
// is the column, else the operand evaluated over a two-row batch of them (an order-preserving
// cast, see expr.RangeTerm).
func (p *rowGroupPruner) operandRange(t expr.RangeTerm, r columnRange) (lo, hi any, ok bool) {
	if _, isCol := t.Operand.(*expr.Column); isCol {
		return r.min, r.max, true
	}
	cols := make([]arrow.Array, len(p.schema))
	for i, f := range p.schema {
		if i == t.Column {
			cols[i] = expr.BuildArray(p.mem, f.Type, p.tz, []any{r.min, r.max})
		} else {
			cols[i] = array.MakeArrayOfNull(p.mem, p.arrow.Field(i).Type, 2)
		}
	}
	batch := array.NewRecordBatch(p.arrow, cols, 2)
	for _, c := range cols {
		c.Release()
	}
	defer batch.Release()
	out, err := t.Operand.Eval(&expr.Context{Mem: p.mem, Location: p.loc}, batch)
	if err != nil {
		return nil, nil, false
	}
	defer out.Release()
	lo, hi = expr.ValueAt(out, 0, t.Operand.Type()), expr.ValueAt(out, 1, t.Operand.Type())
	return lo, hi, lo != nil && hi != nil
}

// chunkRange reads a column chunk's statistics as values of Spark type t, the chunk's column
// read as Arrow type have (the file's, which the reader keeps as is: the caller checked that
// no cast is needed). ok is false when the statistics are missing or of a kind not handled.
func chunkRange(cc *metadata.ColumnChunkMetaData, rows int64, t sqltypes.DataType, have arrow.DataType) (columnRange, bool) {
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return columnRange{}, false
	}
	r := columnRange{rows: rows, hasNulls: st.HasNullCount(), nulls: st.NullCount()}
	if !st.HasMinMax() {
		return r, r.hasNulls
	}
	min, max, ok := statValues(st, t, have)
	if ok {
		r.min, r.max, r.hasMinMax = min, max, true
	}
	return r, ok || r.hasNulls
}

func statValues(st metadata.TypedStatistics, t sqltypes.DataType, have arrow.DataType) (min, max any, ok bool) {
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		switch t.Kind {
		case sqltypes.Byte:
			return int8(s.Min()), int8(s.Max()), true
		case sqltypes.Short:
			return int16(s.Min()), int16(s.Max()), true
		case sqltypes.Integer, sqltypes.Date:
			return s.Min(), s.Max(), true
		case sqltypes.Decimal:
			return decimal128.FromI64(int64(s.Min())), decimal128.FromI64(int64(s.Max())), true
		}
	case *metadata.Int64Statistics:
		switch t.Kind {
		case sqltypes.Long:
			return s.Min(), s.Max(), true
		case sqltypes.Decimal:
			return decimal128.FromI64(s.Min()), decimal128.FromI64(s.Max()), true
		case sqltypes.Timestamp, sqltypes.TimestampNTZ:
			ts, isTS := have.(*arrow.TimestampType)
			if !isTS {
				return nil, nil, false
			}
			per := int64(ts.Unit.Multiplier()) // units per second
			micros := func(v int64) int64 {
				if per >= 1e6 {
					return floorDiv(v, per/1e6)
				}
				return v * (1e6 / per)
			}
			return micros(s.Min()), micros(s.Max()), true
		}
	case *metadata.ByteArrayStatistics:
		switch t.Kind {
		case sqltypes.String:
			return string(s.Min()), string(s.Max()), true
		case sqltypes.Decimal:
			lo, ok1 := bigEndianDecimal(s.Min())
			hi, ok2 := bigEndianDecimal(s.Max())
			return lo, hi, ok1 && ok2
		}
	case *metadata.FixedLenByteArrayStatistics:
		if t.Kind == sqltypes.Decimal {
			lo, ok1 := bigEndianDecimal(s.Min())
			hi, ok2 := bigEndianDecimal(s.Max())
			return lo, hi, ok1 && ok2
		}
	}
	return nil, nil, false
}

// bigEndianDecimal reads a Parquet decimal's unscaled value: big-endian two's complement.
func bigEndianDecimal(b []byte) (decimal128.Num, bool) {
	if len(b) == 0 || len(b) > 16 {
		return decimal128.Num{}, false
	}
	v := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return decimal128.FromBigInt(v), true
}
