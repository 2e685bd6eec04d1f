package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// CSV functions with Spark's default CSV options (delimiter ',', quote '"', escape '\'):
// to_csv(struct) writes one line as the Univocity writer (values trimmed, NULL as nothing, ""
// for an empty string, fields with a delimiter, quote or line break quoted, quotes escaped,
// timestamps yyyy-MM-dd'T'HH:mm:ss.SSSXXX, nested values as their string casts); from_csv(line,
// schema) parses one line in PERMISSIVE mode (a field that does not parse is NULL, missing
// fields NULL, extra ones ignored); schema_of_csv(line) infers CSVInferSchema's types of one
// constant line (_c0, _c1, …). Options other than the defaults are refused by name.

func init() {
	registerScalar(1, 2, bindToCSV, "to_csv")
	registerScalar(2, 3, bindFromCSV, "from_csv")
	registerScalar(1, 2, bindSchemaOfCSV, "schema_of_csv")
}

// csvOptions checks a CSV function's options argument: a constant map, empty (Weir reads only
// the default options).
func csvOptions(name string, opt Expr) error {
	m, ok := constantMap(opt)
	if !ok {
		return sparkerr.Analysis("INVALID_OPTIONS.NON_MAP_FUNCTION", "42K06", "Invalid options: Must use the `map()` function for options.")
	}
	if len(m.Keys) > 0 {
		return sparkerr.Unsupported("%s with options (%v): only the default CSV options are supported", name, m.Keys[0])
	}
	return nil
}

func bindToCSV(name string, args []Expr, opts Options) (Expr, error) {
	t := args[0].Type()
	if t.Kind == sqltypes.Null {
		return &renamed{Expr: NewLiteral(nil, sqltypes.StringType), name: callString(name, args[:1])}, nil
	}
	if t.Kind != sqltypes.Struct {
		return nil, typeMismatch("UNSUPPORTED_INPUT_TYPE", quoteSQL(callString(name, args[:1])),
			"The input of `to_csv` can't be \"%s\" type data.", t.SQL()).
			WithParams("functionName", "`to_csv`", "dataType", `"`+t.SQL()+`"`)
	}
	if len(args) == 2 {
		if err := csvOptions(name, args[1]); err != nil {
			return nil, err
		}
	}
	f := strict(name, args[:1], sqltypes.StringType, func(ctx *Context, a []any) (any, error) {
		var b strings.Builder
		for i, fv := range a[0].([]any) {
			if i > 0 {
				b.WriteByte(',')
			}
			if fv == nil {
				continue
			}
			ft := t.Fields[i].Type
			var s string
			switch ft.Kind {
			case sqltypes.Array, sqltypes.Map, sqltypes.Struct:
				v, err := castValue(fv, ft, sqltypes.StringType, false, ctx.loc())
				if err != nil {
					return nil, err
				}
				s = v.(string)
			default:
				s = jsonScalarText(fv, ft, ctx.loc())
			}
			writeCSVField(&b, strings.TrimSpace(s))
		}
		return b.String(), nil
	})
	f.str = callString(name, args[:1])
	return f, nil
}

// writeCSVField writes one non-null value: "" when empty, quoted (quotes and escapes
// backslash-escaped) when it holds a delimiter, quote or line break.
func writeCSVField(b *strings.Builder, s string) {
	if s == "" {
		b.WriteString(`""`)
		return
	}
	if !strings.ContainsAny(s, ",\"\n\r") {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
}

// splitCSVLine splits one line into fields; a NULL field (empty and unquoted) is nil.
func splitCSVLine(line string) []*string {
	var out []*string
	i := 0
	for {
		var field strings.Builder
		quoted := false
		if i < len(line) && line[i] == '"' {
			quoted = true
			i++
			for i < len(line) {
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line):
					field.WriteByte(line[i+1])
					i += 2
					continue
				case c == '"' && i+1 < len(line) && line[i+1] == '"':
					field.WriteByte('"')
					i += 2
					continue
				case c == '"':
					i++
				default:
					field.WriteByte(c)
					i++
					continue
				}
				break
			}
		}
		for i < len(line) && line[i] != ',' {
			field.WriteByte(line[i])
			i++
		}
		if s := field.String(); s != "" || quoted {
			out = append(out, &s)
		} else {
			out = append(out, nil)
		}
		if i >= len(line) {
			return out
		}
		i++
	}
}

// parseCSVValue converts one field as Spark's UnivocityParser does by default; ok is false for a
// value that does not parse.
func parseCSVValue(s string, t sqltypes.DataType, ctx *Context) (any, bool) {
	switch t.Kind {
	case sqltypes.String:
		return s, true
	case sqltypes.Byte, sqltypes.Short, sqltypes.Integer, sqltypes.Long:
		bits := map[sqltypes.Kind]int{sqltypes.Byte: 8, sqltypes.Short: 16, sqltypes.Integer: 32, sqltypes.Long: 64}[t.Kind]
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, false
		}
		return narrow(n, t.Kind), true
	case sqltypes.Float, sqltypes.Double:
		f, ok := parseJavaDouble(s)
		if !ok {
			return nil, false
		}
		if t.Kind == sqltypes.Float {
			return float32(f), true
		}
		return f, true
	case sqltypes.Boolean:
		switch strings.ToLower(s) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	case sqltypes.Decimal:
		s = strings.ReplaceAll(s, ",", "")
	}
	v, err := castValue(s, sqltypes.StringType, t, false, ctx.loc())
	return v, err == nil && v != nil
}

// parseJavaDouble is java.lang.Double.parseDouble: surrounding whitespace, NaN, Infinity and a
// trailing d/f suffix accepted.
func parseJavaDouble(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	switch strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-") {
	case "NaN":
		if s == "NaN" {
			return math.NaN(), true
		}
		return 0, false
	case "Infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	if strings.ContainsAny(s, "xX_") || strings.HasPrefix(strings.ToLower(s), "inf") || strings.HasPrefix(strings.ToLower(s), "nan") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func bindFromCSV(name string, args []Expr, opts Options) (Expr, error) {
	t, text, err := schemaLiteral(args[1])
	if err != nil {
		return nil, err
	}
	if t.Kind != sqltypes.Struct {
		return nil, sparkerr.Analysis("INVALID_SCHEMA.NON_STRUCT_TYPE", "42K07",
			"The input schema %s is not a valid schema string. The input expression must be a STRUCT type, but got %s.", quoteSQL(text), t.SQL())
	}
	t = asNullableType(t)
	if len(args) == 3 {
		if err := csvOptions(name, args[2]); err != nil {
			return nil, err
		}
	}
	in, err := coerceArgs(name, args[:1], opts, sqltypes.StringType)
	if err != nil {
		return nil, err
	}
	f := strict(name, in, t, func(ctx *Context, a []any) (any, error) {
		fields := splitCSVLine(a[0].(string))
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			if i >= len(fields) || fields[i] == nil {
				continue
			}
			if v, ok := parseCSVValue(*fields[i], f.Type, ctx); ok {
				out[i] = v
			}
		}
		return out, nil
	})
	f.str = callString(name, args[:1])
	return f, nil
}

func bindSchemaOfCSV(name string, args []Expr, opts Options) (Expr, error) {
	call := callString(name, args[:1])
	line, err := constantDocument(call, args[0], "csv")
	if err != nil {
		return nil, err
	}
	if len(args) == 2 {
		if err := csvOptions(name, args[1]); err != nil {
			return nil, err
		}
	}
	if line == "" {
		return nil, sparkerr.Unsupported("schema_of_csv of an empty line")
	}
	var fields []sqltypes.Field
	for i, f := range splitCSVLine(line) {
		t := sqltypes.StringType
		if f != nil {
			t = inferCSVField(*f)
		}
		fields = append(fields, sqltypes.Field{Name: "_c" + strconv.Itoa(i), Type: t, Nullable: true})
	}
	return &renamed{Expr: NewLiteral(typeDDL(sqltypes.StructType(fields...)), sqltypes.StringType), name: call}, nil
}

// inferCSVField is CSVInferSchema.inferField for one value with the default options: INT,
// BIGINT, DOUBLE, DATE (yyyy-MM-dd), TIMESTAMP, BOOLEAN, else STRING.
func inferCSVField(s string) sqltypes.DataType {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return sqltypes.IntegerType
		}
		return sqltypes.LongType
	}
	if _, ok := parseJavaDouble(s); ok {
		return sqltypes.DoubleType
	}
	if len(s) == 10 {
		if _, ok := parseDate(s); ok {
			return sqltypes.DateType
		}
	}
	if _, ok := parseTimestamp(s, nil2utc(), false); ok {
		return sqltypes.TimestampType
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return sqltypes.BooleanType
	}
	return sqltypes.StringType
}
