package parser

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestRandomRoundTrip renders random expression trees as SQL text, parses them back and checks
// that the parsed tree equals the generated one. Set WEIR_SQL_SEED to replay a seed.
func TestRandomRoundTrip(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("WEIR_SQL_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (replay with WEIR_SQL_SEED=%d)", seed, seed)
	g := &exprGen{r: rand.New(rand.NewSource(seed))}
	for i := 0; i < 2000; i++ {
		want, text := g.expr(4)
		if g.r.Intn(4) == 0 {
			name := g.ident()
			want = plan.Alias{Child: want, Names: []string{name}}
			text += " AS " + quoteAlways(name)
		}
		got, err := ParseExpression(text)
		if err != nil {
			t.Fatalf("seed %d case %d: parse %q: %v", seed, i, text, err)
		}
		if FormatExpr(got) != FormatExpr(want) {
			t.Fatalf("seed %d case %d: %q\nparsed    %s\ngenerated %s", seed, i, text, FormatExpr(got), FormatExpr(want))
		}
	}
}

type exprGen struct{ r *rand.Rand }

func quoteAlways(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (g *exprGen) ident() string {
	const chars = "abcxyz_019 .`'\"é"
	n := 1 + g.r.Intn(6)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(string([]rune(chars)[g.r.Intn(len([]rune(chars)))]))
	}
	return b.String()
}

var binaryGen = []struct{ name, sql string }{
	{"+", "+"}, {"-", "-"}, {"*", "*"}, {"/", "/"}, {"%", "%"}, {"==", "="}, {"==", "=="},
	{"!=", "<>"}, {"!=", "!="}, {"<", "<"}, {"<=", "<="}, {">", ">"}, {">=", ">="},
	{"<=>", "<=>"}, {"and", "AND"}, {"or", "OR"}, {"&", "&"}, {"|", "|"}, {"^", "^"},
	{"concat", "||"}, {"div", "DIV"},
}

var typeGen = []string{"int", "bigint", "string", "double", "decimal(12,3)", "array<int>",
	"map<string,array<bigint>>", "struct<a:int,b:string>", "date", "timestamp", "boolean"}

func (g *exprGen) literal() (plan.Expr, string) {
	switch g.r.Intn(7) {
	case 0:
		v := g.r.Int31() - g.r.Int31()
		return plan.Lit(v, sqltypes.IntegerType), fmt.Sprint(v)
	case 1:
		v := g.r.Int63() - g.r.Int63()
		return plan.Lit(v, sqltypes.LongType), fmt.Sprintf("%dL", v)
	case 2:
		v := g.r.NormFloat64() * 1e6
		return plan.Lit(v, sqltypes.DoubleType), strconv.FormatFloat(v, 'g', -1, 64) + "D"
	case 3:
		text := fmt.Sprintf("%d.%03d", g.r.Intn(100000), g.r.Intn(1000))
		l, err := parseNumber(text)
		if err != nil {
			panic(err)
		}
		return l, text
	case 4:
		s := g.ident() + "\\'\n"
		return plan.Lit(s, sqltypes.StringType), "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	case 5:
		b := g.r.Intn(2) == 0
		return plan.Lit(b, sqltypes.BooleanType), strings.ToUpper(strconv.FormatBool(b))
	}
	return plan.Lit(nil, sqltypes.NullType), "NULL"
}

func (g *exprGen) column() (plan.Expr, string) {
	n := 1 + g.r.Intn(3)
	parts := make([]string, n)
	quoted := make([]string, n)
	for i := range parts {
		parts[i] = g.ident()
		quoted[i] = quoteAlways(parts[i])
	}
	return plan.ColumnRef{Name: parts}, strings.Join(quoted, ".")
}

func (g *exprGen) list(depth, n int) ([]plan.Expr, string) {
	es := make([]plan.Expr, n)
	ss := make([]string, n)
	for i := range es {
		es[i], ss[i] = g.expr(depth - 1)
	}
	return es, strings.Join(ss, ", ")
}

// expr returns a random expression and SQL text that parses to it.
func (g *exprGen) expr(depth int) (plan.Expr, string) {
	if depth <= 0 {
		if g.r.Intn(2) == 0 {
			return g.literal()
		}
		return g.column()
	}
	switch g.r.Intn(12) {
	case 0, 1, 2:
		op := binaryGen[g.r.Intn(len(binaryGen))]
		l, ls := g.expr(depth - 1)
		r, rs := g.expr(depth - 1)
		return plan.Fn(op.name, l, r), "(" + ls + " " + op.sql + " " + rs + ")"
	case 3:
		x, s := g.expr(depth - 1)
		switch g.r.Intn(4) {
		case 0:
			return plan.Fn("not", x), "(NOT " + s + ")"
		case 1:
			return plan.Fn("negative", x), "(-(" + s + "))"
		case 2:
			return plan.Fn("isnull", x), "(" + s + " IS NULL)"
		}
		return plan.Fn("isnotnull", x), "(" + s + " IS NOT NULL)"
	case 4:
		x, s := g.expr(depth - 1)
		items, is := g.list(depth, 1+g.r.Intn(3))
		return plan.Call{Name: "in", Args: append([]plan.Expr{x}, items...)}, "(" + s + " IN (" + is + "))"
	case 5:
		n := 1 + g.r.Intn(2)
		var args []plan.Expr
		var b strings.Builder
		b.WriteString("CASE")
		for i := 0; i < n; i++ {
			c, cs := g.expr(depth - 1)
			v, vs := g.expr(depth - 1)
			args = append(args, c, v)
			fmt.Fprintf(&b, " WHEN %s THEN %s", cs, vs)
		}
		if g.r.Intn(2) == 0 {
			e, es := g.expr(depth - 1)
			args = append(args, e)
			b.WriteString(" ELSE " + es)
		}
		return plan.Call{Name: "when", Args: args}, b.String() + " END"
	case 6:
		x, s := g.expr(depth - 1)
		ts := typeGen[g.r.Intn(len(typeGen))]
		to, err := ParseDataType(ts)
		if err != nil {
			panic(err)
		}
		if g.r.Intn(2) == 0 {
			return plan.Cast{Child: x, To: to, Mode: plan.CastTry}, "TRY_CAST(" + s + " AS " + ts + ")"
		}
		return plan.Cast{Child: x, To: to}, "CAST(" + s + " AS " + ts + ")"
	case 7:
		name := "fn_" + strconv.Itoa(g.r.Intn(100))
		args, as := g.list(depth, g.r.Intn(3))
		c := plan.Call{Name: name, Args: args, Distinct: g.r.Intn(5) == 0}
		if c.Distinct {
			as = "DISTINCT " + as
		}
		return c, name + "(" + as + ")"
	case 8:
		x, s := g.expr(depth - 1)
		i, is := g.expr(depth - 1)
		return plan.ExtractValue{Child: x, Extraction: i}, "(" + s + ")[" + is + "]"
	case 9:
		x, s := g.expr(depth - 1)
		lo, los := g.expr(depth - 1)
		hi, his := g.expr(depth - 1)
		return plan.Fn("between", x, lo, hi),
			"(" + s + " BETWEEN (" + los + ") AND (" + his + "))"
	case 10:
		f, fs := g.expr(depth - 1)
		p, ps := g.expr(depth - 1)
		o, os := g.expr(depth - 1)
		call := plan.Call{Name: "fn_w", Args: []plan.Expr{f}}
		desc := g.r.Intn(2) == 0
		w := plan.Window{Func: call, PartitionBy: []plan.Expr{p},
			OrderBy: []plan.SortOrder{{Child: o, Descending: desc, NullsFirst: !desc}}}
		dir := "ASC"
		if desc {
			dir = "DESC"
		}
		return w, "fn_w(" + fs + ") OVER (PARTITION BY " + ps + " ORDER BY " + os + " " + dir + ")"
	}
	return g.literal()
}
