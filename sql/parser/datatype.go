package parser

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// dataType parses a Spark SQL type: primitive names and their synonyms, decimal(p,s),
// char/varchar(n) (as string), array<…>, map<…,…>, struct<name[:] type [NOT NULL] [COMMENT
// '…'], …>, ANSI interval types and TIME[(p)] [WITHOUT TIME ZONE].
func (p *parser) dataType() sqltypes.DataType {
	p.enter()
	defer p.leave()
	start := p.peek()
	if start.kind != tokWord {
		p.syntaxError()
	}
	p.pos++
	name := strings.ToUpper(start.text)
	if t, ok := primitiveTypes[name]; ok && !p.peek().isOp("(") {
		return t
	}
	switch name {
	case "STRING":
		t := sqltypes.StringType
		if p.accept("COLLATE") {
			t.StringCollation = p.collationName().TypeName()
		}
		return t
	case "CHAR", "CHARACTER", "VARCHAR":
		if !p.peek().isOp("(") {
			p.fail(sparkerr.Newf(sparkerr.ParseException, "DATATYPE_MISSING_SIZE", "42K01",
				"DataType %q requires a length parameter, for example %q(10). Please specify the length.", name, name).
				WithParams("type", `"`+name+`"`))
		}
		p.typeParams(1)
		return sqltypes.StringType
	case "DECIMAL", "DEC", "NUMERIC":
		prec, scale := int64(10), int64(0)
		if p.peek().isOp("(") {
			ps := p.typeParams(2)
			prec = ps[0]
			if len(ps) > 1 {
				scale = ps[1]
			}
		}
		if prec > 38 {
			p.fail(decimalPrecisionError(int(prec)))
		}
		if prec < 1 || scale > prec {
			p.fail(sparkerr.Newf(sparkerr.AnalysisException, "", "",
				"Decimal scale (%d) cannot be greater than precision (%d).", scale, prec))
		}
		return sqltypes.DecimalType(int32(prec), int32(scale))
	case "ARRAY":
		p.expectOp("<")
		elem := p.dataType()
		p.closeAngle()
		return sqltypes.ArrayType(elem, true)
	case "MAP":
		p.expectOp("<")
		k := p.dataType()
		p.expectOp(",")
		v := p.dataType()
		p.closeAngle()
		return sqltypes.MapType(k, v, true)
	case "STRUCT":
		if p.acceptOp("<>") {
			return sqltypes.StructType()
		}
		p.expectOp("<")
		var fields []sqltypes.Field
		if !p.atCloseAngle() {
			fields = p.columns()
		}
		p.closeAngle()
		return sqltypes.StructType(fields...)
	case "INTERVAL":
		return p.intervalType(start)
	case "GEOMETRY", "GEOGRAPHY":
		if t, ok := p.spatialType(name); ok {
			return t
		}
	case "TIME":
		prec := int64(sqltypes.MaxTimePrecision)
		if p.peek().isOp("(") {
			prec = p.typeParams(1)[0]
			if prec < 0 || prec > sqltypes.MaxTimePrecision {
				p.fail(sparkerr.Newf(sparkerr.AnalysisException, "UNSUPPORTED_TIME_PRECISION", "0A001",
					"The seconds precision %d of the TIME data type is out of the supported range [0, 6].", prec).
					WithParams("precision", strconv.FormatInt(prec, 10)))
			}
		}
		p.acceptSeq("WITHOUT", "TIME", "ZONE")
		return sqltypes.TimeType(int32(prec))
	}
	text := start.raw
	if p.peek().isOp("(") {
		params := p.typeParams(8)
		strs := make([]string, len(params))
		for i, v := range params {
			strs[i] = strconv.FormatInt(v, 10)
		}
		text += "(" + strings.Join(strs, ",") + ")"
	}
	p.fail(sparkerr.Newf(sparkerr.ParseException, "UNSUPPORTED_DATATYPE", "0A000",
		"Unsupported data type %q.", strings.ToUpper(text)).WithParams("typeName", `"`+strings.ToUpper(text)+`"`))
	return sqltypes.DataType{}
}

// spatialType parses the (srid) or (ANY) after GEOMETRY / GEOGRAPHY; ok is false without it
// (a bare GEOMETRY is UNSUPPORTED_DATATYPE, as in Spark). An SRID Spark does not support for the
// kind is ST_INVALID_SRID_VALUE.
func (p *parser) spatialType(name string) (sqltypes.DataType, bool) {
	kind := sqltypes.Geometry
	if name == "GEOGRAPHY" {
		kind = sqltypes.Geography
	}
	if !p.peek().isOp("(") {
		return sqltypes.DataType{}, false
	}
	if w := p.peekAt(1); w.kind == tokWord && strings.EqualFold(w.text, "ANY") {
		p.pos += 2
		p.expectOp(")")
		return sqltypes.DataType{Kind: kind, SRID: sqltypes.MixedSRID}, true
	}
	srid := int32(p.typeParams(1)[0])
	if !sqltypes.ValidSRID(kind, srid) {
		p.fail(sqltypes.InvalidSRID(srid))
	}
	return sqltypes.DataType{Kind: kind, SRID: srid}, true
}

var primitiveTypes = map[string]sqltypes.DataType{
	"BOOLEAN": sqltypes.BooleanType, "TINYINT": sqltypes.ByteType, "BYTE": sqltypes.ByteType,
	"SMALLINT": sqltypes.ShortType, "SHORT": sqltypes.ShortType, "INT": sqltypes.IntegerType,
	"INTEGER": sqltypes.IntegerType, "BIGINT": sqltypes.LongType, "LONG": sqltypes.LongType,
	"FLOAT": sqltypes.FloatType, "REAL": sqltypes.FloatType, "DOUBLE": sqltypes.DoubleType,
	"DATE": sqltypes.DateType, "TIMESTAMP": sqltypes.TimestampType, "TIMESTAMP_LTZ": sqltypes.TimestampType,
	"TIMESTAMP_NTZ": sqltypes.TimestampNTZType, "BINARY": sqltypes.BinaryType, "VOID": sqltypes.NullType,
	"VARIANT": sqltypes.VariantType,
}

// typeParams parses (n[, n…]) with at most max integers.
func (p *parser) typeParams(max int) []int64 {
	p.expectOp("(")
	var out []int64
	for {
		t := p.peek()
		if t.kind != tokInteger || len(out) == max {
			p.syntaxError()
		}
		p.pos++
		v, err := strconv.ParseInt(t.text, 10, 32)
		if err != nil {
			p.syntaxErrorAt(t, "")
		}
		out = append(out, v)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

// intervalType parses INTERVAL unit [TO unit] as an ANSI interval type.
func (p *parser) intervalType(at token) sqltypes.DataType {
	unitTok := p.peek()
	from, fu, ok := lookupUnit(unitTok)
	if !ok && (unitTok.isOp(")") || unitTok.isOp(",") || unitTok.isOp(">") || unitTok.kind == tokEOF) {
		return sqltypes.CalendarIntervalType // INTERVAL alone: Spark's CalendarIntervalType
	}
	if !ok || strings.HasSuffix(strings.ToUpper(unitTok.text), "S") || from == "WEEK" || from == "MILLISECOND" || from == "MICROSECOND" {
		p.fail(unsupported("the calendar interval type (INTERVAL without fields) is not supported"))
	}
	p.pos++
	tu := fu
	if p.accept("TO") {
		toTok := p.peek()
		to, u, ok := lookupUnit(toTok)
		if !ok || u.yearMonth != fu.yearMonth || u.field <= fu.field || to == "MILLISECOND" || to == "MICROSECOND" || to == "WEEK" {
			p.syntaxErrorAt(toTok, "")
		}
		p.pos++
		tu = u
	}
	if fu.yearMonth {
		return sqltypes.YearMonthIntervalType(fu.field, tu.field)
	}
	return sqltypes.DayTimeIntervalType(fu.field, tu.field)
}

// atCloseAngle reports whether the next token closes a type parameter list.
func (p *parser) atCloseAngle() bool {
	t := p.peek()
	return t.kind == tokOp && strings.HasPrefix(t.text, ">") && strings.Trim(t.text, ">") == ""
}

// closeAngle consumes one '>', splitting '>>' and '>>>' tokens (array<array<int>>).
func (p *parser) closeAngle() {
	if !p.atCloseAngle() {
		p.syntaxError()
	}
	t := &p.toks[p.pos]
	if len(t.text) == 1 {
		p.pos++
		return
	}
	t.text, t.raw, t.pos = t.text[1:], t.raw[1:], t.pos+1
}

// columns parses name [:] type [NOT NULL] [COMMENT '…'], … (struct fields or a table schema).
func (p *parser) columns() []sqltypes.Field {
	var out []sqltypes.Field
	for {
		name := p.anyIdentifier()
		p.acceptOp(":")
		f := sqltypes.Field{Name: name, Type: p.dataType(), Nullable: true}
		if p.acceptSeq("NOT", "NULL") {
			f.Nullable = false
		}
		if p.accept("COMMENT") {
			b, _ := json.Marshal(map[string]string{"comment": p.stringLit()})
			f.Metadata = string(b)
		}
		out = append(out, f)
		if !p.acceptOp(",") {
			return out
		}
	}
}
