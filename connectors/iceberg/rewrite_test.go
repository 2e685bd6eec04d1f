package iceberg

import (
	"context"
	"errors"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/connectors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// A copy-on-write rewrite (BaseSnapshotOption) replaces its base snapshot's files, and is
// refused once another writer has committed after that base.
func TestRewriteOfBaseSnapshot(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, err := IcebergSchema(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, loc, sc, nil, nil); err != nil {
		t.Fatal(err)
	}
	app := newWriter(loc, commitAppend, TableSchema(testSchema))
	commitEpoch(t, app, 0, 1, []int64{1, 2, 3})
	base, err := CurrentSnapshotID(ctx, loc)
	if err != nil || base == 0 {
		t.Fatalf("current snapshot: %d, %v", base, err)
	}
	rw := newWriter(loc, commitOverwrite, TableSchema(testSchema))
	rw.base = base
	commitEpoch(t, rw, 0, 1, []int64{1, 3}) // DELETE ... WHERE id = 2
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{1, 3}) {
		t.Fatalf("after the rewrite: %v", got)
	}

	// A rewrite of a snapshot that is no longer current is refused, and writes nothing.
	stale, _ := CurrentSnapshotID(ctx, loc)
	commitEpoch(t, app, 1, 1, []int64{7})
	rw = newWriter(loc, commitOverwrite, TableSchema(testSchema))
	rw.base = stale
	op := &operator{w: rw, env: flow.Env{Mem: memory.DefaultAllocator, Partitions: 1}}
	op.recs, op.rows = append(op.recs, rowsBatch(memory.DefaultAllocator, []int64{1}, parity)), 1
	err = op.Barrier(ctx, 0, nil)
	var se *sparkerr.Error
	if !errors.As(err, &se) || se.JavaClass != "org.apache.iceberg.exceptions.ValidationException" {
		t.Fatalf("a rewrite of a stale snapshot: %v", err)
	}
	if got := readIDs(t, loc, 0, nil); !equalIDs(got, []int64{1, 3, 7}) {
		t.Fatalf("after the refused rewrite: %v", got)
	}
}

// The stream source fails on an overwrite snapshot as Iceberg's Spark source does, unless
// streaming-skip-overwrite-snapshots is set; time travel to a missing snapshot fails as
// Iceberg's runtime does.
func TestStreamRefusesOverwritesAndMissingSnapshots(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, _ := IcebergSchema(testSchema)
	if _, err := Create(ctx, loc, sc, nil, nil); err != nil {
		t.Fatal(err)
	}
	commitEpoch(t, newWriter(loc, commitAppend, TableSchema(testSchema)), 0, 1, []int64{1})
	commitEpoch(t, newWriter(loc, commitOverwrite, TableSchema(testSchema)), 0, 1, []int64{2})
	commitEpoch(t, newWriter(loc, commitAppend, TableSchema(testSchema)), 1, 1, []int64{3})
	tbl, err := Load(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	cur := tbl.CurrentSnapshot()
	s := &stream{location: loc}
	err = s.checkOperations(tbl, cur, nil)
	if err == nil || !strings.Contains(err.Error(), "Cannot process overwrite snapshot") ||
		!strings.Contains(err.Error(), "streaming-skip-overwrite-snapshots=true") {
		t.Fatalf("an overwrite snapshot in the stream: %v", err)
	}
	s.skipOverwrite = true
	if err := s.checkOperations(tbl, cur, nil); err != nil {
		t.Fatalf("skipping overwrites: %v", err)
	}
	// After the overwrite only the append is read: nothing to refuse.
	s.skipOverwrite = false
	if err := s.checkOperations(tbl, cur, tbl.SnapshotByID(*cur.ParentSnapshotID)); err != nil {
		t.Fatalf("the append after the overwrite: %v", err)
	}

	for opts, want := range map[string]string{
		SnapshotIDOption:  "Cannot find snapshot with ID 42",
		VersionAsOfOption: "Cannot find matching snapshot ID or reference name for version nope",
		AsOfTimestampOpts: "Cannot find a snapshot older than 1970-01-01T00:00:00.001+00:00",
	} {
		v := map[string]string{SnapshotIDOption: "42", VersionAsOfOption: "nope", AsOfTimestampOpts: "1"}[opts]
		if _, err := snapshotOf(tbl, map[string]string{opts: v}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: %v, want %q", opts, v, err, want)
		}
	}
	if snap, err := snapshotOf(tbl, map[string]string{VersionAsOfOption: strconv.FormatInt(cur.SnapshotID, 10)}); err != nil || snap.SnapshotID != cur.SnapshotID {
		t.Errorf("VERSION AS OF the current snapshot: %v, %v", snap, err)
	}
}

// Replace gives the table a new schema and spec in the same metadata: the old snapshots are
// still read with their own schema.
func TestReplaceKeepsHistory(t *testing.T) {
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	sc, _ := IcebergSchema(testSchema)
	if _, err := Create(ctx, loc, sc, []string{"k"}, nil); err != nil {
		t.Fatal(err)
	}
	commitEpoch(t, newWriter(loc, commitAppend, TableSchema(testSchema)), 0, 1, []int64{1, 2})
	old, _ := CurrentSnapshotID(ctx, loc)
	newSchema := sqltypes.Schema{{Name: "id", Type: sqltypes.LongType, Nullable: true},
		{Name: "label", Type: sqltypes.StringType, Nullable: true}}
	isc, _ := IcebergSchema(newSchema)
	if err := Replace(ctx, loc, isc, nil, map[string]string{"p": "1"}); err != nil {
		t.Fatal(err)
	}
	if cur, _ := CurrentSnapshotID(ctx, loc); cur != 0 {
		t.Fatalf("a replaced table has a current snapshot %d", cur)
	}
	tbl, err := Load(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SparkSchema(tbl.Schema())
	if err != nil || len(got) != 2 || got[1].Name != "label" || !tbl.Spec().IsUnpartitioned() {
		t.Fatalf("the replaced table's schema %v (%v), spec %v", got, err, tbl.Spec())
	}
	if tbl.SnapshotByID(old) == nil {
		t.Fatal("the old snapshot is gone")
	}
	// A read as of the old snapshot has that snapshot's schema (batchSchema) and rows.
	opts := map[string]string{SnapshotIDOption: strconv.FormatInt(old, 10), "path": loc}
	env := connectors.BatchEnv{DefaultPartitions: 1, TimeZone: "UTC"}
	schema, err := batchSchema(env, opts, nil)
	if err != nil || len(schema) != 3 || schema[1].Name != "k" {
		t.Fatalf("the old snapshot's schema: %v, %v", schema, err)
	}
	b := Batch{Location: loc, SnapshotID: old, Schema: schema, TimeZone: "UTC"}
	var n int64
	err = b.read(ctx, 0, 1, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		n += rec.NumRows()
		return nil
	}, flow.Env{Mem: memory.DefaultAllocator})
	if err != nil || n != 2 {
		t.Fatalf("reading the old snapshot after the replace: %d rows, %v", n, err)
	}
}
