package operators

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

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

// firstRows ranks equal a brute-force first row per group (sender order) on random batches of
// interleaved senders, including runs where the skip applies (one sender, groups all known);
// the seed is printed.
func TestFirstRowsMatchesBruteForce(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 31))
	for trial := range 200 {
		var f firstRows
		want := map[uint32]uint64{}
		seen := map[int]uint64{}
		ngroups := 0
		senders := 1 + r.IntN(3)
		newEvery := r.IntN(4) // 0: no group after the first batch's
		for batch := range 1 + r.IntN(20) {
			s := r.IntN(senders)
			groups := make([]uint32, r.IntN(50))
			for i := range groups {
				if ngroups == 0 || (batch == 0 || newEvery > 0) && r.IntN(8*max(1, newEvery)) == 0 {
					groups[i] = uint32(ngroups)
					ngroups++
				} else {
					groups[i] = uint32(r.IntN(ngroups))
				}
				rank := uint64(s)<<40 | (seen[s] + uint64(i))
				if old, ok := want[groups[i]]; !ok || rank < old {
					want[groups[i]] = rank
				}
			}
			seen[s] += uint64(len(groups))
			f.note(s, groups, ngroups)
		}
		for g, rank := range want {
			if f.rank[g] != rank {
				t.Fatalf("seed %d trial %d: group %d rank %x, want %x", seed, trial, g, f.rank[g], rank)
			}
		}
	}
}
