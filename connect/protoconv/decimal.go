package protoconv

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// decimalLiteral converts a decimal literal the way Spark's LiteralValueProtoConverter does: the
// value's own precision and scale (java.math.BigDecimal's, with Spark's adjustments) widened by
// the precision and scale the client sent. A data type dictated by a parent or by data_type
// wins, and the value is rescaled to it.
func decimalLiteral(d *pb.Expression_Literal_Decimal, want *sqltypes.DataType) (plan.Literal, error) {
	if d == nil {
		d = &pb.Expression_Literal_Decimal{}
	}
	unscaled, valScale, err := parseBigDecimal(d.GetValue())
	if err != nil {
		return plan.Literal{}, err
	}
	var t sqltypes.DataType
	if want != nil {
		if want.Kind != sqltypes.Decimal {
			return plan.Literal{}, invalidPlan("decimal literal does not match its data type %s", want)
		}
		t = *want
	} else {
		prec, scale := int32(len(new(big.Int).Abs(unscaled).String())), valScale
		if prec < scale {
			prec = scale
		}
		if d.Precision != nil && d.GetPrecision() > prec {
			prec = d.GetPrecision()
		}
		if d.Scale != nil && d.GetScale() > scale {
			scale = d.GetScale()
		}
		if t, err = decimalType(max(prec, scale), scale); err != nil {
			return plan.Literal{}, err
		}
	}
	num, err := rescaleDecimal(unscaled, valScale, t)
	if err != nil {
		return plan.Literal{}, err
	}
	return plan.Literal{Value: num, Type: t}, nil
}

// rescaleDecimal turns unscaled×10^-scale into t's scale, rounding half up like Spark's
// Decimal.changePrecision, and checks the result fits t's precision.
func rescaleDecimal(unscaled *big.Int, scale int32, t sqltypes.DataType) (decimal128.Num, error) {
	v := new(big.Int).Set(unscaled)
	ten := big.NewInt(10)
	if t.Scale > scale {
		v.Mul(v, new(big.Int).Exp(ten, big.NewInt(int64(t.Scale-scale)), nil))
	} else if t.Scale < scale {
		div := new(big.Int).Exp(ten, big.NewInt(int64(scale-t.Scale)), nil)
		q, r := new(big.Int).QuoRem(v, div, new(big.Int))
		if new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2)).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(int64(v.Sign())))
		}
		v = q
	}
	if len(new(big.Int).Abs(v).String()) > int(t.Precision) {
		return decimal128.Num{}, numericOutOfRange(decimalText(v, t.Scale), decimalText(unscaled, scale), t)
	}
	return decimal128.FromBigInt(v), nil
}

func numericOutOfRange(rounded, original string, t sqltypes.DataType) *sparkerr.Error {
	return sparkerr.Newf(sparkerr.ArithmeticException, "NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION", "22003",
		"The %s rounded half up from %s cannot be represented as Decimal(%d, %d).", rounded, original, t.Precision, t.Scale).
		WithParams("roundedValue", rounded, "originalValue", original, "precision", itoa(int64(t.Precision)), "scale", itoa(int64(t.Scale)))
}

// decimalText renders unscaled×10^-scale exactly ("-0.015").
func decimalText(unscaled *big.Int, scale int32) string {
	digits := new(big.Int).Abs(unscaled).String()
	if scale > 0 {
		if pad := int(scale) + 1 - len(digits); pad > 0 {
			digits = strings.Repeat("0", pad) + digits
		}
		digits = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
	}
	if unscaled.Sign() < 0 {
		return "-" + digits
	}
	return digits
}

// parseBigDecimal parses a decimal string like java.math.BigDecimal(String): sign, digits with
// an optional point, optional exponent. It returns the unscaled value and the scale; a
// negative scale (1E+3) is normalised to 0 as Spark does without negative-scale decimals.
func parseBigDecimal(s string) (*big.Int, int32, error) {
	bad := func() error {
		return sparkerr.Newf(sparkerr.NumberFormatException, "", "", "Invalid decimal literal value %q", s)
	}
	str := strings.TrimSpace(s)
	exp := int64(0)
	if i := strings.IndexAny(str, "eE"); i >= 0 {
		e, err := strconv.ParseInt(str[i+1:], 10, 32)
		if err != nil {
			return nil, 0, bad()
		}
		exp, str = e, str[:i]
	}
	neg := false
	if str != "" && (str[0] == '+' || str[0] == '-') {
		neg, str = str[0] == '-', str[1:]
	}
	intPart, frac, _ := strings.Cut(str, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" || strings.Contains(frac, ".") {
		return nil, 0, bad()
	}
	unscaled, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, bad()
	}
	if neg {
		unscaled.Neg(unscaled)
	}
	scale := int64(len(frac)) - exp
	if scale < 0 {
		if -scale > 2*maxDecimalPrecision {
			return nil, 0, bad()
		}
		unscaled.Mul(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(-scale), nil))
		scale = 0
	}
	if scale > 2*maxDecimalPrecision {
		return nil, 0, bad()
	}
	return unscaled, int32(scale), nil
}
