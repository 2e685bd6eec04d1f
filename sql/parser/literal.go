package parser

import (
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func itoa(i int) string { return strconv.Itoa(i) }

func boolLit(b bool) plan.Literal { return plan.Lit(b, sqltypes.BooleanType) }

func stringLiteral(s string) plan.Literal { return plan.Lit(s, sqltypes.StringType) }

// binaryLiteral decodes X'…' hex digits; an odd count is left-padded with 0, as Spark does.
func binaryLiteral(digits string) plan.Expr {
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		panic(parseFailure{err: invalidTypedLiteral("X", digits)})
	}
	return plan.Lit(b, sqltypes.BinaryType)
}

func invalidTypedLiteral(typ, value string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "INVALID_TYPED_LITERAL", "42604",
		"The value of the typed literal %q is invalid: '%s'.", typ, value).
		WithParams("valueType", `"`+typ+`"`, "value", "'"+value+"'")
}

func numericRangeError(raw, typ, lo, hi string) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "INVALID_NUMERIC_LITERAL_RANGE", "22003",
		"Numeric literal %s is outside the valid range for %s with minimum value of %s and maximum value of %s. Please adjust the value accordingly.",
		raw, typ, lo, hi).WithParams("rawStrippedQualifier", raw, "typeName", typ, "minValue", lo, "maxValue", hi)
}

func decimalPrecisionError(p int) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ParseException, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
		"Decimal precision %d exceeds max precision 38.", p).
		WithParams("precision", strconv.Itoa(p), "maxPrecision", "38")
}

// numberLiteral turns a numeric token into a literal typed as Spark types it: integers are int
// if they fit, else bigint, else decimal(p,0); suffixes L/S/Y force bigint/smallint/tinyint;
// 1.5 is decimal(2,1); an exponent or D suffix makes a double, F a float, BD a decimal.
func (p *parser) numberLiteral(t token, negative bool) plan.Expr {
	text := t.text
	if negative {
		text = "-" + text
	}
	lit, err := parseNumber(text)
	if err != nil {
		p.fail(err)
	}
	return lit
}

func parseNumber(text string) (plan.Literal, *sparkerr.Error) {
	upper := strings.ToUpper(text)
	integral := func(body string, bits int, typ string, dt sqltypes.DataType) (plan.Literal, *sparkerr.Error) {
		v, err := strconv.ParseInt(body, 10, bits)
		if err != nil {
			lo := -(int64(1) << (bits - 1))
			return plan.Literal{}, numericRangeError(body, typ, strconv.FormatInt(lo, 10), strconv.FormatInt(-(lo+1), 10))
		}
		switch bits {
		case 8:
			return plan.Lit(int8(v), dt), nil
		case 16:
			return plan.Lit(int16(v), dt), nil
		}
		return plan.Lit(v, dt), nil
	}
	floating := func(body string, bits int, typ string) (plan.Literal, *sparkerr.Error) {
		v, err := strconv.ParseFloat(body, bits)
		if err != nil || math.IsInf(v, 0) {
			hi := "1.7976931348623157E+308"
			if bits == 32 {
				hi = "3.4028234663852886E+38"
			}
			return plan.Literal{}, numericRangeError(body, typ, "-"+hi, hi)
		}
		if bits == 32 {
			return plan.Lit(float32(v), sqltypes.FloatType), nil
		}
		return plan.Lit(v, sqltypes.DoubleType), nil
	}
	switch {
	case strings.HasSuffix(upper, "BD"):
		return decimalLiteral(text[:len(text)-2])
	case strings.HasSuffix(upper, "D"):
		return floating(text[:len(text)-1], 64, "double")
	case strings.HasSuffix(upper, "F"):
		return floating(text[:len(text)-1], 32, "float")
	case strings.HasSuffix(upper, "L"):
		return integral(text[:len(text)-1], 64, "bigint", sqltypes.LongType)
	case strings.HasSuffix(upper, "S"):
		return integral(text[:len(text)-1], 16, "smallint", sqltypes.ShortType)
	case strings.HasSuffix(upper, "Y"):
		return integral(text[:len(text)-1], 8, "tinyint", sqltypes.ByteType)
	case strings.ContainsAny(upper, "E"):
		return floating(text, 64, "double")
	case strings.Contains(text, "."):
		return decimalLiteral(text)
	}
	if v, err := strconv.ParseInt(text, 10, 32); err == nil {
		return plan.Lit(int32(v), sqltypes.IntegerType), nil
	}
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return plan.Lit(v, sqltypes.LongType), nil
	}
	return decimalLiteral(text)
}

// decimalLiteral parses a decimal number like Java's BigDecimal: precision is the number of
// digits of the unscaled value, the type is decimal(max(precision, scale), scale); a negative
// scale (1e3BD) is normalised to 0.
func decimalLiteral(text string) (plan.Literal, *sparkerr.Error) {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.Atoi(text[i+1:])
		if err != nil || e > 1000 || e < -1000 {
			return plan.Literal{}, decimalPrecisionError(len(text))
		}
		mant, exp = text[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimLeft(mant, "+-")
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	scale -= exp
	digits := strings.TrimLeft(mant, "0")
	if scale < 0 {
		if digits != "" {
			digits += strings.Repeat("0", -scale)
		}
		scale = 0
	}
	prec := len(digits)
	if prec == 0 {
		prec = 1
	}
	if prec < scale {
		prec = scale
	}
	if prec > 38 {
		return plan.Literal{}, decimalPrecisionError(prec)
	}
	v := new(big.Int)
	if digits != "" {
		v.SetString(digits, 10)
	}
	if neg {
		v.Neg(v)
	}
	return plan.Lit(decimal128.FromBigInt(v), sqltypes.DecimalType(int32(prec), int32(scale))), nil
}

// negateLiteral negates a numeric literal, if it can be represented.
func negateLiteral(l plan.Literal) (plan.Literal, bool) {
	switch v := l.Value.(type) {
	case int8:
		if v != math.MinInt8 {
			return plan.Lit(-v, l.Type), true
		}
	case int16:
		if v != math.MinInt16 {
			return plan.Lit(-v, l.Type), true
		}
	case int32:
		if v != math.MinInt32 {
			return plan.Lit(-v, l.Type), true
		}
	case int64:
		if v != math.MinInt64 {
			return plan.Lit(-v, l.Type), true
		}
	case float32:
		return plan.Lit(-v, l.Type), true
	case float64:
		return plan.Lit(-v, l.Type), true
	case decimal128.Num:
		return plan.Lit(v.Negate(), l.Type), true
	}
	return l, false
}
