package rate

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestEpochSourceRunsRateInAFlowJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		mock := clock.NewMock()
		src, err := connectors.OpenStream(t.Context(), "rate", sources.StreamEnv{Mem: mem, Clock: mock, TimeZone: "UTC"},
			map[string]string{"rowsPerSecond": "10", "numPartitions": "2"}, "")
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		e := sources.NewEpochSource(src, false)
		node := &flow.Node{Name: "rate", Parallelism: 2, Source: e,
			Schema: flow.EventSchema(sqltypes.ToArrowSchema(src.Schema(), "UTC"))}
		job, err := flow.NewLocalRunner(flow.WithAllocator(mem)).Start(t.Context(), &flow.Graph{Output: node}, flow.JobOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer job.Close()
		mock.Add(2 * time.Second)
		end, err := src.Latest(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		e.Next(sources.Epoch{ID: 0, Start: sources.LongOffset(0), End: end})
		e.Finish()
		var vals []int64
		barriers := 0
		for {
			rec, err := job.Next(t.Context())
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				break
			}
			if m, ok, _ := flow.MarkerOf(rec); ok {
				if m.Kind != flow.MarkerBarrier || m.Epoch != 0 {
					t.Fatalf("marker %v", m)
				}
				barriers++
			} else {
				vals = append(vals, rec.Column(flow.UserOffset+1).(*array.Int64).Int64Values()...)
			}
			rec.Release()
		}
		slices.Sort(vals)
		if barriers != 2 || len(vals) != 20 || vals[0] != 0 || vals[19] != 19 || e.Rows(0) != 20 {
			t.Fatalf("barriers %d, values %v, rows %d", barriers, vals, e.Rows(0))
		}
	})
}

// typeCheck records the user column types of the data batches it gets.
type typeCheck struct{ types []string }

func (c *typeCheck) Emit(_ context.Context, rec arrow.RecordBatch) error {
	defer rec.Release()
	if _, ok, _ := flow.MarkerOf(rec); !ok {
		c.types = append(c.types, rec.Column(flow.UserOffset).DataType().String())
	}
	return nil
}

func TestEpochSourceRelabelsTimestampZone(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	src, err := connectors.OpenStream(t.Context(), "rate-micro-batch", sources.StreamEnv{Mem: mem, Clock: mock},
		map[string]string{"rowsPerBatch": "3", "numPartitions": "1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e := sources.NewEpochSource(src, false)
	start, _ := src.Initial(t.Context())
	end, _ := src.Latest(t.Context())
	e.Next(sources.Epoch{ID: 7, Start: start, End: end})
	e.Finish()
	out := flow.EventSchema(sqltypes.ToArrowSchema(src.Schema(), "Europe/Paris"))
	c := &typeCheck{}
	if err := e.Run(t.Context(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: out}, c); err != nil {
		t.Fatal(err)
	}
	if len(c.types) != 1 || c.types[0] != "timestamp[us, tz=Europe/Paris]" || e.Rows(7) != 3 {
		t.Fatalf("types %v rows %d", c.types, e.Rows(7))
	}
	// A column of another type is an internal error, not a panic.
	bad := flow.EventSchema(arrow.NewSchema([]arrow.Field{{Name: "timestamp", Type: arrow.BinaryTypes.String}, {Name: "value", Type: arrow.PrimitiveTypes.Int64}}, nil))
	e2 := sources.NewEpochSource(src, false)
	e2.Next(sources.Epoch{ID: 0, Start: start, End: end})
	err = e2.Run(t.Context(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: bad}, c)
	if se, ok := sparkerr.As(err); !ok || se.Class != "INTERNAL_ERROR" {
		t.Fatalf("mismatched column type: %v", err)
	}
}

func TestEpochSourceRejectsContinuousMicroBatchOnly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src, err := connectors.OpenStream(t.Context(), "rate-micro-batch", sources.StreamEnv{Mem: mem}, map[string]string{"rowsPerBatch": "1", "numPartitions": "1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e := sources.NewEpochSource(src, true)
	err = e.Run(t.Context(), flow.Env{Mem: mem, Partition: 0, Partitions: 1, OutSchema: flow.EventSchema(sqltypes.ToArrowSchema(src.Schema(), "UTC"))}, &typeCheck{})
	if se, ok := sparkerr.As(err); !ok || se.JavaClass != sparkerr.UnsupportedOperation || !strings.Contains(se.Message, "does not support continuous processing") {
		t.Fatalf("continuous rate-micro-batch: %v", err)
	}
}
