package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestRangeTerms(t *testing.T) {
	long := &Column{Index: 0, Name: "a", T: sqltypes.LongType, Null: true}
	dbl := &Column{Index: 1, Name: "b", T: sqltypes.DoubleType, Null: true}
	str := &Column{Index: 2, Name: "s", T: sqltypes.StringType, Null: true}
	opts := Options{TimeZone: "UTC"}
	bind := func(name string, args ...Expr) Expr {
		e, err := Bind(name, args, opts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	five := NewLiteral(int64(5), sqltypes.LongType)
	strAsLong, err := NewCast(str, sqltypes.LongType, plan.CastTry, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		e    Expr
		want []string // column:op per term, in order
	}{
		{"column op literal", bind("<", long, five), []string{"0:<"}},
		{"literal op column flips", bind("<", five, long), []string{"0:>"}},
		{"int literal cast to long", bind(">=", long, NewLiteral(int32(3), sqltypes.IntegerType)), []string{"0:>="}},
		{"column cast to a wider decimal", bind("=", long, NewLiteral(decimal128.FromI64(15), sqltypes.DecimalType(2, 1))), []string{"0:="}},
		{"and splits", bind("and", bind(">", long, five), bind("isnotnull", str)), []string{"0:>", "2:isnotnull"}},
		{"in drops nulls", bind("in", long, five, NewLiteral(nil, sqltypes.LongType)), []string{"0:in"}},
		{"string comparison", bind("=", str, NewLiteral("x", sqltypes.StringType)), []string{"2:="}},
		{"doubles are left out", bind("<", dbl, NewLiteral(1.5, sqltypes.DoubleType)), nil},
		{"or is left out", bind("or", bind(">", long, five), bind("<", long, five)), nil},
		{"not is left out", bind("not", bind(">", long, five)), nil},
		{"arithmetic is left out", bind("<", bind("+", long, five), five), nil},
		{"two columns are left out", bind("<", long, long), nil},
		{"null literal is left out", bind("=", long, NewLiteral(nil, sqltypes.LongType)), nil},
		{"a string column cast to long is left out", bind("=", strAsLong, five), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, term := range RangeTerms(c.e) {
				got = append(got, string(rune('0'+term.Column))+":"+term.Op)
			}
			if len(got) != len(c.want) {
				t.Fatalf("terms %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("terms %v, want %v", got, c.want)
				}
			}
		})
	}
}
