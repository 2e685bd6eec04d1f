package operators

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// TestBatchAggregateGroupOrder checks that a batch aggregate emits its groups in the order of
// their first rows read sender by sender, whatever order the senders' batches arrived in:
// sender 1's batch first, then sender 0's, still puts sender 0's groups first.
func TestBatchAggregateGroupOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}
	k := &expr.Column{Index: 0, Name: "k", T: sqltypes.LongType, Null: true}
	sum, err := expr.BindAggregate("sum", []expr.Expr{k}, false, expr.Options{ANSI: true})
	if err != nil {
		t.Fatal(err)
	}
	out := sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}, {Name: "sum", Type: sum.Type(), Nullable: true}}
	batch := func(vals ...int64) arrow.RecordBatch {
		anys := make([]any, len(vals))
		for i, v := range vals {
			anys[i] = v
		}
		col := expr.BuildArray(mem, sqltypes.LongType, "UTC", anys)
		defer col.Release()
		return flow.NewDataBatch(mem, eventSchema(in), []arrow.Array{col}, nil)
	}
	for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			op, err := HashAggregate(&expr.Context{Mem: mem, ANSI: true}, AggregateSpec{KeyCols: []int{0},
				KeyTypes: []sqltypes.DataType{sqltypes.LongType}, Aggs: []expr.AggFunc{sum}, TZ: "UTC"})(
				flow.Env{Mem: mem, Partitions: 1, OutSchema: eventSchema(out)})
			if err != nil {
				t.Fatal(err)
			}
			sa := op.(flow.SenderAware)
			// sender s's rows: sender 0 has groups 5, 3; sender 1 has 3, 7, 1; sender 2 has 9, 5.
			rows := [][]int64{{5, 3, 5}, {3, 7, 1}, {9, 5}}
			ctx := context.Background()
			for _, s := range order {
				rec := batch(rows[s]...)
				err := sa.ProcessFrom(ctx, 0, s, rec, nil)
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
			}
			got := &collectRows{types: []sqltypes.DataType{sqltypes.LongType, sum.Type()}}
			if err := op.(flow.EndOfDataHandler).EndOfData(ctx, got); err != nil {
				t.Fatal(err)
			}
			want := "[+ 5, 15 + 3, 6 + 7, 7 + 1, 1 + 9, 9]"
			if fmt.Sprint(got.lines) != want {
				t.Fatalf("groups %v, want %s", got.lines, want)
			}
			if c, ok := op.(flow.Closer); ok {
				c.Close()
			}
		})
	}
}
