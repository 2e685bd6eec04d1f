package pickle

import (
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// javaByte is an element of a Java byte[] read as an array (a Python bytes returned for an array
// type): a signed byte, as EvaluatePython.makeFromJava sees it.
type javaByte int8

// Budget bounds the values one Append may produce. A pickle may reference a memoized object many
// times (and even contain itself), so its decoded form can be far larger than its bytes; the walk
// stops with an error instead of allocating without bound.
type Budget struct {
	// Values is how many values (leaves and containers) may still be appended.
	Values int
	// Bytes is how many string and binary bytes may still be appended.
	Bytes int
}

// BudgetFor is the budget for the results of a pickle of n bytes: 256 times its size plus 1 Mi
// values and bytes, far beyond what sharing in a real UDF's results needs.
func BudgetFor(n int) Budget {
	return Budget{Values: 256*n + 1<<20, Bytes: 256*n + 1<<20}
}

func (b *Budget) spend(values, bytes int) error {
	b.Values -= values
	b.Bytes -= bytes
	if b.Values < 0 || b.Bytes < 0 {
		return pickleError("the decoded value is too large (its memoized parts are referenced too many times)")
	}
	return nil
}

// AppendFromJava appends v (a decoded Python object) to b, a builder of sqltypes.ToArrow(t), with
// Spark's EvaluatePython.makeFromJava semantics: a value of an unexpected type becomes NULL
// (int for a float column, float for an int column, str for a date…); integers are narrowed like
// Java's toByte/toShort/toInt (wrapping); a string column takes any value's Java toString; a
// decimal is rounded HALF_UP to the column's scale and fails with
// DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION when it does not fit; a struct takes a tuple of exactly
// its field count (STRUCT_ARRAY_LENGTH_MISMATCH otherwise).
func AppendFromJava(b array.Builder, t sqltypes.DataType, v any, budget *Budget) error {
	if err := budget.spend(1, 0); err != nil {
		return err
	}
	if !accepts(t, v) {
		b.AppendNull()
		return nil
	}
	switch t.Kind {
	case sqltypes.Boolean:
		b.(*array.BooleanBuilder).Append(v.(bool))
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.YearMonthInterval:
		x, _ := javaIntegral(v)
		appendIntegral(b, x)
	case sqltypes.Float:
		b.(*array.Float32Builder).Append(float32(v.(float64)))
	case sqltypes.Double:
		b.(*array.Float64Builder).Append(v.(float64))
	case sqltypes.Decimal:
		n, err := toDecimal128(string(v.(Decimal)), t.Precision, t.Scale)
		if err != nil {
			return err
		}
		b.(*array.Decimal128Builder).Append(n)
	case sqltypes.Date:
		b.(*array.Date32Builder).Append(arrow.Date32(v.(int64)))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(v.(int64)))
	case sqltypes.DayTimeInterval:
		b.(*array.DurationBuilder).Append(arrow.Duration(v.(int64)))
	case sqltypes.Time:
		b.(*array.Time64Builder).Append(arrow.Time64(v.(int64)))
	case sqltypes.String:
		s, err := javaToString(v, budget)
		if err != nil {
			return err
		}
		if err := budget.spend(0, len(s)); err != nil {
			return err
		}
		b.(*array.StringBuilder).Append(s)
	case sqltypes.Binary:
		var x []byte
		if s, ok := v.(string); ok {
			x = []byte(s)
		} else {
			x = v.(Bytes)
		}
		if err := budget.spend(0, len(x)); err != nil {
			return err
		}
		b.(*array.BinaryBuilder).Append(x)
	case sqltypes.Array:
		return appendArray(b, t, v, budget)
	case sqltypes.Map:
		m := v.(*Dict)
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		kb, ib := mb.KeyBuilder(), mb.ItemBuilder()
		for i := range m.Keys {
			if !accepts(*t.Key, m.Keys[i]) {
				return nullMapKey()
			}
			if err := AppendFromJava(kb, *t.Key, m.Keys[i], budget); err != nil {
				return err
			}
			if err := AppendFromJava(ib, *t.Value, m.Values[i], budget); err != nil {
				return err
			}
		}
	case sqltypes.Variant:
		return appendVariant(b, v.(*Dict), budget)
	case sqltypes.Struct:
		tup := v.(Tuple)
		if len(tup) != len(t.Fields) {
			return sparkerr.Newf("org.apache.spark.SparkIllegalArgumentException", "STRUCT_ARRAY_LENGTH_MISMATCH", "2201E",
				"Input row doesn't have expected number of values required by the schema. %d fields are required while %d values are provided.",
				len(t.Fields), len(tup)).WithParams("expected", itoa(len(t.Fields)), "actual", itoa(len(tup)))
		}
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i, f := range t.Fields {
			if err := AppendFromJava(sb.FieldBuilder(i), f.Type, tup[i], budget); err != nil {
				return err
			}
		}
	default:
		return sparkerr.Internal("pickle: no conversion to Spark %s", t)
	}
	return nil
}

// accepts reports whether makeFromJava(t) turns v into a non-NULL value (it may still fail, e.g.
// a decimal that does not fit).
func accepts(t sqltypes.DataType, v any) bool {
	if v == nil {
		return false
	}
	switch t.Kind {
	case sqltypes.Boolean:
		_, ok := v.(bool)
		return ok
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.YearMonthInterval:
		_, ok := javaIntegral(v)
		return ok
	case sqltypes.Float, sqltypes.Double:
		_, ok := v.(float64)
		return ok
	case sqltypes.Decimal:
		_, ok := v.(Decimal)
		return ok
	case sqltypes.Date:
		// Only a Java Integer: Python pickles ints in int32 range with BININT*.
		x, ok := v.(int64)
		return ok && x == int64(int32(x))
	case sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.Time:
		_, ok := v.(int64)
		return ok
	case sqltypes.String:
		return true
	case sqltypes.Binary:
		switch v.(type) {
		case string, Bytes:
			return true
		}
	case sqltypes.Array:
		switch v.(type) {
		case *List, Tuple, Bytes:
			return true
		}
	case sqltypes.Map:
		_, ok := v.(*Dict)
		return ok
	case sqltypes.Struct:
		_, ok := v.(Tuple)
		return ok
	case sqltypes.Variant:
		d, ok := v.(*Dict)
		return ok && variantPart(d, "value") != nil && variantPart(d, "metadata") != nil
	}
	return false
}

// appendVariant appends what VariantType.toInternal returns, {"value": bytes, "metadata":
// bytes}, as Spark's EvaluatePython.makeFromJava reads it into a VariantVal.
func appendVariant(b array.Builder, d *Dict, budget *Budget) error {
	value, meta := variantPart(d, "value"), variantPart(d, "metadata")
	if value == nil || meta == nil {
		return sparkerr.Internal("pickle: a variant needs value and metadata bytes")
	}
	if err := budget.spend(0, len(value)+len(meta)); err != nil {
		return err
	}
	sb := b.(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.BinaryBuilder).Append(value)
	sb.FieldBuilder(1).(*array.BinaryBuilder).Append(meta)
	return nil
}

// variantPart is the bytes under key in a variant's dict, nil when missing or not bytes.
func variantPart(d *Dict, key string) []byte {
	for i, k := range d.Keys {
		if s, ok := k.(string); ok && s == key {
			switch x := d.Values[i].(type) {
			case Bytes:
				return x
			case string:
				return []byte(x)
			}
		}
	}
	return nil
}

// appendArray takes a list, a tuple, or a bytes read as Java byte[] elements.
func appendArray(b array.Builder, t sqltypes.DataType, v any, budget *Budget) error {
	var items []any
	switch x := v.(type) {
	case *List:
		items = x.Items
	case Tuple:
		items = x
	case Bytes:
		items = make([]any, len(x))
		for i, c := range x {
			items[i] = javaByte(int8(c))
		}
	}
	lb := b.(*array.ListBuilder)
	lb.Append(true)
	vb := lb.ValueBuilder()
	for _, it := range items {
		if err := AppendFromJava(vb, *t.Elem, it, budget); err != nil {
			return err
		}
	}
	return nil
}

// javaIntegral is a Java Byte, Integer or Long (a BigInteger, bool or float is not).
func javaIntegral(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case javaByte:
		return int64(x), true
	}
	return 0, false
}

func appendIntegral(b array.Builder, x int64) {
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(x))
	case *array.Int16Builder:
		bb.Append(int16(x))
	case *array.Int32Builder:
		bb.Append(int32(x))
	case *array.Int64Builder:
		bb.Append(x)
	case *array.MonthIntervalBuilder:
		bb.Append(arrow.MonthInterval(int32(x)))
	}
}

func nullMapKey() error {
	return sparkerr.New(sparkerr.SparkRuntimeException, "NULL_MAP_KEY", "2200E", "Cannot use null as map key.")
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// maxDecimalDigits bounds the digits of a parsed decimal.Decimal or text integer, like CPython's
// default int_max_str_digits.
const maxDecimalDigits = 4300

// parseDecimal parses Python's Decimal string form ("-1.50", "1E+3", "2.5e-7") into an unscaled
// value and a scale (value = unscaled × 10^-scale). ok is false for anything else (NaN, Infinity,
// garbage), for exponents beyond ±1e7 and for more than maxDecimalDigits digits.
func parseDecimal(s string) (unscaled *big.Int, scale int, ok bool) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := s[i+1:]
		neg := false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			neg = e[0] == '-'
			e = e[1:]
		}
		if e == "" || len(e) > 7 {
			return nil, 0, false
		}
		for _, c := range e {
			if c < '0' || c > '9' {
				return nil, 0, false
			}
			exp = exp*10 + int(c-'0')
		}
		if neg {
			exp = -exp
		}
	}
	sign := ""
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		if mant[0] == '-' {
			sign = "-"
		}
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || len(digits) > maxDecimalDigits {
		return nil, 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, 0, false
		}
	}
	u, _ := new(big.Int).SetString(sign+digits, 10)
	return u, len(frac) - exp, true
}

// toDecimal128 is Spark's Decimal.set(BigDecimal, precision, scale): round HALF_UP to scale, then
// fail when more than precision digits remain.
func toDecimal128(s string, precision, scale int32) (decimal128.Num, error) {
	u, sc, ok := parseDecimal(s)
	if !ok {
		return decimal128.Num{}, pickleError("decimal.Decimal(%.40q) is not a finite number", s)
	}
	digits := func(x *big.Int) int {
		if x.Sign() == 0 {
			return 1
		}
		return len(new(big.Int).Abs(x).String())
	}
	switch diff := int(scale) - sc; {
	case diff > 0:
		// Scaling up multiplies by 10^diff: check the digit count first so a huge exponent does
		// not build a huge number.
		if u.Sign() != 0 && digits(u)+diff > int(precision) {
			return decimal128.Num{}, precisionExceeded(digits(u)+diff, precision)
		}
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(diff)), nil))
	case diff < 0:
		if -diff > digits(u)+1 {
			u.SetInt64(0) // rounds to zero
		} else {
			p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-diff)), nil)
			q, r := new(big.Int).QuoRem(u, p, new(big.Int))
			// HALF_UP: away from zero when the dropped part is at least half.
			if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(p) >= 0 {
				if u.Sign() < 0 {
					q.Sub(q, big.NewInt(1))
				} else {
					q.Add(q, big.NewInt(1))
				}
			}
			u = q
		}
	}
	if d := digits(u); d > int(precision) {
		return decimal128.Num{}, precisionExceeded(d, precision)
	}
	return decimal128.FromBigInt(u), nil
}

func precisionExceeded(p int, max int32) error {
	return sparkerr.Newf("org.apache.spark.SparkArithmeticException", "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
		"Decimal precision %d exceeds max precision %d.", p, max).
		WithParams("precision", itoa(p), "maxPrecision", itoa(int(max)))
}
