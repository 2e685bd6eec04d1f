package expr

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/collation"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestDataDriven runs testdata/*: each `eval [legacy] [tz=Zone] [maxbytes=N] [rows=N] [msg]`
// block has one expression per line in a tiny call syntax (name(arg, …), operators as names,
// literals 1 1L 1S 1Y 1.5 1.5F 1.5BD 'str' true null date'…' ts'…' ntz'…' time'…', cast(x, 'type'),
// try_cast(x, 'type'), agg:name(x, …) over array literals are not supported), and prints for each
// line `<column name> : <type> = <value>` or `<column name> : error <CLASS>` (with msg, also the
// error's message). maxbytes sets Context.MaxValueBytes; rows evaluates over a batch of that many
// rows (the value shown is the first row's). testdata/coverage holds function lists, not eval blocks.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Base(filepath.Dir(path)) == "coverage" {
			return // function lists, read by sql/analyzer's TestFunctionCoverage
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			ansi := !d.HasArg("legacy")
			loc := time.UTC
			var tz string
			if d.MaybeScanArgs(t, "tz", &tz) {
				l, err := time.LoadLocation(tz)
				if err != nil {
					t.Fatal(err)
				}
				loc = l
			}
			env := newEnv(t, ansi)
			env.ctx.Location = loc
			d.MaybeScanArgs(t, "maxbytes", &env.ctx.MaxValueBytes)
			rows := 1
			d.MaybeScanArgs(t, "rows", &rows)
			msg := d.HasArg("msg")
			env.ctx.Now = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC).UnixMicro()
			defer env.close()
			opts := Options{ANSI: ansi, TimeZone: loc.String(), TimeType: true}
			var out strings.Builder
			for _, line := range strings.Split(d.Input, "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				out.WriteString(evalLine(t, env, line, opts, rows, msg))
				out.WriteByte('\n')
			}
			return out.String()
		})
	})
}

func evalLine(t *testing.T, env *testEnv, line string, opts Options, rows int, msg bool) string {
	p := &exprParser{s: line, opts: opts}
	e, err := p.parse()
	if err != nil {
		return fmt.Sprintf("bind error %s", errClass(err))
	}
	if p.pos != len(p.s) {
		t.Fatalf("trailing input in %q at %d", line, p.pos)
	}
	b := env.emptyBatch(rows)
	defer b.Release()
	vals, err := env.eval(e, b)
	if err != nil {
		if msg {
			return fmt.Sprintf("%s : error %s: %s", e.String(), errClass(err), errMessage(err))
		}
		return fmt.Sprintf("%s : error %s", e.String(), errClass(err))
	}
	v := "NULL"
	if vals[0] != nil {
		v = valueString(vals[0], e.Type(), env.ctx.loc())
	}
	return fmt.Sprintf("%s : %s = %s", e.String(), e.Type(), v)
}

// errMessage is a Spark error's message (without the class), else the error's text.
func errMessage(err error) string {
	if e, ok := sparkerr.As(err); ok {
		return e.Message
	}
	return err.Error()
}

func errClass(err error) string {
	if e, ok := sparkerr.As(err); ok {
		if e.Class == "" {
			return e.JavaClass
		}
		return e.Class
	}
	return err.Error()
}

// exprParser parses the test call syntax.
type exprParser struct {
	s    string
	pos  int
	opts Options
}

func (p *exprParser) ws() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *exprParser) parse() (Expr, error) {
	p.ws()
	s := p.s[p.pos:]
	switch {
	case strings.HasPrefix(s, "'"):
		return NewLiteral(p.quoted(), sqltypes.StringType), nil
	case strings.HasPrefix(s, "date'"):
		p.pos += 4
		d, _ := parseDate(p.quoted())
		return NewLiteral(d, sqltypes.DateType), nil
	case strings.HasPrefix(s, "ts'"):
		p.pos += 2
		us, _ := parseTimestamp(p.quoted(), time.UTC, false)
		return NewLiteral(us, sqltypes.TimestampType), nil
	case strings.HasPrefix(s, "ntz'"):
		p.pos += 3
		us, _ := parseTimestamp(p.quoted(), time.UTC, true)
		return NewLiteral(us, sqltypes.TimestampNTZType), nil
	case strings.HasPrefix(s, "time'"):
		p.pos += 4
		ns, ok := sqltypes.ParseTime(p.quoted())
		if !ok {
			return nil, fmt.Errorf("bad time literal")
		}
		return NewLiteral(ns, sqltypes.TimeType(sqltypes.MaxTimePrecision)), nil
	}
	// A name or number runs until '(' ',' ')' or space.
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune("(), ", rune(p.s[p.pos])) {
		p.pos++
	}
	tok := p.s[start:p.pos]
	if p.pos < len(p.s) && p.s[p.pos] == '(' {
		p.pos++
		var args []Expr
		var typeArg string
		for {
			p.ws()
			if p.s[p.pos] == ')' {
				p.pos++
				break
			}
			a, err := p.parse()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			p.ws()
			if p.s[p.pos] == ',' {
				p.pos++
			}
		}
		switch tok {
		case "cast", "try_cast", "ansi_cast", "legacy_cast":
			typeArg = args[1].(*Literal).Value.(string)
			to, err := parseTestType(typeArg)
			if err != nil {
				return nil, err
			}
			mode := map[string]plan.CastMode{"cast": plan.CastDefault, "try_cast": plan.CastTry, "ansi_cast": plan.CastANSI, "legacy_cast": plan.CastLegacy}[tok]
			return NewCast(args[0], to, mode, p.opts)
		}
		return Bind(tok, args, p.opts)
	}
	return parseTestLiteral(tok)
}

func (p *exprParser) quoted() string {
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '\'' {
			if p.pos+1 < len(p.s) && p.s[p.pos+1] == '\'' {
				b.WriteByte('\'')
				p.pos += 2
				continue
			}
			p.pos++
			break
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String()
}

func parseTestLiteral(tok string) (Expr, error) {
	switch strings.ToLower(tok) {
	case "null":
		return NewLiteral(nil, sqltypes.NullType), nil
	case "true":
		return NewLiteral(true, sqltypes.BooleanType), nil
	case "false":
		return NewLiteral(false, sqltypes.BooleanType), nil
	case "nan":
		return NewLiteral(nan(), sqltypes.DoubleType), nil
	}
	suffix := func(s string) bool { return strings.HasSuffix(tok, s) }
	num := strings.TrimRight(tok, "LSYFDB")
	switch {
	case suffix("BD"):
		b, s, ok := parseDecimalString(num)
		if !ok {
			return nil, fmt.Errorf("bad decimal %q", tok)
		}
		if s < 0 {
			b, s = rescale(b, s, 0), 0
		}
		p := int32(len(strings.TrimLeft(b.String(), "-")))
		return NewLiteral(bigToNum(b), sqltypes.DecimalType(max(p, s), s)), nil
	case suffix("L"):
		n, err := strconv.ParseInt(num, 10, 64)
		return NewLiteral(n, sqltypes.LongType), err
	case suffix("S"):
		n, err := strconv.ParseInt(num, 10, 16)
		return NewLiteral(n, sqltypes.ShortType), err
	case suffix("Y"):
		n, err := strconv.ParseInt(num, 10, 8)
		return NewLiteral(n, sqltypes.ByteType), err
	case suffix("F"):
		f, err := strconv.ParseFloat(num, 32)
		return NewLiteral(f, sqltypes.FloatType), err
	case strings.ContainsAny(tok, ".eE"):
		f, err := strconv.ParseFloat(tok, 64)
		return NewLiteral(f, sqltypes.DoubleType), err
	}
	n, err := strconv.ParseInt(tok, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("bad literal %q", tok)
	}
	return NewLiteral(n, sqltypes.IntegerType), nil
}

// parseTestType parses simple type names for cast tests.
func parseTestType(s string) (sqltypes.DataType, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if name, ok := strings.CutPrefix(s, "string collate "); ok {
		c, err := collation.Lookup(name)
		if err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.DataType{Kind: sqltypes.String, StringCollation: c.TypeName()}, nil
	}
	switch s {
	case "boolean":
		return sqltypes.BooleanType, nil
	case "tinyint", "byte":
		return sqltypes.ByteType, nil
	case "smallint", "short":
		return sqltypes.ShortType, nil
	case "int", "integer":
		return sqltypes.IntegerType, nil
	case "bigint", "long":
		return sqltypes.LongType, nil
	case "float":
		return sqltypes.FloatType, nil
	case "double":
		return sqltypes.DoubleType, nil
	case "string":
		return sqltypes.StringType, nil
	case "binary":
		return sqltypes.BinaryType, nil
	case "date":
		return sqltypes.DateType, nil
	case "timestamp":
		return sqltypes.TimestampType, nil
	case "timestamp_ntz":
		return sqltypes.TimestampNTZType, nil
	}
	if strings.HasPrefix(s, "decimal(") {
		var p, sc int32
		if _, err := fmt.Sscanf(s, "decimal(%d;%d)", &p, &sc); err != nil {
			return sqltypes.DataType{}, err
		}
		return sqltypes.DecimalType(p, sc), nil
	}
	if strings.HasPrefix(s, "array<") && strings.HasSuffix(s, ">") {
		e, err := parseTestType(s[6 : len(s)-1])
		return sqltypes.ArrayType(e, true), err
	}
	if t, err := parser.ParseDataType(s); err == nil {
		return t, nil // variant, map<…>, struct<…>
	}
	return sqltypes.DataType{}, fmt.Errorf("unknown type %q", s)
}
