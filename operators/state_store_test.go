package operators

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
	"github.com/weirhq/weir/state"
)

var memoryFlag = regexp.MustCompile(` memory>0=(true|false)`)

// TestStreamDedupSpillSameOutput runs the dedup scripts with a one-byte memory budget (every
// key spills as soon as it is stored) in lockstep with the unlimited run: every command prints
// the same rows, errors and metrics (but the in-memory size).
func TestStreamDedupSpillSameOutput(t *testing.T) {
	for _, path := range []string{"streamdata/dedup", "streamdata/dedup_spill"} {
		t.Run(path, func(t *testing.T) {
			spillLockstep(t, path, func(got, want string) bool {
				return memoryFlag.ReplaceAllString(got, "") == memoryFlag.ReplaceAllString(want, "")
			})
		})
	}
}

// randomSeed is a randomized test's seed: WEIR_TEST_SEED, or the time; it is logged.
func randomSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("WEIR_TEST_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (rerun with WEIR_TEST_SEED=%d)", seed, seed)
	return seed
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in the spill directory: %s", e.Name())
	}
}

// keyModel is the plain-map model of a dedup's keyed state: key → expiry time.
type keyModel map[string]int64

// TestSpillingKeysRandomized drives spillingKeys with random adds, lookups, evictions and
// snapshot/restore under a small budget and checks it against a map after every step.
func TestSpillingKeysRandomized(t *testing.T) {
	seed := randomSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed>>7))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	dir := t.TempDir()
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
	budget := state.Budget{MemoryBytes: int64(200 + rng.IntN(3000)), Dir: dir}
	open := func() *spillingKeys { return newSpillingKeys(newKeyedRows(mem), budget, fields) }
	s := open()
	model := keyModel{}
	goroutines := runtime.NumGoroutine()
	for step := 0; step < 400; step++ {
		switch op := rng.IntN(10); {
		case op < 6: // a batch of keys: new ones are added, as the dedup does
			n := 1 + rng.IntN(40)
			ids := make([]any, n)
			strs := make([]any, n)
			times := make([]int64, n)
			for i := range n {
				ids[i] = int64(rng.IntN(300))
				if rng.IntN(8) > 0 {
					strs[i] = fmt.Sprintf("s%d", rng.IntN(3))
				}
				times[i] = int64(rng.IntN(1000))
				if rng.IntN(10) == 0 {
					times[i] = noTime
				}
			}
			cols := []arrow.Array{expr.BuildArray(mem, sqltypes.LongType, "", ids),
				expr.BuildArray(mem, sqltypes.StringType, "", strs)}
			hs := make([]uint64, n)
			hashColumns(cols, 0, hs)
			var keep []int64
			added := map[string]bool{} // this batch's new keys, not in the store yet
			for i := range n {
				k := keyName(ids[i].(int64), strs[i])
				seen, err := s.seen(cols, i, hs[i])
				if err != nil {
					t.Fatal(err)
				}
				if _, want := model[k]; seen != (want && !added[k]) {
					t.Fatalf("step %d: seen(%s) = %t, model %t", step, k, seen, want)
				}
				if seen {
					continue
				}
				if !added[k] {
					added[k] = true
					keep = append(keep, int64(i))
					model[k] = times[i]
				}
			}
			if err := s.add(cols, hs, times, keep); err != nil {
				t.Fatal(err)
			}
			releaseAll(cols)
		case op < 8: // evict by watermark
			ts := int64(rng.IntN(300))
			n, err := s.evict(ts)
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for k, v := range model {
				if v != noTime && v <= ts {
					delete(model, k)
					want++
				}
			}
			if n != want {
				t.Fatalf("step %d: evict(%d) removed %d, model %d", step, ts, n, want)
			}
		default: // snapshot, change the state, restore the snapshot into a new store
			rows, view := s.capture()
			c := &dedupCapture{keyed: keyedCapture{rows: []*rowsCapture{rows}, fields: [][]arrow.Field{fields}},
				view: view, codec: s.codec}
			// The snapshot encodes on another goroutine while the store changes (as the
			// runtime's saver does); changes after the capture must not show in it.
			encoded := encodeInBackground(c)
			if _, err := s.evict(1 << 40); err != nil {
				t.Fatal(err)
			}
			data, err := encoded()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			s = open()
			restored := newStreamDedupForTest(t, s, mem, fields)
			if err := restored.RestoreState(data); err != nil {
				t.Fatal(err)
			}
		}
		if s.live() != int64(len(model)) {
			t.Fatalf("step %d: %d keys, model %d", step, s.live(), len(model))
		}
		if budget.Limited() && s.mem.bytes > budget.MemoryBytes {
			t.Fatalf("step %d: %d bytes of rows in memory over the budget %d", step, s.mem.bytes, budget.MemoryBytes)
		}
		checkAll(t, step, s, model, mem)
		checkIndex(t, step, s.mem)
	}
	if s.spilled == 0 {
		t.Errorf("nothing spilled under a budget of %d bytes", budget.MemoryBytes)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	assertEmptyDir(t, dir)
	assertNoMoreGoroutines(t, goroutines)
}

// TestSpillingKeysLongRun streams 3,000 batches of new keys through spillingKeys, evicting by
// watermark as it goes, under a small budget (the oldest batches spill) and unlimited with a
// key that never expires in the first batch (the batches after it are evicted around it): the
// memory part's list of batches stays as short as its live batches allow (spilled and evicted
// batches leave no entry behind), and the keys held stay right.
func TestSpillingKeysLongRun(t *testing.T) {
	for _, budget := range []int64{4 << 10, 0} {
		t.Run(fmt.Sprint("budget=", budget), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			dir := t.TempDir()
			fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
			s := newSpillingKeys(newKeyedRows(mem), state.Budget{MemoryBytes: budget, Dir: dir}, fields)
			model := keyModel{}
			const batches, rows = 3000, 20
			longest := 0
			all := make([]int64, rows)
			for i := range all {
				all[i] = int64(i)
			}
			for b := range batches {
				ids := make([]any, rows)
				strs := make([]any, rows)
				times := make([]int64, rows)
				for i := range rows {
					ids[i] = int64(b*rows + i)
					times[i] = int64(b)
					if b == 0 && i == 0 {
						times[i] = noTime
					}
					model[keyName(ids[i].(int64), nil)] = times[i]
				}
				cols := []arrow.Array{expr.BuildArray(mem, sqltypes.LongType, "", ids),
					expr.BuildArray(mem, sqltypes.StringType, "", strs)}
				hs := make([]uint64, rows)
				hashColumns(cols, 0, hs)
				if err := s.add(cols, hs, times, all); err != nil {
					t.Fatal(err)
				}
				releaseAll(cols)
				if b%10 == 9 {
					ts := int64(b - 50)
					if _, err := s.evict(ts); err != nil {
						t.Fatal(err)
					}
					for k, v := range model {
						if v != noTime && v <= ts {
							delete(model, k)
						}
					}
				}
				if s.live() != int64(len(model)) {
					t.Fatalf("batch %d: %d keys, model %d", b, s.live(), len(model))
				}
				longest = max(longest, len(s.mem.batches))
				checkIndex(t, b, s.mem)
				if b%500 == 499 {
					checkAll(t, b, s, model, mem)
				}
			}
			// 51 batches of live keys at most (and the never-expiring key's), twice that with
			// released batches not packed yet.
			if longest > 2*52+10 {
				t.Errorf("the memory part's list of batches reached %d entries", longest)
			}
			if budget > 0 && s.spilled == 0 {
				t.Errorf("nothing spilled under a budget of %d bytes", budget)
			}
			if err := s.close(); err != nil {
				t.Fatal(err)
			}
			mem.AssertSize(t, 0)
			assertEmptyDir(t, dir)
		})
	}
}

// newStreamDedupForTest is a dedup operator over keys s (to restore a snapshot into it).
func newStreamDedupForTest(t *testing.T, s *spillingKeys, mem memory.Allocator, fields []arrow.Field) *streamDedup {
	t.Helper()
	schema := eventSchema(mustFromArrowFields(t, fields))
	return &streamDedup{env: flow.Env{Mem: mem, Partitions: 1, OutSchema: schema}, fields: fields, state: s,
		spec: StreamDedupSpec{TimeCol: -1, LateCol: -1}, watermark: noTime}
}

func mustFromArrowFields(t *testing.T, fs []arrow.Field) sqltypes.Schema {
	s, err := sqltypes.FromArrowFields(fs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkAll checks every model key is seen with its expiry time, by snapshotting the store.
func checkAll(t *testing.T, step int, s *spillingKeys, model keyModel, mem memory.Allocator) {
	t.Helper()
	rows, view := s.capture()
	c := &dedupCapture{keyed: keyedCapture{rows: []*rowsCapture{rows}, fields: [][]arrow.Field{s.codec.fields}},
		view: view, codec: s.codec}
	data, err := encodeNow(c)
	if err != nil {
		t.Fatal(err)
	}
	cols, times, err := readDedupSnapshot(mem, data)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(cols)
	got := keyModel{}
	for i := range times {
		var str any
		if !cols[1].IsNull(i) {
			str = cols[1].(*array.String).Value(i)
		}
		k := keyName(cols[0].(*array.Int64).Value(i), str)
		if _, dup := got[k]; dup {
			t.Fatalf("step %d: key %s held twice", step, k)
		}
		got[k] = times[i]
	}
	if len(got) != len(model) {
		t.Fatalf("step %d: snapshot has %d keys, model %d", step, len(got), len(model))
	}
	for k, v := range model {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("step %d: key %s: snapshot %d (%t), model %d", step, k, g, ok, v)
		}
	}
}

// checkIndex checks a keyedRows' bookkeeping: every reference of the hash index is a live
// indexed row of that hash and every such row is referenced once; released counts the
// released batches, which are fewer than half the list (pack ran).
func checkIndex(t *testing.T, step int, s *keyedRows) {
	t.Helper()
	refs := 0
	check := func(h uint64, ref rowRef) {
		if int(ref.batch) >= len(s.batches) {
			t.Fatalf("step %d: reference %v past the %d batches", step, ref, len(s.batches))
		}
		b := s.batches[ref.batch]
		if int(ref.row) >= len(b.alive) || !b.alive[ref.row] || !b.hashed[ref.row] || b.hashes[ref.row] != h {
			t.Fatalf("step %d: reference %v of hash %x is not a live indexed row of that hash", step, ref, h)
		}
		refs++
	}
	for h, ref := range s.byHash {
		check(h, ref)
	}
	for h, more := range s.more {
		if _, ok := s.byHash[h]; !ok {
			t.Fatalf("step %d: hash %x has more references but no first", step, h)
		}
		for _, ref := range more {
			check(h, ref)
		}
	}
	indexed, released := 0, 0
	for _, b := range s.batches {
		if b.nlive == 0 {
			released++
		}
		for r := range b.alive {
			if b.alive[r] && b.hashed[r] {
				indexed++
			}
		}
	}
	if refs != indexed {
		t.Fatalf("step %d: %d references for %d live indexed rows", step, refs, indexed)
	}
	if released != s.released {
		t.Fatalf("step %d: %d released batches, counted %d", step, released, s.released)
	}
	if released > 0 && 2*released >= len(s.batches) {
		t.Fatalf("step %d: %d of the %d batches are released", step, released, len(s.batches))
	}
}

func keyName(id int64, str any) string { return fmt.Sprintf("%d/%v", id, str) }

func readDedupSnapshot(mem memory.Allocator, data []byte) ([]arrow.Array, []int64, error) {
	r := bytesReader(data)
	if _, err := readVarint(r); err != nil {
		return nil, nil, err
	}
	cols, times, _, err := readSnapshot(mem, r)
	return cols, times, err
}

// TestRowCodecRoundTrip encodes rows of several key types (a window struct of timestamps, a
// double, binary, int, array, decimal, map, date, NULLs) and decodes them back.
func TestRowCodecRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	window := sqltypes.StructType(sqltypes.Field{Name: "start", Type: sqltypes.TimestampType, Nullable: true},
		sqltypes.Field{Name: "end", Type: sqltypes.TimestampType, Nullable: true})
	types := []sqltypes.DataType{window, sqltypes.DoubleType, sqltypes.BinaryType, sqltypes.IntegerType,
		sqltypes.ArrayType(sqltypes.StringType, true), sqltypes.DecimalType(10, 2),
		sqltypes.MapType(sqltypes.StringType, sqltypes.LongType, true), sqltypes.DateType}
	values := [][]any{
		{[]any{int64(0), int64(10e6)}, nil, []any{int64(-5), nil}},
		{1.5, 0.0, nil},
		{[]byte("x"), nil, []byte{}},
		{int32(7), nil, int32(-1)},
		{[]any{"a", nil}, []any{}, nil},
		{decimal128.FromI64(-12345), nil, decimal128.FromI64(7)},
		{&sqltypes.MapValue{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}, nil, &sqltypes.MapValue{}},
		{int32(-3), int32(19000), nil},
	}
	cols := make([]arrow.Array, len(types))
	fields := make([]arrow.Field, len(types))
	for c, typ := range types {
		cols[c] = expr.BuildArray(mem, typ, "UTC", values[c])
		fields[c] = arrow.Field{Name: fmt.Sprint("c", c), Type: cols[c].DataType(), Nullable: true}
	}
	defer releaseAll(cols)
	codec, err := newRowCodec(fields)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]byte
	for i := range 3 {
		rows = append(rows, codec.encode(nil, cols, i))
	}
	back, err := codec.decode(mem, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(back)
	for c := range cols {
		if !array.Equal(cols[c], back[c]) {
			t.Errorf("column %d: %s decodes as %s", c, cols[c], back[c])
		}
	}
	// Keys equal as dedup keys encode alike: NaN = NaN, -0.0 = 0.0.
	f := arrow.Field{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	dc, _ := newRowCodec([]arrow.Field{f})
	d := expr.BuildArray(mem, sqltypes.DoubleType, "", []any{math.NaN(), -math.NaN(), 0.0, math.Copysign(0, -1)})
	defer d.Release()
	enc := func(i int) string { return string(dc.encode(nil, []arrow.Array{d}, i)) }
	if enc(0) != enc(1) || enc(2) != enc(3) {
		t.Errorf("NaNs or zeros encode differently: %q %q %q %q", enc(0), enc(1), enc(2), enc(3))
	}
	// A key type Weir's columns never have cannot spill (only an error once something must).
	if _, err := newRowCodec([]arrow.Field{{Name: "l", Type: arrow.BinaryTypes.LargeString}}); err == nil {
		t.Error("a large_string key is encodable")
	}
	// A corrupt key is an error, not a panic.
	if _, err := codec.decode(mem, [][]byte{rows[0][:3]}); err == nil {
		t.Error("decoding a truncated key succeeded")
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// BenchmarkStreamDedupSpill is BenchmarkStreamDedup with a 256 KiB state budget: most of the
// 100,000 keys spill, and most lookups reach the spill store.
func BenchmarkStreamDedupSpill(b *testing.B) {
	mem := memory.NewGoAllocator()
	schema := eventSchema(sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}})
	keys := 100_000
	if v := os.Getenv("WEIR_BENCH_KEYS"); v != "" {
		keys, _ = strconv.Atoi(v)
	}
	recs := longBatches(mem, schema, 16, keys)
	defer releaseRecords(recs)
	budget := state.Budget{MemoryBytes: 256 << 10, Dir: b.TempDir()}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		op, _ := StreamDedup(StreamDedupSpec{TimeCol: -1, LateCol: -1, Budget: budget})(flow.Env{Mem: mem, Partitions: 1, OutSchema: schema})
		for _, r := range recs {
			if err := op.Process(context.Background(), 0, r, discard{}); err != nil {
				b.Fatal(err)
			}
		}
		op.(flow.Closer).Close()
	}
	b.ReportMetric(float64(16*BatchRows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
