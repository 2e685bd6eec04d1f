package expr

import (
	"fmt"
	"testing"

	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestOperatorsBasic(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	fields := []sqltypes.Field{{Name: "a", Type: sqltypes.IntegerType, Nullable: true}, {Name: "b", Type: sqltypes.LongType, Nullable: true}}
	b := env.batch(fields, []any{int32(1), nil, int32(3)}, []any{int64(10), int64(20), nil})
	defer b.Release()
	a, bb := col(0, "a", sqltypes.IntegerType), col(1, "b", sqltypes.LongType)
	ansi := Options{ANSI: true}
	cases := []struct {
		name string
		args []Expr
		str  string
		t    string
		want string
	}{
		{"+", []Expr{a, bb}, "(a + b)", "bigint", "[11 <nil> <nil>]"},
		{"+", []Expr{a, lit(1, sqltypes.IntegerType)}, "(a + 1)", "int", "[2 <nil> 4]"},
		{"/", []Expr{a, lit(2, sqltypes.IntegerType)}, "(a / 2)", "double", "[0.5 <nil> 1.5]"},
		{"==", []Expr{a, lit(3, sqltypes.IntegerType)}, "(a = 3)", "boolean", "[false <nil> true]"},
		{"<=>", []Expr{a, lit(nil, sqltypes.NullType)}, "(a <=> NULL)", "boolean", "[false true false]"},
		{"!=", []Expr{a, lit(3, sqltypes.IntegerType)}, "(NOT (a = 3))", "boolean", "[true <nil> false]"},
		{"isnull", []Expr{a}, "(a IS NULL)", "boolean", "[false true false]"},
		{"in", []Expr{a, lit(1, sqltypes.IntegerType), lit(2, sqltypes.IntegerType)}, "(a IN (1, 2))", "boolean", "[true <nil> false]"},
		{"coalesce", []Expr{a, lit(0, sqltypes.IntegerType)}, "coalesce(a, 0)", "int", "[1 0 3]"},
		{"negative", []Expr{a}, "negative(a)", "int", "[-1 <nil> -3]"},
		{"%", []Expr{bb, lit(3, sqltypes.IntegerType)}, "(b % 3)", "bigint", "[1 2 <nil>]"},
		{"=", []Expr{a, lit("1", sqltypes.StringType)}, "(a = 1)", "boolean", "[true <nil> false]"},
	}
	for _, c := range cases {
		e := mustBind(t, c.name, ansi, c.args...)
		if e.String() != c.str || e.Type().String() != c.t {
			t.Errorf("%s: got %q %s, want %q %s", c.name, e.String(), e.Type(), c.str, c.t)
		}
		got, err := env.eval(e, b)
		if err != nil {
			t.Fatalf("%s: %v", c.str, err)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s = %v, want %s", c.str, got, c.want)
		}
	}
}

func TestDivideByZeroAndOverflow(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	b := env.emptyBatch(1)
	defer b.Release()
	one, zero := lit(1, sqltypes.IntegerType), lit(0, sqltypes.IntegerType)
	_, err := env.eval(mustBind(t, "/", Options{ANSI: true}, one, zero), b)
	if e, ok := sparkerr.As(err); !ok || e.Class != "DIVIDE_BY_ZERO" {
		t.Fatalf("ANSI 1/0: %v", err)
	}
	got, err := env.eval(mustBind(t, "/", Options{}, one, zero), b)
	if err != nil || got[0] != nil {
		t.Fatalf("legacy 1/0 = %v, %v", got, err)
	}
	max := lit(int64(9223372036854775807), sqltypes.LongType)
	_, err = env.eval(mustBind(t, "+", Options{ANSI: true}, max, lit(int64(1), sqltypes.LongType)), b)
	if e, ok := sparkerr.As(err); !ok || e.Class != "ARITHMETIC_OVERFLOW" {
		t.Fatalf("ANSI overflow: %v", err)
	}
	got, err = env.eval(mustBind(t, "+", Options{}, max, lit(int64(1), sqltypes.LongType)), b)
	if err != nil || got[0] != int64(-9223372036854775808) {
		t.Fatalf("legacy overflow = %v, %v", got, err)
	}
}
