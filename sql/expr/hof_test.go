package expr

import (
	"fmt"
	"testing"

	sqltypes "github.com/weirhq/weir/sql/types"
)

// bindHOF binds name(args…, one lambda per body builder) the way the analyzer does.
func bindHOF(t *testing.T, name string, args []Expr, params [][]string, bodies ...func(p []*LambdaVariable) Expr) Expr {
	t.Helper()
	var ls []Lambda
	for i, mk := range bodies {
		ps, err := LambdaParams(name, args, i, params[i])
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, Lambda{Params: ps, Body: mk(ps)})
	}
	e, err := BindHigherOrder(name, args, ls, Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestHigherOrderFunctions(t *testing.T) {
	env := newEnv(t, true)
	defer env.close()
	at := sqltypes.ArrayType(sqltypes.IntegerType, true)
	fields := []sqltypes.Field{{Name: "arr", Type: at, Nullable: true}, {Name: "k", Type: sqltypes.IntegerType, Nullable: true}}
	b := env.batch(fields,
		[]any{[]any{int32(1), int32(2), int32(3)}, nil, []any{}, []any{int32(5), nil}},
		[]any{int32(10), int32(20), int32(30), int32(40)})
	defer b.Release()
	arr, k := col(0, "arr", at), col(1, "k", sqltypes.IntegerType)
	one := NewLiteral(int32(1), sqltypes.IntegerType)
	ansi := Options{ANSI: true}
	cases := []struct {
		e    Expr
		str  string
		want string
	}{
		{bindHOF(t, "transform", []Expr{arr}, [][]string{{"x_1"}}, func(p []*LambdaVariable) Expr {
			return mustBind(t, "+", ansi, p[0], k)
		}), "transform(arr, lambdafunction((namedlambdavariable() + k), namedlambdavariable()))", "[[11 12 13] <nil> [] [45 <nil>]]"},
		{bindHOF(t, "transform", []Expr{arr}, [][]string{{"x", "i"}}, func(p []*LambdaVariable) Expr {
			return mustBind(t, "*", ansi, p[0], p[1])
		}), "transform(arr, lambdafunction((namedlambdavariable() * namedlambdavariable()), namedlambdavariable(), namedlambdavariable()))", "[[0 2 6] <nil> [] [0 <nil>]]"},
		{bindHOF(t, "filter", []Expr{arr}, [][]string{{"x"}}, func(p []*LambdaVariable) Expr {
			return mustBind(t, ">", ansi, p[0], one)
		}), "filter(arr, lambdafunction((namedlambdavariable() > 1), namedlambdavariable()))", "[[2 3] <nil> [] [5]]"},
		{bindHOF(t, "exists", []Expr{arr}, [][]string{{"x"}}, func(p []*LambdaVariable) Expr {
			return mustBind(t, "==", ansi, p[0], NewLiteral(int32(3), sqltypes.IntegerType))
		}), "exists(arr, lambdafunction((namedlambdavariable() = 3), namedlambdavariable()))", "[true <nil> false <nil>]"},
		{bindHOF(t, "aggregate", []Expr{arr, NewLiteral(int64(0), sqltypes.LongType)}, [][]string{{"acc", "x"}, {"acc"}},
			func(p []*LambdaVariable) Expr { return mustBind(t, "+", ansi, p[0], p[1]) },
			func(p []*LambdaVariable) Expr {
				return mustBind(t, "*", ansi, p[0], NewLiteral(int64(10), sqltypes.LongType))
			}),
			"aggregate(arr, 0, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), lambdafunction((namedlambdavariable() * 10), namedlambdavariable()))", "[60 <nil> 0 <nil>]"},
		{bindHOF(t, "transform", []Expr{arr}, [][]string{{"x"}}, func(p []*LambdaVariable) Expr {
			inner := bindHOF(t, "transform", []Expr{arr}, [][]string{{"y"}}, func(q []*LambdaVariable) Expr {
				return mustBind(t, "+", ansi, p[0], q[0])
			})
			return mustBind(t, "size", ansi, inner)
		}), "transform(arr, lambdafunction(size(transform(arr, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable()))), namedlambdavariable()))", "[[3 3 3] <nil> [] [2 2]]"},
	}
	for _, c := range cases {
		got, err := env.eval(c.e, b)
		if err != nil {
			t.Fatalf("%s: %v", c.str, err)
		}
		if c.e.String() != c.str || fmt.Sprint(got) != c.want {
			t.Errorf("%s = %v, want %s = %s", c.e, got, c.str, c.want)
		}
	}
	m := mustBind(t, "map", ansi, NewLiteral("a", sqltypes.StringType), one, NewLiteral("b", sqltypes.StringType), NewLiteral(int32(2), sqltypes.IntegerType))
	mf := bindHOF(t, "map_filter", []Expr{m}, [][]string{{"k", "v"}}, func(p []*LambdaVariable) Expr {
		return mustBind(t, ">", ansi, p[1], one)
	})
	got, err := env.eval(mf, b)
	if err != nil {
		t.Fatal(err)
	}
	if s := valueString(got[0], mf.Type(), env.ctx.loc()); s != "{b -> 2}" {
		t.Fatalf("map_filter = %s", s)
	}
}
