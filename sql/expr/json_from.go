package expr

import (
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fromJSONStruct is from_json with a struct schema, evaluated a batch at a time: each record is
// scanned once (jsonScan) and its fields appended straight to the result's Arrow builders,
// without encoding/json and without boxing the fields. Top-level fields of the integral,
// floating-point, string and boolean types holding their natural JSON values take the direct
// route; other fields are read into parseJSONText's representation and converted with
// jsonFieldValue. A record the scanner does not accept (malformed, top level not an object,
// surrogate escapes, invalid UTF-8, trailing text) or that FAILFAST must judge goes through the
// row function (jsonToValue), so results are the row function's exactly.
type fromJSONStruct struct {
	*rowFunc
	fields   []sqltypes.Field
	failFast bool
	unique   bool // no two fields share a name
}

func newFromJSONStruct(f *rowFunc, t sqltypes.DataType, failFast bool) *fromJSONStruct {
	e := &fromJSONStruct{rowFunc: f, fields: t.Fields, failFast: failFast, unique: true}
	seen := map[string]bool{}
	for _, fd := range t.Fields {
		e.unique = e.unique && !seen[fd.Name]
		seen[fd.Name] = true
	}
	return e
}

// fieldIndex is the field named key (-1: none), trying field hint first.
func (e *fromJSONStruct) fieldIndex(key []byte, hint int) int {
	if hint < len(e.fields) && e.fields[hint].Name == string(key) {
		return hint
	}
	for j := range e.fields {
		if e.fields[j].Name == string(key) {
			return j
		}
	}
	return -1
}

// jsonSlotKind is what a field's slot holds for the current record.
type jsonSlotKind uint8

const (
	slotAbsent jsonSlotKind = iota // NULL: key absent or JSON null
	slotInt
	slotFloat
	slotBool
	slotBytes // unescaped string bytes (aliasing the input)
	slotText  // an unescaped (escapes decoded) string
	slotValue // a Go value from jsonFieldValue (nil: NULL)
)

type jsonSlot struct {
	kind  jsonSlotKind
	i     int64
	f     float64
	b     bool
	bytes []byte
	text  string
	v     any
}

// Eval implements Expr.
func (e *fromJSONStruct) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	texts, err := e.evalTexts(ctx, batch)
	if err != nil {
		return nil, err
	}
	if texts == nil {
		return e.rowFunc.Eval(ctx, batch)
	}
	defer texts.Release()
	bld := array.NewBuilder(ctx.mem(), sqltypes.ToArrow(e.t, ctx.tz())).(*array.StructBuilder)
	defer bld.Release()
	n := texts.Len()
	bld.Reserve(n)
	fbs := make([]array.Builder, len(e.fields))
	for j := range fbs {
		fbs[j] = bld.FieldBuilder(j)
		fbs[j].Reserve(n)
		if sb, isStr := fbs[j].(*array.StringBuilder); isStr {
			// A fair share of the input's bytes: one allocation instead of a doubling series
			// for typical records.
			sb.ReserveData(texts.bytes() / len(e.fields))
		}
	}
	slots := make([]jsonSlot, len(e.fields))
	arg := make([]any, 1)
	for i := 0; i < n; i++ {
		if texts.IsNull(i) {
			bld.AppendNull()
			continue
		}
		text := texts.at(i)
		if e.scanRecord(ctx, text, slots) {
			bld.Append(true)
			for j, fb := range fbs {
				appendJSONSlot(fb, e.fields[j].Type, &slots[j])
			}
			continue
		}
		arg[0] = string(text)
		v, err := e.fn(ctx, arg)
		if err != nil {
			return nil, err
		}
		appendValue(bld, e.t, v)
	}
	return bld.NewArray(), nil
}

// jsonTexts is from_json's input column: strings, or the binary column under a
// CAST(binary AS STRING) (the cast only relabels the bytes, as Kafka's value column is read).
type jsonTexts struct {
	arrow.Array
	at    func(i int) []byte
	bytes func() int
}

// evalTexts evaluates the input column; nil when it is neither string nor binary.
func (e *fromJSONStruct) evalTexts(ctx *Context, batch arrow.RecordBatch) (*jsonTexts, error) {
	src := e.args[0]
	if c, isCast := src.(*castExpr); isCast && c.to.Kind == sqltypes.String && c.child.Type().Kind == sqltypes.Binary {
		src = c.child
	}
	in, err := src.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	switch a := in.(type) {
	case *array.String:
		return &jsonTexts{Array: a, at: func(i int) []byte {
			s := a.Value(i)
			return unsafe.Slice(unsafe.StringData(s), len(s))
		}, bytes: func() int { return offsetSpan(a.ValueOffsets()) }}, nil
	case *array.Binary:
		return &jsonTexts{Array: a, at: a.Value,
			bytes: func() int { return offsetSpan(a.ValueOffsets()) }}, nil
	}
	in.Release()
	return nil, nil
}

// scanRecord fills slots from one record; false sends the record to the row function.
func (e *fromJSONStruct) scanRecord(ctx *Context, text []byte, slots []jsonSlot) bool {
	for j := range slots {
		slots[j].kind = slotAbsent
	}
	p := jsonScan{s: text}
	if !p.consume('{') {
		return false
	}
	bad := false
	hint := 0 // records usually list their keys in the schema's order
	ok := p.members('}', func() bool {
		raw, esc, ok := p.str()
		if !ok || !p.consume(':') {
			return false
		}
		key := raw
		if esc {
			key = []byte(unescapeJSON(raw))
		}
		if e.unique {
			j := e.fieldIndex(key, hint)
			if j < 0 {
				return p.skip(1)
			}
			hint = j + 1
			return e.scanField(ctx, &p, e.fields[j].Type, &slots[j], &bad)
		}
		matched := false
		valueAt := p.i
		for j := range e.fields {
			if e.fields[j].Name != string(key) {
				continue
			}
			p.i = valueAt // a key naming several fields is read once for each
			if !e.scanField(ctx, &p, e.fields[j].Type, &slots[j], &bad) {
				return false
			}
			matched = true
		}
		return matched || p.skip(1)
	})
	if !ok {
		return false
	}
	p.skipSpace()
	return p.i == len(p.s) && !(bad && e.failFast)
}

// scanField reads one field's value into its slot, as jsonFieldValue would convert it.
func (e *fromJSONStruct) scanField(ctx *Context, p *jsonScan, t sqltypes.DataType, slot *jsonSlot, bad *bool) bool {
	start := p.i
	c := p.peek()
	if c == 'n' {
		slot.kind = slotAbsent
		return p.literal("null")
	}
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		if c == '-' || c >= '0' && c <= '9' {
			num, ok := p.number()
			if !ok {
				return false
			}
			slot.kind = slotAbsent
			if i, err := jsonInt(num); err == nil {
				if _, fits := fitIntegral(i, t.Kind); fits {
					slot.kind, slot.i = slotInt, i
					return true
				}
			}
			*bad = true
			return true
		}
	case sqltypes.Float, sqltypes.Double:
		if c == '-' || c >= '0' && c <= '9' {
			num, ok := p.number()
			if !ok {
				return false
			}
			f, err := strconv.ParseFloat(string(num), 64)
			if err != nil {
				slot.kind = slotAbsent
				*bad = true
				return true
			}
			slot.kind, slot.f = slotFloat, f
			return true
		}
	case sqltypes.String:
		if c == '"' {
			raw, esc, ok := p.str()
			if !ok {
				return false
			}
			if esc {
				slot.kind, slot.text = slotText, unescapeJSON(raw)
			} else {
				slot.kind, slot.bytes = slotBytes, raw
			}
			return true
		}
	case sqltypes.Boolean:
		switch c {
		case 't':
			slot.kind, slot.b = slotBool, true
			return p.literal("true")
		case 'f':
			slot.kind, slot.b = slotBool, false
			return p.literal("false")
		}
	}
	p.i = start
	v, ok := p.value(1)
	if !ok {
		return false
	}
	slot.kind, slot.v = slotValue, jsonFieldValue(v, t, ctx.loc(), bad)
	return true
}

// appendJSONSlot appends a slot to its field's builder.
func appendJSONSlot(b array.Builder, t sqltypes.DataType, s *jsonSlot) {
	switch s.kind {
	case slotAbsent:
		b.AppendNull()
	case slotInt:
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.Append(s.i)
		case *array.Int32Builder:
			bb.Append(int32(s.i))
		case *array.Int16Builder:
			bb.Append(int16(s.i))
		case *array.Int8Builder:
			bb.Append(int8(s.i))
		}
	case slotFloat:
		switch bb := b.(type) {
		case *array.Float64Builder:
			bb.Append(s.f)
		case *array.Float32Builder:
			bb.Append(float32(s.f))
		}
	case slotBool:
		b.(*array.BooleanBuilder).Append(s.b)
	case slotBytes:
		b.(*array.StringBuilder).BinaryBuilder.Append(s.bytes)
	case slotText:
		b.(*array.StringBuilder).Append(s.text)
	case slotValue:
		appendValue(b, t, s.v)
	}
}

// offsetSpan is the number of value bytes a string or binary array's offsets cover.
func offsetSpan(offsets []int32) int {
	if len(offsets) == 0 {
		return 0
	}
	return int(offsets[len(offsets)-1] - offsets[0])
}

// jsonInt is strconv.ParseInt of a number's text, without the string for the common short
// integer literal.
func jsonInt(num []byte) (int64, error) {
	digits := num
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return strconv.ParseInt(string(num), 10, 64)
	}
	var v int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return strconv.ParseInt(string(num), 10, 64)
		}
		v = v*10 + int64(c-'0')
	}
	if len(digits) < len(num) {
		v = -v
	}
	return v, nil
}
