package expr

import (
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// InSetThreshold is spark.sql.optimizer.inSetConversionThreshold: an IN over more constant
// values than this is a hash set lookup (Spark's OptimizeIn turns In into InSet).
const InSetThreshold = 10

// inSet is value IN (v1, …, vn) over constant values, evaluated as a hash set lookup: NULL
// when value is NULL, true when the set holds it, else NULL if the list holds a NULL, else
// false. Equality is Compare's (Spark's ordering): NaN equals NaN and -0.0 equals 0.0, as in
// Spark's In and InSet. It renders as the In it stands for.
type inSet struct {
	value Expr
	// list is kept for the rendering only; it is not evaluated.
	list    []Expr
	in      sqltypes.DataType
	hasNull bool
	// ints, strs, decs, flts or keys hold the set, by the kind of in (see setKind).
	ints map[int64]struct{}
	strs map[string]struct{}
	decs map[decimal128.Num]struct{}
	flts map[uint64]struct{} // by floatKey
	keys map[any]struct{}
}

type setKind uint8

const (
	setNone setKind = iota
	setInts
	setStrs
	setDecs
	setFlts
	setKeys
)

// setKindOf is how values of t are kept in a set; setNone when t has no hash consistent with
// Compare (nested types, collated strings).
func setKindOf(t sqltypes.DataType) setKind {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Date,
		sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.YearMonthInterval, sqltypes.Time:
		return setInts
	case sqltypes.String:
		if t.StringCollation != "" && !strings.EqualFold(t.StringCollation, "UTF8_BINARY") {
			return setNone
		}
		return setStrs
	case sqltypes.Binary:
		return setStrs
	case sqltypes.Decimal:
		return setDecs
	case sqltypes.Float, sqltypes.Double:
		return setFlts
	case sqltypes.Boolean, sqltypes.Null:
		return setKeys
	}
	return setNone
}

// newInSet builds the set of list's values (all coerced to in); ok is false when a value is
// not a constant, its type has no set, or a constant cast fails (the In then raises the
// error when evaluated, as Spark's would).
func newInSet(value Expr, list []Expr, in sqltypes.DataType, opts Options) (*inSet, bool) {
	kind := setKindOf(in)
	if kind == setNone {
		return nil, false
	}
	loc := time.UTC
	if opts.TimeZone != "" {
		l, err := time.LoadLocation(opts.TimeZone)
		if err != nil {
			return nil, false
		}
		loc = l
	}
	s := &inSet{value: value, list: list, in: in}
	switch kind {
	case setInts:
		s.ints = make(map[int64]struct{}, len(list))
	case setStrs:
		s.strs = make(map[string]struct{}, len(list))
	case setDecs:
		s.decs = make(map[decimal128.Num]struct{}, len(list))
	case setFlts:
		s.flts = make(map[uint64]struct{}, len(list))
	default:
		s.keys = make(map[any]struct{}, len(list))
	}
	for _, x := range list {
		v, ok := constantValue(x, loc)
		if !ok {
			return nil, false
		}
		if v == nil {
			s.hasNull = true
			continue
		}
		switch kind {
		case setInts:
			s.ints[toInt64(v)] = struct{}{}
		case setStrs:
			s.strs[stringKey(v)] = struct{}{}
		case setDecs:
			s.decs[v.(decimal128.Num)] = struct{}{}
		case setFlts:
			s.flts[floatKey(toFloat64(v))] = struct{}{}
		default:
			s.keys[hashKey(v)] = struct{}{}
		}
	}
	return s, true
}

// constantValue is the value of a literal, or of a cast of a constant (evaluated as the cast
// would be); ok is false for anything else or a failing cast.
func constantValue(e Expr, loc *time.Location) (any, bool) {
	switch x := e.(type) {
	case *Literal:
		return x.Value, true
	case *castExpr:
		v, ok := constantValue(x.child, loc)
		if !ok {
			return nil, false
		}
		r, err := castValue(v, x.child.Type(), x.to, x.ansi, loc)
		if err != nil {
			if x.try {
				return nil, true
			}
			return nil, false
		}
		return r, true
	}
	return nil, false
}

func stringKey(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v.(string)
}

// hashKey is v as a map key whose equality is Compare's: floating point values are keyed by
// their bits with -0.0 as 0.0 and every NaN as one NaN.
func hashKey(v any) any {
	switch x := v.(type) {
	case float32:
		return floatKey(float64(x))
	case float64:
		return floatKey(x)
	}
	return v
}

func floatKey(f float64) uint64 {
	switch {
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	case f == 0:
		return 0
	}
	return math.Float64bits(f)
}

func (s *inSet) Type() sqltypes.DataType { return sqltypes.BooleanType }
func (s *inSet) Children() []Expr        { return []Expr{s.value} }
func (s *inSet) Nullable() bool          { return s.value.Nullable() || s.hasNull }
func (s *inSet) String() string          { return renderSQL(s) }
func (s *inSet) writeSQL(b *strings.Builder) {
	(&inList{value: s.value, list: s.list}).writeSQL(b)
}

// Eval implements Expr.
func (s *inSet) Eval(ctx *Context, batch arrow.RecordBatch) (arrow.Array, error) {
	return s.evalOf(ctx, batch, s.value)
}

// evalOf looks value up in the set (value is s.value, or the value of an inList over the same
// constants).
func (s *inSet) evalOf(ctx *Context, batch arrow.RecordBatch, value Expr) (arrow.Array, error) {
	col, err := value.Eval(ctx, batch)
	if err != nil {
		return nil, err
	}
	defer col.Release()
	if out, ok := s.kernel(ctx, col); ok {
		return out, nil
	}
	return s.evalRows(ctx, col), nil
}

// evalRows looks the values up row by row (the kernel's oracle).
func (s *inSet) evalRows(ctx *Context, col arrow.Array) arrow.Array {
	n := col.Len()
	vals := make([]bool, n)
	valid := make([]bool, n)
	for i := 0; i < n; i++ {
		if col.IsNull(i) {
			continue
		}
		vals[i] = s.contains(col, i)
		valid[i] = vals[i] || !s.hasNull
	}
	return buildBools(ctx.mem(), vals, valid)
}

// contains looks up the non-null value at row i of col.
func (s *inSet) contains(col arrow.Array, i int) bool {
	var ok bool
	switch {
	case s.ints != nil:
		var k int64
		switch a := col.(type) {
		case *array.Int64:
			k = a.Value(i)
		case *array.Int32:
			k = int64(a.Value(i))
		default:
			k = toInt64(ValueAt(col, i, s.in))
		}
		_, ok = s.ints[k]
	case s.strs != nil:
		var k string
		switch a := col.(type) {
		case *array.String:
			k = a.Value(i)
		default:
			k = stringKey(ValueAt(col, i, s.in))
		}
		_, ok = s.strs[k]
	case s.decs != nil:
		_, ok = s.decs[ValueAt(col, i, s.in).(decimal128.Num)]
	case s.flts != nil:
		_, ok = s.flts[floatKey(toFloat64(ValueAt(col, i, s.in)))]
	default:
		_, ok = s.keys[hashKey(ValueAt(col, i, s.in))]
	}
	return ok
}
