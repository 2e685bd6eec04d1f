package iceberg

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// commitKind is what an epoch's commit does with the files it adds.
type commitKind int

const (
	commitAppend           commitKind = iota // add them
	commitOverwrite                          // replace every data file of the table
	commitDynamicOverwrite                   // replace the data files of the partitions they hold
)

// writer writes epochs of rows into one Iceberg table, one snapshot per epoch: each sink
// partition writes its rows of the epoch as Parquet data files (table.WriteRecords) when the
// epoch ends, and the last partition to arrive commits all of them as one snapshot with
// props in its summary. Commit conflicts with other writers are retried by iceberg-go on the
// newer metadata.
type writer struct {
	location string
	kind     commitKind
	schema   sqltypes.Schema // the rows' schema, the table's columns in order
	arrow    *arrow.Schema   // the data files' Arrow schema
	written  sinks.RowCounter

	mu      sync.Mutex
	pending map[int64]*pendingEpoch
	// skip, if set, says an epoch was committed already (a replay): nothing is written.
	skip func(epoch int64) bool
	// props are the summary properties of an epoch's snapshot.
	props func(epoch int64) iceberg.Properties
	// base, if set, is the snapshot a copy-on-write overwrite rewrites (BaseSnapshotOption):
	// the commit is refused once the table's current snapshot is another.
	base int64
}

type pendingEpoch struct {
	files   []iceberg.DataFile
	rows    int64
	arrived int
}

func newWriter(location string, kind commitKind, schema sqltypes.Schema) *writer {
	return &writer{location: location, kind: kind, schema: schema,
		arrow:   sqltypes.ToArrowSchema(TableSchema(schema), "UTC"),
		pending: map[int64]*pendingEpoch{},
		props:   func(int64) iceberg.Properties { return nil }}
}

// writeFiles writes recs (user columns of w.schema; released) as data files of tbl.
func (w *writer) writeFiles(ctx context.Context, mem memory.Allocator, tbl *table.Table, recs []arrow.RecordBatch) ([]iceberg.DataFile, error) {
	var seq iter.Seq2[arrow.RecordBatch, error] = func(yield func(arrow.RecordBatch, error) bool) {
		for i, r := range recs {
			recs[i] = nil
			c, err := conform(ctx, mem, r, w.arrow)
			if !yield(c, err) || err != nil {
				for _, rest := range recs[i+1:] {
					rest.Release()
				}
				return
			}
		}
	}
	var out []iceberg.DataFile
	for f, err := range table.WriteRecords(ctx, tbl, w.arrow, seq) {
		if err != nil {
			return nil, sparkerr.New("java.io.IOException", "", "", "Failed to write Iceberg data files of "+w.location+": "+err.Error())
		}
		out = append(out, f)
	}
	return out, nil
}

// arrive records a partition's files of epoch; the last of partitions commits the epoch.
func (w *writer) arrive(ctx context.Context, epoch int64, files []iceberg.DataFile, rows int64, partitions int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.pending[epoch]
	if p == nil {
		p = &pendingEpoch{}
		w.pending[epoch] = p
	}
	p.files = append(p.files, files...)
	p.rows += rows
	p.arrived++
	if p.arrived < partitions {
		return nil
	}
	delete(w.pending, epoch)
	if w.skip != nil && w.skip(epoch) {
		removeFiles(p.files)
		return nil
	}
	if err := w.commit(ctx, epoch, p.files); err != nil {
		return err
	}
	w.written.Add(p.rows)
	return nil
}

// commit commits files as one snapshot (nothing for an append of no files). A commit that
// loses to another writer's (table.ErrCommitFailed, which iceberg-go retries itself only
// while the requirements it checks still hold) is made again on the newest metadata.
func (w *writer) commit(ctx context.Context, epoch int64, files []iceberg.DataFile) error {
	if len(files) == 0 && w.kind == commitAppend {
		return nil
	}
	var err error
	for attempt := 0; attempt < commitAttempts; attempt++ {
		if err = w.commitOnce(ctx, epoch, files); err == nil || !errors.Is(err, table.ErrCommitFailed) {
			break
		}
		if w.skip != nil && w.skip(epoch) { // the conflicting commit was this epoch's own
			return nil
		}
	}
	if err != nil {
		removeFiles(files)
		if se := (*sparkerr.Error)(nil); errors.As(err, &se) {
			return se
		}
		return sparkerr.New("org.apache.iceberg.exceptions.CommitFailedException", "", "",
			fmt.Sprintf("Failed to commit to the Iceberg table %s: %v", w.location, err))
	}
	return nil
}

// commitAttempts bounds the commits of one epoch lost to other writers.
const commitAttempts = 20

func (w *writer) commitOnce(ctx context.Context, epoch int64, files []iceberg.DataFile) error {
	tbl, err := Load(ctx, w.location)
	if err != nil {
		return err
	}
	if w.base != 0 {
		if cur := tbl.CurrentSnapshot(); cur == nil || cur.SnapshotID != w.base {
			return sparkerr.New("org.apache.iceberg.exceptions.ValidationException", "", "",
				fmt.Sprintf("Found conflicting files that can contain records matching true: the table %s changed since snapshot %d was read", w.location, w.base))
		}
	}
	txn := tbl.NewTransaction()
	props := w.props(epoch)
	if w.kind == commitAppend {
		err = txn.AddDataFiles(ctx, files, props)
	} else {
		var old []iceberg.DataFile
		if old, err = w.replaced(ctx, tbl, files); err == nil {
			err = txn.ReplaceDataFilesWithDataFiles(ctx, old, files, props)
		}
	}
	if err != nil {
		return err
	}
	_, err = txn.Commit(ctx)
	return err
}

// replaced are the data files an overwrite adding files replaces: all of them, or for a
// dynamic partition overwrite those of the partitions files hold.
func (w *writer) replaced(ctx context.Context, tbl *table.Table, files []iceberg.DataFile) ([]iceberg.DataFile, error) {
	if tbl.CurrentSnapshot() == nil {
		return nil, nil
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, err
	}
	parts := map[string]bool{}
	for _, f := range files {
		parts[partitionKey(f)] = true
	}
	var out []iceberg.DataFile
	for _, t := range tasks {
		if w.kind == commitOverwrite || parts[partitionKey(t.File)] {
			out = append(out, t.File)
		}
	}
	return out, nil
}

func partitionKey(f iceberg.DataFile) string {
	p := f.Partition()
	var b strings.Builder
	fmt.Fprintf(&b, "%d", f.SpecID())
	for _, id := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&b, "|%d=%#v", id, p[id])
	}
	return b.String()
}

func removeFiles(files []iceberg.DataFile) {
	for _, f := range files {
		if path, err := localPathOf(f.FilePath()); err == nil {
			os.Remove(path)
		}
	}
}

func localPathOf(p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		return rest, nil
	}
	if rest, ok := strings.CutPrefix(p, "file:"); ok {
		return rest, nil
	}
	if strings.Contains(p, "://") {
		return "", fmt.Errorf("not a local path: %s", p)
	}
	return p, nil
}

// operator is one sink partition: it keeps the open epoch's rows and writes them as data
// files when the epoch ends.
type operator struct {
	w    *writer
	env  flow.Env
	recs []arrow.RecordBatch
	rows int64
	ctx  context.Context
}

// Process implements flow.Operator.
func (o *operator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	o.recs = append(o.recs, flow.UserColumns(rec))
	o.rows += rec.NumRows()
	return nil
}

// Barrier implements flow.BarrierHandler.
func (o *operator) Barrier(ctx context.Context, epoch int64, _ flow.Emitter) error {
	recs, rows := o.recs, o.rows
	o.recs, o.rows = nil, 0
	var files []iceberg.DataFile
	if len(recs) > 0 && (o.w.skip == nil || !o.w.skip(epoch)) {
		tbl, err := Load(ctx, o.w.location)
		if err != nil {
			sinks.ReleaseRecords(recs)
			return err
		}
		if files, err = o.w.writeFiles(ctx, o.env.Mem, tbl, recs); err != nil {
			return err
		}
	} else {
		sinks.ReleaseRecords(recs)
	}
	return o.w.arrive(ctx, epoch, files, rows, o.env.Partitions)
}

// Close implements flow.Closer.
func (o *operator) Close() {
	sinks.ReleaseRecords(o.recs)
	o.recs = nil
}

// CurrentSnapshotID is the id of the current snapshot of the table at location (0: it has
// none, no rows).
func CurrentSnapshotID(ctx context.Context, location string) (int64, error) {
	tbl, err := Load(ctx, location)
	if err != nil {
		return 0, err
	}
	if snap := tbl.CurrentSnapshot(); snap != nil {
		return snap.SnapshotID, nil
	}
	return 0, nil
}
