package rate

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sources/sourcetest"
	"github.com/weirhq/weir/sparkerr"
)

func TestRateMicroBatchBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src, err := connectors.OpenStream(t.Context(), "rate-micro-batch", sources.StreamEnv{Mem: mem, TimeZone: "UTC", DefaultPartitions: 4},
		map[string]string{"rowsPerBatch": "5", "numPartitions": "2", "startTimestamp": "1000", "advanceMillisPerBatch": "100"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Partitions() != 2 || src.Description() != "RatePerMicroBatchStream[rowsPerBatch=5, numPartitions=2, startTimestamp=1000, advanceMsPerBatch=100]" {
		t.Fatalf("partitions %d, description %q", src.Partitions(), src.Description())
	}
	str := sourcetest.OffsetString(t)
	start := str(src.Initial(t.Context()))
	if start != `{"offset":0,"timestamp":1000}` {
		t.Fatalf("initial %s", start)
	}
	// Each Latest is one batch further: rowsPerBatch rows, advanceMillisPerBatch later.
	wantEnds := []string{`{"offset":5,"timestamp":1100}`, `{"offset":10,"timestamp":1200}`}
	wantVals := [][2][]int64{{{0, 2, 4}, {1, 3}}, {{5, 7, 9}, {6, 8}}}
	for b, wantEnd := range wantEnds {
		end := str(src.Latest(t.Context()))
		if end != wantEnd {
			t.Fatalf("batch %d end %s", b, end)
		}
		for p := range 2 {
			vals, ms := rateRows(t, src, p, start, end, 0)
			if !slices.Equal(vals, wantVals[b][p]) {
				t.Fatalf("batch %d partition %d values %v", b, p, vals)
			}
			for _, m := range ms {
				if m != 1000+int64(b)*100 {
					t.Fatalf("batch %d partition %d timestamps %v", b, p, ms)
				}
			}
		}
		start = end
	}
	// LatestFrom is Spark's latestOffset(start): one batch after the given start, every time.
	rs := src.(sources.StartRelative)
	for range 2 {
		if got := str(rs.LatestFrom(t.Context(), sources.Offset(`{"offset":40,"timestamp":9000}`))); got != `{"offset":45,"timestamp":9100}` {
			t.Fatalf("LatestFrom %s", got)
		}
	}
	// Replaying a later range (recovery) moves Latest past it.
	rateRows(t, src, 0, `{"offset":20,"timestamp":1400}`, `{"offset":25,"timestamp":1500}`, 0)
	if got := str(src.Latest(t.Context())); got != `{"offset":30,"timestamp":1600}` {
		t.Fatalf("latest after replay %s", got)
	}
	if vals, _ := rateRows(t, src, 1, `{"offset":25,"timestamp":1500}`, `{"offset":25,"timestamp":1500}`, 0); len(vals) != 0 {
		t.Fatalf("empty batch %v", vals)
	}
}

func TestRateMicroBatchOptionValidation(t *testing.T) {
	for _, tc := range []struct {
		opts       map[string]string
		schema     string
		class, msg string
	}{
		{nil, "", sparkerr.IllegalArgumentException, "Invalid value '0'. The option 'rowsPerBatch' must be positive"},
		{map[string]string{"rowsPerBatch": "-3"}, "", sparkerr.IllegalArgumentException, "Invalid value '-3'. The option 'rowsPerBatch' must be positive"},
		{map[string]string{"rowsPerBatch": "x"}, "", sparkerr.NumberFormatException, `For input string: "x"`},
		{map[string]string{"rowsPerBatch": "1", "numPartitions": "-1"}, "", sparkerr.IllegalArgumentException, "Invalid value '-1'. The option 'numPartitions' must be positive"},
		{map[string]string{"rowsPerBatch": "1", "startTimestamp": "-1"}, "", sparkerr.IllegalArgumentException, "Invalid value '-1'. The option 'startTimestamp' must be non-negative"},
		{map[string]string{"rowsPerBatch": "1", "advanceMillisPerBatch": "-1"}, "", sparkerr.IllegalArgumentException, "Invalid value '-1'. The option 'advanceMillisPerBatch' must be non-negative"},
		{map[string]string{"rowsPerBatch": "1"}, "value LONG", sparkerr.UnsupportedOperation, "RatePerMicroBatchProvider source does not support user-specified schema."},
	} {
		_, err := connectors.StreamSchema("rate-micro-batch", tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("schema ", tc.opts), err, tc.class, tc.msg)
		_, err = connectors.OpenStream(t.Context(), "rate-micro-batch", sources.StreamEnv{}, tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("open ", tc.opts), err, tc.class, tc.msg)
	}
	schema, err := connectors.StreamSchema("rate-micro-batch", map[string]string{"rowsperbatch": "10"}, "")
	if err != nil || schema.TreeString() != rateSchema.TreeString() {
		t.Fatalf("schema %v %v", schema, err)
	}
}

// Under Trigger.AvailableNow the rate-micro-batch source offers one batch after where the query
// starts, then nothing more (Spark's RatePerMicroBatchStream).
func TestRateMicroBatchAvailableNow(t *testing.T) {
	src, err := connectors.OpenStream(t.Context(), "rate-micro-batch", sources.StreamEnv{TimeZone: "UTC", DefaultPartitions: 1},
		map[string]string{"rowsPerBatch": "5", "startTimestamp": "1000", "advanceMillisPerBatch": "100"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	str := sourcetest.OffsetString(t)
	start := sources.Offset(`{"offset":10,"timestamp":1200}`)
	target := str(src.(sources.AvailableNow).PrepareAvailableNow(t.Context(), start))
	if target != `{"offset":15,"timestamp":1300}` {
		t.Fatalf("target %s", target)
	}
	for _, from := range []sources.Offset{start, sources.Offset(target)} {
		if got := str(src.(sources.StartRelative).LatestFrom(t.Context(), from)); got != target {
			t.Fatalf("LatestFrom(%s) = %s, want the target %s", from, got, target)
		}
	}
}
