package rate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sources/sourcetest"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// memStore is an in-memory MetadataStore.
type memStore struct {
	mu   sync.Mutex
	data []byte
	puts int
}

func (m *memStore) Get() ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data, m.data != nil, nil
}

func (m *memStore) Put(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.data = slices.Clone(b)
	m.puts++
	return nil
}

// rateRows reads partition p's (start, end] of a (timestamp, value) source: values and
// timestamps in ms relative to base.
func rateRows(t *testing.T, src sources.StreamSource, p int, start, end string, base int64) (vals, ms []int64) {
	t.Helper()
	err := src.Read(context.Background(), p, sources.Offset(start), sources.Offset(end), func(rec arrow.RecordBatch) error {
		defer rec.Release()
		if !arrow.TypeEqual(rec.Column(0).DataType(), &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}) {
			return fmt.Errorf("timestamp type %s", rec.Column(0).DataType())
		}
		for i, ts := range rec.Column(0).(*array.Timestamp).Values() {
			if int64(ts)%1000 != 0 {
				return fmt.Errorf("timestamp %d is not whole milliseconds", ts)
			}
			ms = append(ms, int64(ts)/1000-base)
			vals = append(vals, rec.Column(1).(*array.Int64).Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read p%d (%s, %s]: %v", p, start, end, err)
	}
	return vals, ms
}

// offsetString returns a checker that fails t on an error and renders the offset.
func openRateForTest(t *testing.T, mem memory.Allocator, mock *clock.Mock, store sources.MetadataStore, opts map[string]string) sources.StreamSource {
	t.Helper()
	src, err := connectors.OpenStream(t.Context(), "rate", sources.StreamEnv{Mem: mem, Clock: mock, DefaultPartitions: 3, TimeZone: "UTC", Metadata: store}, opts, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func TestRateValuesAndTimestamps(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(1_000_000))
	src := openRateForTest(t, mem, mock, nil, map[string]string{"rowsPerSecond": "10"})
	if src.Partitions() != 3 || src.Description() != "RateStreamV2[rowsPerSecond=10, rampUpTimeSeconds=0, numPartitions=default" {
		t.Fatalf("partitions %d, description %q", src.Partitions(), src.Description())
	}
	if got := sourcetest.OffsetString(t)(src.Initial(t.Context())); got != "0" {
		t.Fatalf("initial %s", got)
	}
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "0" {
		t.Fatalf("latest at creation %s", got)
	}
	mock.Add(2500 * time.Millisecond)
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "2500" {
		t.Fatalf("latest after 2.5s %s", got)
	}
	// (0, 2000]: values [0, 20), 100 ms apart; partition p gets p, p+3, ...
	want := [][]int64{{0, 3, 6, 9, 12, 15, 18}, {1, 4, 7, 10, 13, 16, 19}, {2, 5, 8, 11, 14, 17}}
	for p := range 3 {
		vals, ms := rateRows(t, src, p, "0", "2000", 1_000_000)
		if !slices.Equal(vals, want[p]) {
			t.Fatalf("partition %d values %v", p, vals)
		}
		for i, v := range vals {
			if ms[i] != v*100 {
				t.Fatalf("partition %d value %d at +%dms", p, v, ms[i])
			}
		}
	}
	// (2000, 3000]: values [20, 30) from second 2 on.
	vals, ms := rateRows(t, src, 1, "2000", "3000", 1_000_000)
	if !slices.Equal(vals, []int64{21, 24, 27}) || !slices.Equal(ms, []int64{2100, 2400, 2700}) {
		t.Fatalf("second 3: %v %v", vals, ms)
	}
	// An empty range yields nothing.
	if vals, _ := rateRows(t, src, 0, "2000", "2000", 0); len(vals) != 0 {
		t.Fatalf("empty range: %v", vals)
	}
	// The latest offset never moves back (reading (2000, 3000] moved it to 3000, like a replayed
	// range after a restart), and reading further moves it forward.
	mock.Set(time.UnixMilli(900_000))
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "3000" {
		t.Fatalf("latest after the clock went back %s", got)
	}
	rateRows(t, src, 0, "2000", "9000", 0)
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "9000" {
		t.Fatalf("latest after reading to 9: %s", got)
	}
	// A backwards range is an internal error.
	if err := src.Read(t.Context(), 0, sources.Offset("3000"), sources.Offset("2000"), func(r arrow.RecordBatch) error { r.Release(); return nil }); err == nil {
		t.Fatal("backwards range read")
	}
}

func TestRateSpreadsUnevenRowsAndRampsUp(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(5_000))
	src := openRateForTest(t, mem, mock, nil, map[string]string{"rowsPerSecond": "3", "numPartitions": "1"})
	// 3 rows over one second: 1000/3 ms apart, rounded half up.
	vals, ms := rateRows(t, src, 0, "0", "1000", 5_000)
	if !slices.Equal(vals, []int64{0, 1, 2}) || !slices.Equal(ms, []int64{0, 333, 667}) {
		t.Fatalf("uneven second: %v %v", vals, ms)
	}
	// rowsPerSecond 10 ramping up over 4s: end values 0 2 6 12 20 30 40 at seconds 0..6.
	ramp := openRateForTest(t, mem, mock, nil, map[string]string{"rowsPerSecond": "10", "rampUpTime": "4s", "numPartitions": "2"})
	if ramp.Description() != "RateStreamV2[rowsPerSecond=10, rampUpTimeSeconds=4, numPartitions=2" {
		t.Fatalf("description %q", ramp.Description())
	}
	for _, tc := range []struct {
		start, end string
		p          int
		vals, ms   []int64
	}{
		{"0", "1000", 0, []int64{0}, []int64{0}},
		{"0", "1000", 1, []int64{1}, []int64{500}},
		{"1000", "2000", 0, []int64{2, 4}, []int64{1000, 1500}},
		{"3000", "4000", 1, []int64{13, 15, 17, 19}, []int64{3125, 3375, 3625, 3875}},
		{"4000", "6000", 0, []int64{20, 22, 24, 26, 28, 30, 32, 34, 36, 38}, []int64{4000, 4200, 4400, 4600, 4800, 5000, 5200, 5400, 5600, 5800}},
	} {
		vals, ms := rateRows(t, ramp, tc.p, tc.start, tc.end, 5_000)
		if !slices.Equal(vals, tc.vals) || !slices.Equal(ms, tc.ms) {
			t.Fatalf("ramp (%s, %s] p%d: %v %v", tc.start, tc.end, tc.p, vals, ms)
		}
	}
	if got := valueAtSecond(6, 10, 4); got != 40 {
		t.Fatalf("valueAtSecond(6) = %d", got)
	}
}

func TestRateCreationTimeIsPersisted(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(1_000_000))
	store := &memStore{}
	first := openRateForTest(t, mem, mock, store, nil)
	if string(store.data) != "v1\n1000000" || first.(*RateSource).CreationTimeMs() != 1_000_000 {
		t.Fatalf("stored %q", store.data)
	}
	// A restarted query (later clock) keeps the first creation time.
	mock.Add(7 * time.Second)
	again := openRateForTest(t, mem, mock, store, nil)
	if store.puts != 1 || again.(*RateSource).CreationTimeMs() != 1_000_000 {
		t.Fatalf("puts %d, creation %d", store.puts, again.(*RateSource).CreationTimeMs())
	}
	if got := sourcetest.OffsetString(t)(again.Latest(t.Context())); got != "7000" {
		t.Fatalf("latest after restart %s", got)
	}
	for _, bad := range []string{"1000", "v1", "vx\n5", "v2\n5"} {
		_, err := connectors.OpenStream(t.Context(), "rate", sources.StreamEnv{Mem: mem, Clock: mock, Metadata: &memStore{data: []byte(bad)}}, nil, "")
		if se, ok := sparkerr.As(err); !ok || se.JavaClass != sources.IllegalStateException {
			t.Fatalf("metadata %q: %v", bad, err)
		}
	}
}

// optionError checks an option validation error's Java class and message.
func TestRateOptionValidation(t *testing.T) {
	for _, tc := range []struct {
		opts       map[string]string
		schema     string
		class, msg string
	}{
		{map[string]string{"rowsPerSecond": "0"}, "", sparkerr.IllegalArgumentException, "Invalid value '0'. The option 'rowsPerSecond' must be positive"},
		{map[string]string{"ROWSPERSECOND": "-5"}, "", sparkerr.IllegalArgumentException, "Invalid value '-5'. The option 'rowsPerSecond' must be positive"},
		{map[string]string{"rowsPerSecond": "ten"}, "", sparkerr.NumberFormatException, `For input string: "ten"`},
		{map[string]string{"rowsPerSecond": " 5"}, "", sparkerr.NumberFormatException, `For input string: " 5"`},
		{map[string]string{"rampUpTime": "-1s"}, "", sparkerr.IllegalArgumentException, "Invalid value '-1'. The option 'rampUpTime' must not be negative"},
		{map[string]string{"rampUpTime": "5x"}, "", sparkerr.NumberFormatException, sources.TimeStringError + "\nInvalid suffix: \"x\""},
		{map[string]string{"rampUpTime": "soon"}, "", sparkerr.NumberFormatException, sources.TimeStringError + "\nFailed to parse time string: soon"},
		{map[string]string{"numPartitions": "0"}, "", sparkerr.IllegalArgumentException, "Invalid value '0'. The option 'numPartitions' must be positive"},
		{map[string]string{"numPartitions": "3000000000"}, "", sparkerr.NumberFormatException, `For input string: "3000000000"`},
		{nil, "a INT", sparkerr.UnsupportedOperation, "RateStreamProvider source does not support user-specified schema."},
		{map[string]string{"rowsPerSecond": "9223372036854775807", "rampUpTime": "2s"}, "", sparkerr.SparkRuntimeException,
			"Max offset with 9223372036854775807 rowsPerSecond is 1, but 'rampUpTimeSeconds' is 2."},
	} {
		_, err := connectors.StreamSchema("rate", tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("schema ", tc.opts, tc.schema), err, tc.class, tc.msg)
		_, err = connectors.OpenStream(t.Context(), "rate", sources.StreamEnv{}, tc.opts, tc.schema)
		sourcetest.OptionError(t, fmt.Sprint("open ", tc.opts, tc.schema), err, tc.class, tc.msg)
	}
	schema, err := connectors.StreamSchema("rate", map[string]string{"rampUpTime": "1500ms"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := sqltypes.Schema{
		{Name: "timestamp", Type: sqltypes.TimestampType, Nullable: true},
		{Name: "value", Type: sqltypes.LongType, Nullable: true},
	}
	if schema.TreeString() != want.TreeString() {
		t.Fatalf("schema %s", schema.TreeString())
	}
	src, err := connectors.OpenStream(t.Context(), "rate", sources.StreamEnv{}, map[string]string{"rampUpTime": "1500ms", "numPartitions": "2"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !strings.Contains(src.Description(), "rampUpTimeSeconds=1,") {
		t.Fatalf("1500ms ramp-up: %s", src.Description())
	}
}

func TestTimeStringAsSec(t *testing.T) {
	for in, want := range map[string]int64{
		"5": 5, "5s": 5, " 2MIN ": 120, "3m": 180, "1h": 3600, "2d": 172800, "1999ms": 1, "-1500ms": -1, "999999us": 0,
		"9223372036854775807d": 9223372036854775807,
	} {
		got, err := sources.TimeStringAsSec(in)
		if err != nil || got != want {
			t.Fatalf("TimeStringAsSec(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// Offsets are milliseconds: a row is readable once its timestamp has passed, and reading any
// millisecond split of a range gives exactly the rows (values and timestamps) of reading it
// whole.
func TestRateMillisecondOffsets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(50_000))
	src := openRateForTest(t, mem, mock, nil, map[string]string{"rowsPerSecond": "10", "numPartitions": "2"})
	mock.Add(1234 * time.Millisecond)
	if got := sourcetest.OffsetString(t)(src.Latest(t.Context())); got != "1234" {
		t.Fatalf("latest after 1.234s %s", got)
	}
	// Value 3 is stamped +300ms: offset 300 does not cover it, 301 does.
	if vals, _ := rateRows(t, src, 1, "0", "300", 50_000); !slices.Equal(vals, []int64{1}) {
		t.Fatalf("(0, 300] p1: %v", vals)
	}
	if vals, ms := rateRows(t, src, 1, "0", "301", 50_000); !slices.Equal(vals, []int64{1, 3}) || !slices.Equal(ms, []int64{100, 300}) {
		t.Fatalf("(0, 301] p1: %v %v", vals, ms)
	}
	for _, opts := range []map[string]string{
		{"rowsPerSecond": "3", "numPartitions": "2"},
		{"rowsPerSecond": "7", "rampUpTime": "3s", "numPartitions": "2"},
		{"rowsPerSecond": "100000", "numPartitions": "2"},
	} {
		src := openRateForTest(t, mem, mock, nil, opts)
		base := src.(*RateSource).CreationTimeMs()
		readAll := func(start, end int64) (vals, ms []int64) {
			for p := range 2 {
				v, m := rateRows(t, src, p, fmt.Sprint(start), fmt.Sprint(end), base)
				vals, ms = append(vals, v...), append(ms, m...)
			}
			order := make([]int, len(vals))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return int(vals[a] - vals[b]) })
			sv, sm := make([]int64, len(vals)), make([]int64, len(vals))
			for i, o := range order {
				sv[i], sm[i] = vals[o], ms[o]
			}
			return sv, sm
		}
		wholeVals, wholeMs := readAll(0, 5000)
		var vals, ms []int64
		cuts := []int64{0, 1, 2, 333, 334, 666, 667, 668, 999, 1000, 1001, 1500, 2999, 3000, 3001, 4321, 5000}
		for i := 1; i < len(cuts); i++ {
			v, m := readAll(cuts[i-1], cuts[i])
			for _, x := range m {
				// A second's last values may round up onto the next second's first
				// millisecond; they still belong to their second (as in Spark).
				if x < cuts[i-1] || x > cuts[i] || (x == cuts[i] && x%1000 != 0) {
					t.Fatalf("%v (%d, %d]: a row stamped +%dms", opts, cuts[i-1], cuts[i], x)
				}
			}
			vals, ms = append(vals, v...), append(ms, m...)
		}
		if !slices.Equal(vals, wholeVals) || !slices.Equal(ms, wholeMs) {
			t.Fatalf("%v: split reads differ from the whole read", opts)
		}
		for i, v := range wholeVals {
			if v != int64(i) {
				t.Fatalf("%v: values %v...", opts, wholeVals[:min(len(wholeVals), i+1)])
			}
		}
	}
}

// TestRateLatestMovesOnlyWithRows checks that the offset stays put while no new row is due, so
// an idle poll is no new batch: at 1 row/s rows are stamped on whole seconds.
func TestRateLatestMovesOnlyWithRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mock := clock.NewMock()
	mock.Set(time.UnixMilli(1_000_000))
	src := openRateForTest(t, mem, mock, nil, map[string]string{"rowsPerSecond": "1"})
	latest := func() string { return sourcetest.OffsetString(t)(src.Latest(t.Context())) }
	var got []string
	for _, step := range []time.Duration{1, 300, 400, 299, 1, 1, 500, 499, 1} {
		mock.Add(step * time.Millisecond)
		got = append(got, latest())
	}
	// Row 0 is stamped 0 ms and readable after it; row 1 at 1000 ms; row 2 at 2000 ms.
	want := []string{"1", "1", "1", "1", "1001", "1001", "1001", "2001", "2001"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("latest offsets %v, want %v", got, want)
	}
}
