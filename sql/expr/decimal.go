package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Decimal helpers over math/big: exact rescaling with HALF_UP rounding and precision checks.

var pow10Cache [80]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range pow10Cache {
		pow10Cache[i] = new(big.Int).Set(p)
		p.Mul(p, big.NewInt(10))
	}
}

func pow10(n int32) *big.Int {
	if n >= 0 && int(n) < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// rescale changes b's scale from → to, rounding HALF_UP (away from zero on ties).
func rescale(b *big.Int, from, to int32) *big.Int {
	if to >= from {
		return new(big.Int).Mul(b, pow10(to-from))
	}
	return divHalfUp(b, pow10(from-to))
}

// divHalfUp divides rounding half away from zero.
func divHalfUp(a, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(a, d, new(big.Int))
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(d)) >= 0 {
		if (a.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// fitsPrecision reports |b| < 10^p.
func fitsPrecision(b *big.Int, p int32) bool {
	return new(big.Int).Abs(b).Cmp(pow10(p)) < 0
}

func bigToNum(b *big.Int) decimal128.Num { return decimal128.FromBigInt(b) }

// parseDecimalString parses [+-]digits[.digits][e[+-]digits] into unscaled value and scale.
func parseDecimalString(s string) (*big.Int, int32, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, 0, false
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	neg := false
	if mant != "" && (mant[0] == '+' || mant[0] == '-') {
		neg = mant[0] == '-'
		mant = mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return nil, 0, false
	}
	digits := intPart + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, 0, false
		}
	}
	b, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, 0, false
	}
	scale := int32(len(frac))
	if exp != "" {
		e, err := strconv.Atoi(exp)
		if err != nil {
			return nil, 0, false
		}
		scale -= int32(e)
	}
	if neg {
		b.Neg(b)
	}
	return b, scale, true
}

// decimalFromFloat converts f to a decimal of scale s (HALF_UP), as Spark does via BigDecimal(f).
func decimalFromFloat(f float64, s int32) (*big.Int, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	b, sc, ok := parseDecimalString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return nil, false
	}
	return rescale(b, sc, s), true
}

// decimalToFloat converts an unscaled value of scale s to float64.
func decimalToFloat(n decimal128.Num, s int32) float64 {
	f, _ := strconv.ParseFloat(formatDecimal(n, s), 64)
	return f
}
