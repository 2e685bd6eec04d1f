package iceberg

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var testSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.LongType, Nullable: true},
	{Name: "k", Type: sqltypes.StringType, Nullable: true},
	{Name: "b", Type: sqltypes.ShortType, Nullable: true},
}

// rowsBatch is a batch of testSchema's columns holding ids with k = kOf(id), b = id % 7.
func rowsBatch(mem memory.Allocator, ids []int64, kOf func(int64) string) arrow.RecordBatch {
	ib := array.NewInt64Builder(mem)
	kb := array.NewStringBuilder(mem)
	bb := array.NewInt16Builder(mem)
	for _, id := range ids {
		ib.Append(id)
		kb.Append(kOf(id))
		bb.Append(int16(id % 7))
	}
	cols := []arrow.Array{ib.NewArray(), kb.NewArray(), bb.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return array.NewRecordBatch(sqltypes.ToArrowSchema(testSchema, "UTC"), cols, int64(len(ids)))
}

func parity(id int64) string { return []string{"even", "odd"}[id%2] }

// readIDs reads the table at loc (its current snapshot, or snapshotID) and returns the ids.
func readIDs(t *testing.T, loc string, snapshotID int64, filter []expr.Expr) []int64 {
	t.Helper()
	ctx := context.Background()
	tbl, err := Load(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := SparkSchema(tbl.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if snapshotID == 0 && tbl.CurrentSnapshot() != nil {
		snapshotID = tbl.CurrentSnapshot().SnapshotID
	}
	b := Batch{Location: loc, SnapshotID: snapshotID, Schema: schema, TimeZone: "UTC", Filter: pushedFilter(filter, schema)}
	var ids []int64
	err = b.read(ctx, 0, 1, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		col := rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids = append(ids, col.Value(i))
		}
		return nil
	}, flow.Env{Mem: memory.DefaultAllocator})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// commitEpoch writes ids through w as epoch over partitions sink partitions.
func commitEpoch(t *testing.T, w *writer, epoch int64, partitions int, ids ...[]int64) {
	t.Helper()
	ctx := context.Background()
	mem := memory.DefaultAllocator
	for p := 0; p < partitions; p++ {
		var part []int64
		if p < len(ids) {
			part = ids[p]
		}
		op := &operator{w: w, env: flow.Env{Mem: mem, Partition: p, Partitions: partitions}}
		if len(part) > 0 {
			rec := rowsBatch(mem, part, parity)
			op.recs, op.rows = append(op.recs, rec), rec.NumRows()
		}
		if err := op.Barrier(ctx, epoch, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func equalIDs(got, want []int64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestAppendOverwriteAndTimeTravel(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, err := IcebergSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, loc, sc, []string{"k"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, loc, sc, nil, nil); err == nil {
		t.Fatal("creating a table where one exists succeeded")
	}
	app := newWriter(loc, commitAppend, TableSchema(testSchema))
	commitEpoch(t, app, 0, 2, []int64{0, 1}, []int64{2, 3})
	tbl, _ := Load(ctx, loc)
	first := tbl.CurrentSnapshot().SnapshotID
	commitEpoch(t, app, 1, 1, []int64{4, 5})
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("after two appends: %v", got)
	}
	if got := readIDs(t, loc, first, nil); !equalIDs(got, []int64{0, 1, 2, 3}) {
		t.Fatalf("as of the first snapshot: %v", got)
	}
	// Dynamic partition overwrite replaces only the partitions the new rows hold ("odd").
	dyn := newWriter(loc, commitDynamicOverwrite, TableSchema(testSchema))
	commitEpoch(t, dyn, 0, 1, []int64{11})
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{0, 2, 4, 11}) {
		t.Fatalf("after a dynamic overwrite of k=odd: %v", got)
	}
	// A static overwrite replaces everything.
	all := newWriter(loc, commitOverwrite, TableSchema(testSchema))
	commitEpoch(t, all, 0, 1, []int64{20})
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{20}) {
		t.Fatalf("after an overwrite: %v", got)
	}
	if got := readIDs(t, loc, first, nil); !equalIDs(got, []int64{0, 1, 2, 3}) {
		t.Fatalf("the first snapshot after the overwrites: %v", got)
	}
}

func TestFilterPushdownPrunesFiles(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, _ := IcebergSchema(testSchema)
	if _, err := Create(ctx, loc, sc, []string{"k"}, nil); err != nil {
		t.Fatal(err)
	}
	commitEpoch(t, newWriter(loc, commitAppend, TableSchema(testSchema)), 0, 1, []int64{1, 2, 3, 4})
	schema := TableSchema(testSchema)
	// k = 'odd': the "even" partition's file is not read, so its rows are not returned (the
	// plan's own filter would drop them; here nothing does).
	eq, err := expr.Bind("=", []expr.Expr{&expr.Column{Index: 1, Name: "k", T: sqltypes.StringType, Null: true},
		expr.NewLiteral("odd", sqltypes.StringType)}, expr.Options{TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readIDs(t, loc, 0, []expr.Expr{eq}); !equalIDs(got, []int64{1, 3}) {
		t.Fatalf("k = 'odd' read %v", got)
	}
	if f := pushedFilter([]expr.Expr{eq}, schema); f == nil {
		t.Fatal("no pushed filter for k = 'odd'")
	}
}

func TestExactlyOnceEpochs(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, _ := IcebergSchema(testSchema)
	if _, err := Create(ctx, loc, sc, nil, nil); err != nil {
		t.Fatal(err)
	}
	mk := func() *writer {
		tbl, err := Load(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		w := newWriter(loc, commitAppend, TableSchema(testSchema))
		committed := lastEpoch(tbl, "q1")
		w.skip = func(e int64) bool { return e <= committed }
		w.props = func(e int64) iceberg.Properties {
			return iceberg.Properties{QueryIDProperty: "q1", EpochProperty: strconv.FormatInt(e, 10)}
		}
		return w
	}
	w := mk()
	commitEpoch(t, w, 0, 1, []int64{1})
	commitEpoch(t, w, 1, 1, []int64{2})
	// A restarted query replays epoch 1 and goes on with epoch 2.
	w = mk()
	commitEpoch(t, w, 1, 1, []int64{2})
	commitEpoch(t, w, 2, 1, []int64{3})
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{1, 2, 3}) {
		t.Fatalf("after a replayed epoch: %v", got)
	}
	tbl, _ := Load(ctx, loc)
	if n := len(tbl.Metadata().Snapshots()); n != 3 {
		t.Fatalf("%d snapshots, want one per epoch (3)", n)
	}
	if got := lastEpoch(tbl, "q1"); got != 2 {
		t.Fatalf("last epoch %d, want 2", got)
	}
}

func TestConcurrentCommitConflict(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, _ := IcebergSchema(testSchema)
	if _, err := Create(ctx, loc, sc, nil, nil); err != nil {
		t.Fatal(err)
	}
	stale, err := Load(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	commitEpoch(t, newWriter(loc, commitAppend, TableSchema(testSchema)), 0, 1, []int64{1})
	// Committing on the stale metadata's version conflicts.
	if _, err := writeVersion(loc, 1, stale.Metadata()); !errors.Is(err, table.ErrCommitFailed) {
		t.Fatalf("a commit on a taken version: %v, want ErrCommitFailed", err)
	}
	// Two writers appending at once: every lost commit is made again, no row is lost.
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWriter(loc, commitAppend, TableSchema(testSchema))
			for i := 0; i < 5; i++ {
				id := int64(100 + 10*g + i)
				files, err := w.writeFiles(ctx, memory.DefaultAllocator, stale,
					[]arrow.RecordBatch{rowsBatch(memory.DefaultAllocator, []int64{id}, parity)})
				if err == nil {
					err = w.commit(ctx, int64(i), files)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := []int64{1, 100, 101, 102, 103, 104, 110, 111, 112, 113, 114}
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, want) {
		t.Fatalf("after two concurrent writers: %v, want %v", got, want)
	}
}
