package expr

import (
	"fmt"
	"strings"

	"github.com/weirhq/weir/sqltypes"
)

// format_string / printf: java.util.Formatter's common subset.

func bindFormatString(name string, args []Expr, opts Options) (Expr, error) {
	f0, err := coerceArg(name, args, 0, strType, opts)
	if err != nil {
		return nil, err
	}
	cs := append([]Expr{f0}, args[1:]...)
	return &rowFunc{name: name, args: cs, t: strType, null: f0.Nullable(), str: callString(name, args),
		fn: func(ctx *Context, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			vals := make([]any, len(a)-1)
			for i, v := range a[1:] {
				vals[i] = formatArg(v, cs[i+1].Type(), ctx)
			}
			return javaFormat(a[0].(string), vals), nil
		}}, nil
}

func formatArg(v any, t sqltypes.DataType, ctx *Context) any {
	switch t.Kind {
	case sqltypes.Decimal:
		if v != nil {
			return decimalToFloat(v.(decimalNum), t.Scale)
		}
	case sqltypes.Date, sqltypes.Timestamp, sqltypes.TimestampNTZ, sqltypes.Array, sqltypes.Map, sqltypes.Struct:
		if v != nil {
			return valueString(v, t, ctx.loc())
		}
	}
	return v
}

// javaFormat implements the common subset of java.util.Formatter: %s %d %f %e %x %c %b %% %n
// with flags, width and precision; null arguments render "null".
func javaFormat(f string, args []any) string {
	var b strings.Builder
	argi := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ 0,#(123456789.$", f[j]) >= 0 {
			j++
		}
		if j >= len(f) {
			b.WriteString(f[i:])
			break
		}
		spec, verb := f[i+1:j], f[j]
		i = j
		switch verb {
		case '%':
			b.WriteByte('%')
			continue
		case 'n':
			b.WriteByte('\n')
			continue
		}
		if k := strings.IndexByte(spec, '$'); k >= 0 {
			var n int
			fmt.Sscanf(spec[:k], "%d", &n)
			argi = n - 1
			spec = spec[k+1:]
		}
		var arg any
		if argi < len(args) {
			arg = args[argi]
		}
		argi++
		spec = strings.ReplaceAll(spec, ",", "")
		switch verb {
		case 's', 'S':
			s := "null"
			if arg != nil {
				s = fmt.Sprint(formatPlain(arg))
			}
			if verb == 'S' {
				s = strings.ToUpper(s)
			}
			b.WriteString(fmt.Sprintf("%"+spec+"s", s))
		case 'd':
			if arg == nil {
				b.WriteString("null")
			} else {
				b.WriteString(fmt.Sprintf("%"+spec+"d", toInt64(arg)))
			}
		case 'f', 'e', 'E', 'g':
			if arg == nil {
				b.WriteString("null")
			} else {
				if !strings.Contains(spec, ".") {
					spec += ".6"
				}
				b.WriteString(fmt.Sprintf("%"+spec+string(verb), toFloat64(arg)))
			}
		case 'x', 'X', 'o':
			if arg == nil {
				b.WriteString("null")
			} else {
				b.WriteString(fmt.Sprintf("%"+spec+string(verb), toInt64(arg)))
			}
		case 'c':
			if arg == nil {
				b.WriteString("null")
			} else if s, ok := arg.(string); ok {
				b.WriteString(s)
			} else {
				b.WriteRune(rune(toInt64(arg)))
			}
		case 'b', 'B':
			if arg == nil {
				b.WriteString("false")
			} else if x, ok := arg.(bool); ok {
				b.WriteString(fmt.Sprint(x))
			} else {
				b.WriteString("true")
			}
		default:
			b.WriteString("%" + spec + string(verb))
		}
	}
	return b.String()
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
