package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/weirhq/weir/connect/protoconv"
	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	"google.golang.org/protobuf/proto"
)

// BenchmarkCompile runs large expressions through the whole path (SQL text or Spark Connect
// protobuf → plan → analysis → planning → evaluation over range(1000)): SELECT 1 + 1 + … + 1,
// SELECT true AND … AND true, and df.filter(col("id").isin(0, …, 199999)).count() as PySpark
// sends it (an UnresolvedFunction "in" over 200 000 literals, marshalled and unmarshalled).
func BenchmarkCompile(b *testing.B) {
	sqlQuery := func(text string) func(b *testing.B) plan.Relation {
		return func(b *testing.B) plan.Relation {
			cmd, err := parser.ParseStatement(text)
			if err != nil {
				b.Fatal(err)
			}
			return cmd.(plan.Query).Input
		}
	}
	cases := []struct {
		name string
		rel  func(b *testing.B) plan.Relation
	}{
		{"plus-2000", sqlQuery("SELECT " + strings.Repeat("1 + ", 1999) + "1 FROM range(1000)")},
		{"plus-50000", sqlQuery("SELECT " + strings.Repeat("1 + ", 49999) + "1 FROM range(1000)")},
		{"and-1000", sqlQuery("SELECT " + strings.Repeat("id >= 0 AND ", 999) + "true FROM range(1000)")},
		{"and-50000", sqlQuery("SELECT " + strings.Repeat("id >= 0 AND ", 49999) + "true FROM range(1000)")},
		{"isin-200000", isinCount(200_000)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			s := engine.NewSession()
			for b.Loop() {
				r, err := s.Execute(context.Background(), c.rel(b))
				if err != nil {
					b.Fatal(err)
				}
				drain(b, r)
			}
		})
	}
}

// isinCount is spark.range(1000).filter(col("id").isin(0, …, n-1)).count() as a Connect plan
// whose filter condition went through protobuf encoding and protoconv.
func isinCount(n int) func(b *testing.B) plan.Relation {
	args := []*pb.Expression{{ExprType: &pb.Expression_UnresolvedAttribute_{
		UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: "id"}}}}
	for i := 0; i < n; i++ {
		args = append(args, &pb.Expression{ExprType: &pb.Expression_Literal_{
			Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Long{Long: int64(i)}}}})
	}
	cond := &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{
		UnresolvedFunction: &pb.Expression_UnresolvedFunction{FunctionName: "in", Arguments: args}}}
	wire, err := proto.Marshal(cond)
	if err != nil {
		panic(err)
	}
	return func(b *testing.B) plan.Relation {
		var got pb.Expression
		if err := proto.Unmarshal(wire, &got); err != nil {
			b.Fatal(err)
		}
		c, err := protoconv.Expression(&got)
		if err != nil {
			b.Fatal(err)
		}
		return &plan.Aggregate{
			Input: &plan.Filter{Input: &plan.Range{Start: 0, End: 1000, Step: 1}, Condition: c},
			Aggs:  []plan.Expr{plan.Fn("count", long(1))},
		}
	}
}
