package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// String formatting functions. format_string / printf: java.util.Formatter's common subset, with
// the exceptions Spark's FormatString lets through from the Formatter (it passes its internal
// values: UTF8String, Decimal, Integer days for dates, …). format_number: DecimalFormat's
// grouped rendering, rounded HALF_EVEN.

// Java exceptions of java.util.Formatter (all IllegalFormatException, an IllegalArgumentException).
const (
	illegalFormatConversion    = "java.util.IllegalFormatConversionException"
	missingFormatArgument      = "java.util.MissingFormatArgumentException"
	unknownFormatConversion    = "java.util.UnknownFormatConversionException"
	illegalFormatArgumentIndex = "java.util.IllegalFormatArgumentIndexException"
)

// goFmtMaxWidth is the largest width or precision Go's fmt accepts.
const goFmtMaxWidth = 1_000_000

func bindFormatString(name string, args []Expr, opts Options) (Expr, error) {
	f0, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	if p, ok := literalValue(f0); ok && p != nil && strings.Contains(p.(string), "%0$") {
		// FormatString.checkArgumentIndexNotZero (QueryCompilationErrors.zeroArgumentIndexError).
		return nil, sparkerr.Analysis("INVALID_PARAMETER_VALUE.ZERO_INDEX", "22023",
			"The value of parameter(s) `strfmt` in `%s` is invalid: expects %%1$, %%2$ and so on, but got %%0$.", name).
			WithParams("parameter", "`strfmt`", "functionName", sparkerr.Quote(name))
	}
	cs := append([]Expr{f0}, args[1:]...)
	types := make([]sqltypes.DataType, len(cs)-1)
	for i, c := range cs[1:] {
		types[i] = c.Type()
	}
	return &rowFunc{name: name, args: cs, t: strType, null: f0.Nullable(), str: callString(name, args),
		fn: func(ctx *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return javaFormat(a[0].(string), a[1:], types, ctx)
		},
		size: func(a []any) (int64, error) {
			if a[0] == nil {
				return 0, nil
			}
			return javaFormatBytes(a[0].(string), a[1:], types, nil)
		}}, nil
}

// fmtSpec is one format specifier: %[index$][flags][width][.precision]conversion.
type fmtSpec struct {
	text  string // the whole specifier, for error messages
	index int    // explicit 1-based argument index; 0: the next ordinary one
	flags string
	width int64 // -1: none
	prec  int64 // -1: none
	conv  byte
}

// parseSpec parses the specifier at f[i] == '%' and returns it and the index after it.
func parseSpec(f string, i int) (fmtSpec, int, error) {
	s := fmtSpec{width: -1, prec: -1}
	j := i + 1
	num := func() (int64, bool) {
		k := j
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if k == j {
			return 0, false
		}
		n, err := strconv.ParseInt(f[k:j], 10, 64)
		if err != nil {
			n = math.MaxInt64
		}
		return n, true
	}
	// An argument index is digits followed by '$'.
	if k := j; k < len(f) && f[k] >= '1' && f[k] <= '9' {
		if n, _ := num(); j < len(f) && f[j] == '$' {
			s.index = int(min(n, math.MaxInt32))
			j++
		} else {
			j = k
		}
	} else if strings.HasPrefix(f[j:], "0$") {
		return s, 0, sparkerr.New(illegalFormatArgumentIndex, "", "", "Illegal format argument index = 0")
	}
	k := j
	for j < len(f) && strings.IndexByte("-#+ 0,(<", f[j]) >= 0 {
		j++
	}
	s.flags = f[k:j]
	if n, ok := num(); ok {
		s.width = n
	}
	if j < len(f) && f[j] == '.' {
		j++
		n, _ := num()
		s.prec = n
	}
	if j >= len(f) {
		return s, 0, sparkerr.New(unknownFormatConversion, "", "", "Conversion = '%'")
	}
	s.conv = f[j]
	s.text = f[i : j+1]
	return s, j + 1, nil
}

// javaFormat formats like java.util.Formatter(Locale.US).format(f, args…) over Spark's values of
// types; null arguments render "null" (false for %b).
func javaFormat(f string, args []any, types []sqltypes.DataType, ctx *Context) (string, error) {
	var b strings.Builder
	_, err := javaFormatBytes(f, args, types, func(s fmtSpec, arg any, t sqltypes.DataType, lit string) error {
		if s.conv == 0 {
			b.WriteString(lit)
			return nil
		}
		out, err := formatOne(s, arg, t, ctx)
		if err != nil {
			return err
		}
		b.WriteString(out)
		return nil
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// javaFormatBytes walks f's literal text and specifiers, resolving each specifier's argument as
// Java does (explicit index, '<' for the previous one, else the next ordinary one), and returns
// an upper bound of the formatted size. With emit set it is called for each piece in order
// (conv 0 for literal text); the size is computed first by a call without emit.
func javaFormatBytes(f string, args []any, types []sqltypes.DataType, emit func(s fmtSpec, arg any, t sqltypes.DataType, lit string) error) (int64, error) {
	var size int64
	ordinary, last := 0, -1
	for i := 0; i < len(f); {
		if f[i] != '%' {
			j := strings.IndexByte(f[i:], '%')
			if j < 0 {
				j = len(f) - i
			}
			size += int64(j)
			if emit != nil {
				if err := emit(fmtSpec{}, nil, sqltypes.DataType{}, f[i:i+j]); err != nil {
					return 0, err
				}
			}
			i += j
			continue
		}
		s, next, err := parseSpec(f, i)
		if err != nil {
			return 0, err
		}
		i = next
		var arg any
		var t sqltypes.DataType
		switch s.conv {
		case '%', 'n':
		default:
			k := 0
			switch {
			case strings.Contains(s.flags, "<"):
				k = last
			case s.index > 0:
				k = s.index - 1
			default:
				k = ordinary
				ordinary++
			}
			if k < 0 || k >= len(args) {
				return 0, sparkerr.New(missingFormatArgument, "", "", fmt.Sprintf("Format specifier '%s'", s.text))
			}
			last = k
			arg, t = args[k], types[k]
		}
		size = addBytes(size, specBytes(s, arg, t))
		if emit != nil {
			if err := emit(s, arg, t, ""); err != nil {
				return 0, err
			}
		}
	}
	return size, nil
}

// specBytes is an upper bound of the bytes one specifier renders.
func specBytes(s fmtSpec, arg any, t sqltypes.DataType) int64 {
	var n int64 = 64
	switch s.conv {
	case 's', 'S':
		if str, ok := arg.(string); ok {
			n = int64(len(str))
		} else if arg != nil {
			n = valueBytes(arg, t) * 4 // rendered values (dates, arrays, …) are a few times their size
		}
		if s.prec >= 0 {
			n = min(n, mulBytes(s.prec, 4))
		}
	case 'f', 'e', 'E', 'g', 'G':
		n = addBytes(400, max(s.prec, 0))
	}
	return max(n, s.width)
}

// formatOne renders one specifier with its argument, or fails as Java's Formatter does.
func formatOne(s fmtSpec, arg any, t sqltypes.DataType, ctx *Context) (string, error) {
	flags := strings.NewReplacer(",", "", "<", "", "(", "").Replace(s.flags)
	spec := flags
	width := s.width
	if width >= 0 && width <= goFmtMaxWidth {
		spec += strconv.FormatInt(width, 10)
		width = -1
	}
	flagsWidth := spec
	if s.prec >= 0 {
		spec += "." + strconv.FormatInt(min(s.prec, goFmtMaxWidth), 10)
	}
	var out string
	switch s.conv {
	case '%':
		return "%", nil
	case 'n':
		return "\n", nil
	case 's', 'S':
		str := "null"
		if arg != nil {
			str = fmt.Sprint(formatPlain(formatStringArg(arg, t, ctx)))
		}
		if s.conv == 'S' {
			str = strings.ToUpper(str)
		}
		out = fmt.Sprintf("%"+spec+"s", str)
	case 'b', 'B':
		v := arg != nil
		if x, ok := arg.(bool); ok {
			v = x
		}
		out = fmt.Sprintf("%"+spec+"s", strconv.FormatBool(v))
		if s.conv == 'B' {
			out = strings.ToUpper(out)
		}
	case 'd', 'o', 'x', 'X':
		if arg == nil {
			out = fmt.Sprintf("%"+spec+"s", "null")
			break
		}
		v, ok := javaIntegral(arg, t)
		if !ok {
			return "", conversionMismatch(s.conv, t)
		}
		if s.conv == 'd' {
			out = fmt.Sprintf("%"+spec+"d", v)
		} else {
			out = fmt.Sprintf("%"+spec+string(s.conv), javaUnsigned(v, t))
		}
	case 'f', 'e', 'E', 'g', 'G':
		if arg == nil {
			out = fmt.Sprintf("%"+spec+"s", "null")
			break
		}
		x, ok := arg.(float64)
		if f32, is32 := arg.(float32); is32 {
			x, ok = float64(f32), true
		}
		if !ok || (t.Kind != sqltypes.Double && t.Kind != sqltypes.Float) {
			return "", conversionMismatch(s.conv, t)
		}
		if s.prec < 0 {
			spec += ".6"
		}
		if s.conv == 'g' || s.conv == 'G' {
			out = javaGeneral(x, flagsWidth, s.prec, s.conv == 'G')
		} else {
			out = fmt.Sprintf("%"+spec+string(s.conv), x)
		}
	case 'c', 'C':
		if arg == nil {
			out = fmt.Sprintf("%"+spec+"s", "null")
			break
		}
		v, ok := javaIntegral(arg, t)
		if !ok || t.Kind == sqltypes.Long || t.Kind == sqltypes.Timestamp || t.Kind == sqltypes.TimestampNTZ || t.Kind == sqltypes.DayTimeInterval {
			return "", conversionMismatch(s.conv, t)
		}
		out = fmt.Sprintf("%"+spec+"c", rune(v))
		if s.conv == 'C' {
			out = strings.ToUpper(out)
		}
	case 'h', 'H', 't', 'T', 'a', 'A':
		// Valid in Java but not rendered by Weir: kept as written.
		out = s.text
	default:
		return "", sparkerr.New(unknownFormatConversion, "", "", fmt.Sprintf("Conversion = '%c'", s.conv))
	}
	if width > int64(len(out)) {
		out = padFormatted(out, int(width), strings.Contains(s.flags, "-"), strings.Contains(s.flags, "0"))
	}
	return out, nil
}

// padFormatted pads out to width (beyond what Go's fmt pads): spaces, or zeros after the sign.
func padFormatted(out string, width int, left, zero bool) string {
	pad := width - len(out)
	switch {
	case left:
		return out + strings.Repeat(" ", pad)
	case zero:
		sign := ""
		if out != "" && strings.IndexByte("+- ", out[0]) >= 0 {
			sign, out = out[:1], out[1:]
		}
		return sign + strings.Repeat("0", pad) + out
	}
	return strings.Repeat(" ", pad) + out
}

// javaGeneral is Java's %g: precision significant digits, in decimal notation when the rounded
// magnitude is in [10^-4, 10^precision), else in scientific notation; trailing zeros are kept.
// flagsWidth is the Go flags and width to apply.
func javaGeneral(x float64, flagsWidth string, prec int64, upper bool) string {
	p := prec
	if p < 0 {
		p = 6
	} else if p == 0 {
		p = 1
	}
	p = min(p, goFmtMaxWidth)
	sci := strconv.FormatFloat(math.Abs(x), 'e', int(p-1), 64)
	exp, _ := strconv.Atoi(sci[strings.IndexByte(sci, 'e')+1:])
	var out string
	if x == 0 || (math.Abs(x) >= 1e-4 && exp < int(p)) {
		out = fmt.Sprintf("%"+flagsWidth+"."+strconv.Itoa(max(int(p)-1-exp, 0))+"f", x)
	} else {
		out = fmt.Sprintf("%"+flagsWidth+"."+strconv.FormatInt(p-1, 10)+"e", x)
	}
	if upper {
		out = strings.ToUpper(out)
	}
	return out
}

// javaIntegral is the integer Java's Formatter sees for an integral conversion: Byte, Short,
// Integer and Long (dates, timestamps and intervals are Integer or Long inside Spark).
func javaIntegral(arg any, t sqltypes.DataType) (int64, bool) {
	switch t.Kind {
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long, sqltypes.Date,
		sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval, sqltypes.YearMonthInterval:
		switch arg.(type) {
		case int8, int16, int32, int64:
			return toInt64(arg), true
		}
	}
	return 0, false
}

// javaUnsigned is v as Java's %x and %o render a negative value: two's complement of its width.
func javaUnsigned(v int64, t sqltypes.DataType) any {
	if v >= 0 {
		return v
	}
	switch t.Kind {
	case sqltypes.Byte:
		return uint8(v)
	case sqltypes.Short:
		return uint16(v)
	case sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return uint32(v)
	}
	return uint64(v)
}

// conversionMismatch is IllegalFormatConversionException: "<conversion> != <argument class>".
func conversionMismatch(conv byte, t sqltypes.DataType) *sparkerr.Error {
	return sparkerr.New(illegalFormatConversion, "", "", fmt.Sprintf("%c != %s", conv, javaValueClass(t)))
}

// javaValueClass is the Java class of Spark's internal value of type t.
func javaValueClass(t sqltypes.DataType) string {
	switch t.Kind {
	case sqltypes.Boolean:
		return "java.lang.Boolean"
	case sqltypes.Byte:
		return "java.lang.Byte"
	case sqltypes.Short:
		return "java.lang.Short"
	case sqltypes.Integer, sqltypes.Date, sqltypes.YearMonthInterval:
		return "java.lang.Integer"
	case sqltypes.Long, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.DayTimeInterval:
		return "java.lang.Long"
	case sqltypes.Float:
		return "java.lang.Float"
	case sqltypes.Double:
		return "java.lang.Double"
	case sqltypes.String:
		return "org.apache.spark.unsafe.types.UTF8String"
	case sqltypes.Binary:
		return "[B"
	case sqltypes.Decimal:
		return "org.apache.spark.sql.types.Decimal"
	case sqltypes.Array:
		return "org.apache.spark.sql.catalyst.util.GenericArrayData"
	case sqltypes.Map:
		return "org.apache.spark.sql.catalyst.util.ArrayBasedMapData"
	case sqltypes.Struct:
		return "org.apache.spark.sql.catalyst.expressions.GenericInternalRow"
	}
	return "java.lang.Object"
}

// formatStringArg is the text %s renders for a value of type t.
func formatStringArg(v any, t sqltypes.DataType, ctx *Context) any {
	switch t.Kind {
	case sqltypes.Decimal, sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Array, sqltypes.Map, sqltypes.Struct:
		return valueString(v, t, ctx.loc())
	}
	return v
}

func formatPlain(v any) any {
	switch x := v.(type) {
	case float64:
		return formatDouble(x)
	case float32:
		return formatFloat(x)
	}
	return v
}

// javaDoubleFractionDigits is DecimalFormat's cap on fraction digits for numbers other than
// BigDecimal and BigInteger (DOUBLE_FRACTION_DIGITS).
const javaDoubleFractionDigits = 340

// formatNumber renders x (unscaled at scale) rounded HALF_EVEN to d digits with thousands
// separators, padding the fraction with zeros without scaling x by 10^d.
func formatNumber(unscaled *big.Int, scale int32, d int32) string {
	r, _ := roundDecimal(unscaled, scale, d, "bround") // d ≥ 0: the drop always fits
	rs := min(scale, d)
	if rs < 0 {
		r, rs = new(big.Int).Mul(r, pow10(-rs)), 0
	}
	neg := r.Sign() < 0
	digits := new(big.Int).Abs(r).String()
	if len(digits) <= int(rs) {
		digits = strings.Repeat("0", int(rs)-len(digits)+1) + digits
	}
	intPart, frac := digits[:len(digits)-int(rs)], digits[len(digits)-int(rs):]
	var b strings.Builder
	b.Grow(len(intPart)*4/3 + int(d) + 2)
	if neg && strings.Trim(digits, "0") != "" {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if d > 0 {
		b.WriteByte('.')
		b.WriteString(frac)
		b.WriteString(strings.Repeat("0", int(d-rs)))
	}
	return b.String()
}

func bindFormatNumber(name string, args []Expr, opts Options) (Expr, error) {
	x, err := numericArg(name, args, 0, opts)
	if err != nil {
		return nil, err
	}
	if args[1].Type().Kind == sqltypes.String {
		return nil, sparkerr.Unsupported("format_number with a format pattern")
	}
	d, err := coerceArg(name, args, 1, intType, opts)
	if err != nil {
		return nil, err
	}
	xt := x.Type()
	maxDigits := int32(math.MaxInt32)
	if xt.Kind != sqltypes.Decimal {
		maxDigits = javaDoubleFractionDigits
	}
	f := nullableStrict(name, []Expr{x, d}, strType, func(_ *Context, a []any) (any, error) {
		digits := min(int32(toInt64(a[1])), maxDigits)
		if digits < 0 {
			return nil, nil
		}
		var b *big.Int
		var s int32
		switch xt.Kind {
		case sqltypes.Decimal:
			b, s = a[0].(decimalNum).BigInt(), xt.Scale
		case sqltypes.Float, sqltypes.Double:
			var ok bool
			if b, s, ok = parseDecimalString(strconv.FormatFloat(toFloat64(a[0]), 'g', -1, 64)); !ok {
				return nil, nil
			}
		default:
			b, s = big.NewInt(toInt64(a[0])), 0
		}
		return formatNumber(b, s, digits), nil
	})
	f.size = func(a []any) (int64, error) {
		// The integral part (with separators) of a double or decimal is at most ~420 bytes.
		return int64(max(min(int32(toInt64(a[1])), maxDigits), 0)) + 420, nil
	}
	f.text = callText(name, args)
	return f, nil
}
