package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func benchBatch(n int) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		b.Append(int64(i % 10000))
	}
	a := b.NewArray()
	b.Release()
	schema := sqltypes.ToArrowSchema(sqltypes.Schema{{Name: "price", Type: sqltypes.LongType}}, "UTC")
	rb := array.NewRecordBatch(schema, []arrow.Array{a}, int64(n))
	a.Release()
	return rb
}

func benchExpr(b *testing.B, e Expr) {
	batch := benchBatch(8192)
	defer batch.Release()
	ctx := &Context{Mem: memory.DefaultAllocator}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := e.Eval(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.N)*8192/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkDecimalProjection is Nexmark q1's price * 0.908.
func BenchmarkDecimalProjection(b *testing.B) {
	price := &Column{Index: 0, Name: "price", T: sqltypes.LongType}
	rate := NewLiteral("0.908", sqltypes.DecimalType(3, 3))
	e, err := Bind("*", []Expr{price, rate}, Options{ANSI: true})
	if err != nil {
		b.Fatal(err)
	}
	benchExpr(b, e)
}

// BenchmarkLongFilter is price > 5000.
func BenchmarkLongFilter(b *testing.B) {
	price := &Column{Index: 0, Name: "price", T: sqltypes.LongType}
	e, err := Bind(">", []Expr{price, NewLiteral(int64(5000), sqltypes.LongType)}, Options{ANSI: true})
	if err != nil {
		b.Fatal(err)
	}
	benchExpr(b, e)
}
