package expr

import (
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// to_char(x, fmt) and to_varchar: a number written with a number format (the patterns of
// to_number; digits that do not fit print as #), a date or timestamp as date_format(x, fmt), a
// binary as base64, hex or decode(x, 'utf-8') by fmt. fmt must be a constant; a NULL one gives
// NULL.

func init() {
	registerScalar(2, 2, bindToChar, "to_char", "to_varchar")
}

func bindToChar(name string, args []Expr, opts Options) (Expr, error) {
	fv, ok := literalValue(args[1])
	if !ok {
		what := "format"
		if _, isCol := args[1].(*Column); isCol {
			what = "attributereference"
		}
		return nil, typeMismatch("NON_FOLDABLE_INPUT", quoteSQL(callString(name, args)),
			"the input `%s` should be a foldable \"STRING\" expression; however, got %s.", what, quoteSQL(args[1].String())).
			WithParams("inputName", "`"+what+"`", "inputType", `"STRING"`, "inputExpr", quoteSQL(args[1].String()))
	}
	t := args[0].Type()
	switch t.Kind {
	case sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ:
		return Bind("date_format", args, opts)
	case sqltypes.Binary:
		f, _ := fv.(string)
		var e Expr
		var err error
		switch strings.ToLower(f) {
		case "base64":
			e, err = Bind("base64", args[:1], opts)
		case "hex":
			e, err = Bind("hex", args[:1], opts)
		case "utf-8":
			e, err = Bind("decode", []Expr{args[0], NewLiteral("utf-8", sqltypes.StringType)}, opts)
		}
		if e != nil || err != nil {
			if err == nil && name == "to_varchar" {
				// Spark renders to_varchar of a binary as to_varchar(x), to_char as the function it becomes.
				e = &renamed{Expr: e, name: "to_varchar(" + args[0].String() + ")"}
			}
			return e, err
		}
		if fv == nil {
			return NewLiteral(nil, sqltypes.StringType), nil
		}
		return nil, sparkerr.Newf(sparkerr.AnalysisException, "INVALID_PARAMETER_VALUE.BINARY_FORMAT", "22023",
			"The value of parameter(s) `format` in `%s` is invalid: expects one of binary formats 'base64', 'hex', 'utf-8', but got '%s'.", name, f).
			WithParams("parameter", "`format`", "functionName", "`"+name+"`", "invalidFormat", "'"+f+"'")
	}
	x := args[0]
	var err error
	switch {
	case t.Kind == sqltypes.Decimal:
	case t.IsIntegral():
		x, err = implicitCast(x, sqltypes.DecimalType(20, 0), opts)
	case t.Kind == sqltypes.Float || t.Kind == sqltypes.Double:
		x, err = implicitCast(x, sqltypes.DecimalType(30, 15), opts)
	default:
		x, err = implicitCast(x, sqltypes.DecimalType(38, 18), opts)
	}
	if err != nil {
		return nil, err
	}
	in := []Expr{x, args[1]}
	if fv == nil {
		return nullableStrict(name, in, sqltypes.StringType, func(*Context, []any) (any, error) { return nil, nil }), nil
	}
	nf, err := parseNumberFormat(strings.ToUpper(fv.(string)))
	if err != nil {
		return nil, err
	}
	scale := int(x.Type().Scale)
	f := strict(name, in, sqltypes.StringType, func(_ *Context, a []any) (any, error) {
		return nf.format(numToBig(a[0]), scale), nil
	})
	// Spark renders to_varchar of a number as to_char.
	f.str = callString("to_char", args)
	return f, nil
}

// numToBig is a DECIMAL value's unscaled integer.
func numToBig(v any) *big.Int {
	return v.(decimal128.Num).BigInt()
}

// format writes the decimal unscaled/10^scale with the format, as Spark's to_char: digits that
// do not fit make every digit position #; 9 positions left of the number are blanks, 0 positions
// zeros; signs and brackets follow the number's sign.
func (nf *numberFormat) format(unscaled *big.Int, scale int) string {
	neg := unscaled.Sign() < 0
	plain := formatBigDecimal(new(big.Int).Abs(unscaled), int32(scale))
	intPart, frac, _ := strings.Cut(plain, ".")
	intPart = strings.TrimLeft(intPart, "0")
	frac = strings.TrimRight(frac, "0")
	nb, na := 0, 0
	point := false
	for _, t := range nf.tokens {
		if t.kind == numPoint {
			point = true
		}
		for _, g := range t.group {
			if g.kind == numDigits {
				if point {
					na += g.n
				} else {
					nb += g.n
				}
			}
		}
	}
	if len(intPart) > nb || len(frac) > na {
		intPart, frac = strings.Repeat("#", nb), strings.Repeat("#", na)
	}
	intPart = strings.Repeat(" ", nb-len(intPart)) + intPart
	frac += strings.Repeat("0", na-len(frac))
	var r []byte
	bi, ai := 0, 0
	point = false
	for _, t := range nf.tokens {
		switch t.kind {
		case numGroup:
			for i := len(t.group) - 1; i >= 0; i-- {
				g := t.group[i]
				switch {
				case g.kind == numSeparator:
					if len(r) > 0 && r[len(r)-1] >= '0' && r[len(r)-1] <= '9' {
						r = append(r, ',')
					} else {
						r = appendBlank(r)
					}
				case point:
					r = append(r, frac[ai:ai+g.n]...)
					ai += g.n
				default:
					for k := 0; k < g.n; k++ {
						switch c := intPart[bi]; {
						case c == ' ' && g.exact:
							r = append(r, '0')
						case c == ' ':
							r = appendBlank(r)
						default:
							r = append(r, c)
						}
						bi++
					}
				}
			}
		case numPoint:
			if len(r) > 0 && r[len(r)-1] == ' ' {
				r[len(r)-1] = '0'
			}
			r = append(r, '.')
			point = true
		case numDollar:
			r = append(r, '$')
		case numSign:
			blankLonePoint(r)
			if neg {
				r = appendSign(r, '-')
			} else {
				r = appendSign(r, '+')
			}
		case numMinus:
			if neg {
				blankLonePoint(r)
				r = appendSign(r, '-')
			} else {
				r = append(r, ' ')
			}
		case numOpen:
			if neg {
				r = append(r, '<')
			}
		case numClose:
			blankLonePoint(r)
			if neg {
				r = appendSign(r, '>')
			} else {
				r = append(r, ' ', ' ')
			}
		}
	}
	blankLonePoint(r)
	if s := string(r); s != "" && s != "+" && s != "-" {
		return s
	}
	return "0"
}

// appendSign appends c and moves it left past the blanks before it.
func appendSign(r []byte, c byte) []byte {
	r = append(r, c)
	for i := len(r) - 1; i >= 1 && r[i-1] == ' ' && r[i] == c; i-- {
		r[i-1], r[i] = c, ' '
	}
	return r
}

// appendBlank appends a blank and moves it left past the signs and bracket before it.
func appendBlank(r []byte) []byte {
	r = append(r, ' ')
	for i := len(r) - 1; i >= 1 && r[i] == ' ' && (r[i-1] == '+' || r[i-1] == '-' || r[i-1] == '<'); i-- {
		r[i-1], r[i] = ' ', r[i-1]
	}
	return r
}

// blankLonePoint blanks the decimal point when nothing follows it.
func blankLonePoint(r []byte) {
	if i := strings.IndexByte(string(r), '.'); i >= 0 && (i == len(r)-1 || r[i+1] == ' ') {
		r[i] = ' '
	}
}
