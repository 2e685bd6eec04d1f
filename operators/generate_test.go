package operators

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// collectRows renders every emitted row as "+ id, col" / "- id, col".
type collectRows struct {
	types []sqltypes.DataType
	lines []string
}

func (c *collectRows) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	ret := flow.Retracted(rec)
	for i := 0; i < int(rec.NumRows()); i++ {
		sign := "+"
		if ret.Value(i) {
			sign = "-"
		}
		vals := make([]string, len(c.types))
		for k, t := range c.types {
			vals[k] = fmt.Sprint(expr.ValueAt(rec.Column(k+flow.UserOffset), i, t))
		}
		c.lines = append(c.lines, sign+" "+strings.Join(vals, ", "))
	}
	return nil
}

// TestGenerateRetractions checks that Generate repeats each input row per generated row with its
// retraction flag, so a retracted input row retracts every row it generated, and that the outer
// form emits a NULL row for an empty array.
func TestGenerateRetractions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arrT := sqltypes.ArrayType(sqltypes.LongType, true)
	in := sqltypes.Schema{{Name: "id", Type: sqltypes.IntegerType}, {Name: "arr", Type: arrT, Nullable: true}}
	ids := expr.BuildArray(mem, sqltypes.IntegerType, "UTC", []any{int32(1), int32(2), int32(1), int32(3)})
	defer ids.Release()
	arrs := expr.BuildArray(mem, arrT, "UTC", []any{[]any{int64(10), int64(11)}, []any{}, []any{int64(10), int64(11)}, nil})
	defer arrs.Release()
	ret := expr.BuildArray(mem, sqltypes.BooleanType, "UTC", []any{false, false, true, false})
	defer ret.Release()
	rec := flow.NewDataBatch(mem, flow.EventSchema(sqltypes.ToArrowSchema(in, "UTC")), []arrow.Array{ids, arrs}, ret)
	defer rec.Release()

	for _, c := range []struct {
		name string
		want []string
	}{
		{"explode", []string{"+ 1, 10", "+ 1, 11", "- 1, 10", "- 1, 11"}},
		{"explode_outer", []string{"+ 1, 10", "+ 1, 11", "+ 2, <nil>", "- 1, 10", "- 1, 11", "+ 3, <nil>"}},
	} {
		g, err := expr.BindGenerator(c.name, []expr.Expr{&expr.Column{Index: 1, Name: "arr", T: arrT, Null: true}}, expr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := append(append(sqltypes.Schema{}, in...), g.Output()...)
		env := flow.Env{Mem: mem, Partitions: 1, OutSchema: flow.EventSchema(sqltypes.ToArrowSchema(out, "UTC"))}
		op, err := Generate(nil, g)(env)
		if err != nil {
			t.Fatal(err)
		}
		got := &collectRows{types: []sqltypes.DataType{sqltypes.IntegerType, sqltypes.LongType}}
		// Print id and the generated column only.
		sink := emitterFunc(func(ctx context.Context, r arrow.RecordBatch) error {
			defer r.Release()
			cols := []arrow.Array{r.Column(flow.UserOffset), r.Column(flow.UserOffset + 2)}
			proj := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{r.Schema().Field(0), r.Schema().Field(1),
				r.Schema().Field(flow.UserOffset), r.Schema().Field(flow.UserOffset + 2)}, nil),
				[]arrow.Array{r.Column(0), r.Column(1), cols[0], cols[1]}, r.NumRows())
			return got.Emit(ctx, proj)
		})
		if err := op.Process(context.Background(), 0, rec, sink); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got.lines, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%s: got %q, want %q", c.name, got.lines, c.want)
		}
	}
}

type emitterFunc func(ctx context.Context, rec arrow.RecordBatch) error

func (f emitterFunc) Emit(ctx context.Context, rec arrow.RecordBatch) error { return f(ctx, rec) }
