package files

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fileSink writes each epoch's rows as files under a directory, exactly once: every sink
// partition writes its rows of the epoch to a hidden staging file, renamed at the barrier to
// part-<epoch>-<partition>-<uuid>.<ext>; the last partition to reach the barrier commits the
// epoch by writing its entry of the commit log (<path>/_spark_metadata/<epoch>, Spark's
// FileStreamSinkLog format). With partitionBy, each partition directory col1=v1/col2=v2 gets
// its own staging and part files, all listed in the epoch's entry. Readers (Weir's file source and batch reads, Spark) read only
// files the log lists, so files of an epoch that failed before its commit are never seen. An
// epoch the log already holds (a replay after recovery) writes nothing.
type fileSink struct {
	format  fileFormat
	path    string // as the user gave it (the description)
	dir     string // resolved (absolute, links followed) and checked by env.Files
	env     sinks.Env
	written sinks.RowCounter
	// parts are the partition columns' positions in env.Schema (partitionBy order); data is
	// the written files' schema (env.Schema without them) and dataCols its positions.
	parts    []int
	data     sqltypes.Schema
	dataCols []int

	mu        sync.Mutex
	committed int64 // newest epoch in the log, -1 if none
	pending   map[int64]*pendingEpoch

	// batch is set for a batch write (batch_write.go): no log, part files named as Spark's
	// batch writer names them (jobID shared by the write's files), files counts them.
	batch bool
	jobID string
	files int
	// replace is a batch overwrite in progress (overwrite.go): dir is then its staging
	// directory.
	replace *overwrite
}

// pendingEpoch collects the partitions' files of an epoch until all reached its barrier.
type pendingEpoch struct {
	files   []SinkFileStatus
	rows    int64
	arrived int
}

func newFileSink(format string, env sinks.Env, options map[string]string) (sinks.Sink, error) {
	opts := sinks.NewOptions(options)
	if opts["checkpointlocation"] == "" {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			`checkpointLocation must be specified either through option("checkpointLocation", ...) or `+
				`SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...)`).
			WithParams("config", "spark.sql.streaming.checkpointLocation")
	}
	s, err := buildFileSink(format, env, opts)
	if err != nil {
		return nil, err
	}
	// The commit log lives under the path; a link there must not lead elsewhere.
	if _, err := env.Files.CheckWrite(filepath.Join(s.dir, SinkLogDir)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, sparkerr.New("java.io.IOException", "", "", "Failed to create the output directory "+s.dir+": "+err.Error())
	}
	latest, _, err := LatestSinkLogEpoch(s.dir)
	if err != nil {
		return nil, err
	}
	removeStaged(s.dir)
	s.committed = latest
	return s, nil
}

// buildFileSink reads what streaming and batch file writes share: the path (resolved and
// checked for writing by env.Files; dir is the resolved path), the format's options, and the
// partition and data columns (refusing types the format cannot store).
func buildFileSink(format string, env sinks.Env, opts sinks.Options) (*fileSink, error) {
	path := opts["path"]
	if path == "" {
		return nil, sparkerr.IllegalArgument("'path' is not specified")
	}
	f := fileFormat{name: format, ext: format, sep: ","}
	switch format {
	case "parquet":
		f.ext = "snappy.parquet"
	case "text":
		f.ext = "txt"
	}
	if format == "csv" {
		header, err := opts.BoolOr("header", false)
		if err != nil {
			return nil, err
		}
		f.header = header
		if v, ok := opts["sep"]; ok {
			f.sep = v
		} else if v, ok := opts["delimiter"]; ok {
			f.sep = v
		}
		if f.sep == `\t` {
			f.sep = "\t"
		}
		if len([]rune(f.sep)) != 1 {
			return nil, sparkerr.IllegalArgument("Delimiter cannot be more than one character: %s", f.sep)
		}
	}
	parts, err := partitionColumns(env.Schema, env.PartitionBy)
	if err != nil {
		return nil, err
	}
	var data sqltypes.Schema
	var dataCols []int
	for i, c := range env.Schema {
		if !slices.Contains(parts, i) {
			data = append(data, c)
			dataCols = append(dataCols, i)
		}
	}
	if err := f.checkWritable(data); err != nil {
		return nil, err
	}
	dir, err := env.Files.CheckWrite(path)
	if err != nil {
		return nil, err
	}
	if env.TimeZone == "" {
		env.TimeZone = "UTC"
	}
	return &fileSink{format: f, path: path, dir: dir, env: env, parts: parts, data: data, dataCols: dataCols,
		committed: -1, pending: map[int64]*pendingEpoch{}}, nil
}

// Description implements Sink (Spark's FileStreamSink toString).
func (s *fileSink) Description() string { return "FileSink[" + s.path + "]" }

// Parallelism implements Sink: every upstream partition writes its own files.
func (s *fileSink) Parallelism(upstream int) int { return max(1, upstream) }

// OutputRows implements Sink.
func (s *fileSink) OutputRows() int64 { return s.written.Take() }

// NewOperator implements Sink.
func (s *fileSink) NewOperator(env flow.Env) (flow.Operator, error) {
	return &fileOperator{sink: s, env: env}, nil
}

// isCommitted reports whether epoch is in the log already.
func (s *fileSink) isCommitted(epoch int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return epoch <= s.committed
}

// arrive records a partition's files of epoch; the last of partitions commits the epoch.
func (s *fileSink) arrive(epoch int64, files []SinkFileStatus, rows int64, partitions int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if epoch <= s.committed {
		return nil
	}
	p := s.pending[epoch]
	if p == nil {
		p = &pendingEpoch{}
		s.pending[epoch] = p
	}
	p.files = append(p.files, files...)
	p.rows += rows
	p.arrived++
	if p.arrived < partitions {
		return nil
	}
	delete(s.pending, epoch)
	if s.batch {
		s.committed, s.files = epoch, s.files+len(p.files)
		s.written.Add(p.rows)
		return nil
	}
	wrote, err := WriteSinkLog(s.dir, epoch, p.files)
	if err != nil {
		return err
	}
	s.committed = epoch
	if wrote {
		s.written.Add(p.rows)
	}
	return nil
}

// fileOperator is one sink partition: it streams the open epoch's rows into staging files,
// one per partition directory ("" when the sink is not partitioned).
type fileOperator struct {
	sink  *fileSink
	env   flow.Env
	cur   map[string]*stagedFile
	order []string // cur's directories in the order they were opened
}

// stagedFile is a hidden file being written.
type stagedFile struct {
	dir  string // the directory the part file goes to
	path string
	f    *os.File
	w    formatWriter
	rows int64
}

// staged returns the staging file of partition directory rel, creating it.
func (o *fileOperator) staged(rel string) (*stagedFile, error) {
	if cur := o.cur[rel]; cur != nil {
		return cur, nil
	}
	dir := filepath.Join(o.sink.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, sparkerr.New("java.io.IOException", "", "", "Failed to create the output directory "+dir+": "+err.Error())
	}
	path := filepath.Join(dir, ".part-"+sources.RandomID()+"."+o.sink.format.ext+".tmp")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, sparkerr.New("java.io.IOException", "", "", "Failed to create "+path+": "+err.Error())
	}
	w, err := o.sink.format.newWriter(f, o.env.Mem, o.sink.data, o.sink.env.TimeZone)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if o.cur == nil {
		o.cur = map[string]*stagedFile{}
	}
	cur := &stagedFile{dir: dir, path: path, f: f, w: w}
	o.cur[rel] = cur
	o.order = append(o.order, rel)
	return cur, nil
}

// Process implements flow.Operator.
func (o *fileOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	user := flow.UserColumns(rec)
	defer user.Release()
	if len(o.sink.parts) == 0 {
		return o.write("", user)
	}
	groups, order := o.sink.partitionRows(user)
	for _, rel := range order {
		sub, err := o.sink.dataRows(o.env.Mem, user, groups[rel])
		if err != nil {
			return err
		}
		err = o.write(rel, sub)
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// write appends rec (the files' columns) to the staging file of directory rel.
func (o *fileOperator) write(rel string, rec arrow.RecordBatch) error {
	cur, err := o.staged(rel)
	if err != nil {
		return err
	}
	if err := cur.w.write(rec); err != nil {
		return sparkerr.New("java.io.IOException", "", "", "Failed to write "+cur.path+": "+err.Error())
	}
	cur.rows += rec.NumRows()
	return nil
}

// Barrier implements flow.BarrierHandler.
func (o *fileOperator) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	if o.sink.isCommitted(epoch) {
		o.discard()
		return nil
	}
	var statuses []SinkFileStatus
	var rows int64
	order := o.order
	staged := o.cur
	o.cur, o.order = nil, nil
	for n, rel := range order {
		cur := staged[rel]
		final, err := o.finish(cur, epoch)
		if err != nil {
			for _, rest := range order[n+1:] {
				discardStaged(staged[rest])
			}
			return err
		}
		info, err := os.Stat(final)
		if err != nil {
			return sparkerr.New("java.io.IOException", "", "", "Failed to stat "+final+": "+err.Error())
		}
		statuses = append(statuses, NewSinkFileStatus(final, info))
		rows += cur.rows
	}
	return o.sink.arrive(epoch, statuses, rows, o.env.Partitions)
}

// finish completes a staged file and renames it to its part file name.
func (o *fileOperator) finish(cur *stagedFile, epoch int64) (string, error) {
	fail := func(what string, err error) (string, error) {
		cur.f.Close()
		os.Remove(cur.path)
		return "", sparkerr.New("java.io.IOException", "", "", "Failed to "+what+" "+cur.path+": "+err.Error())
	}
	if err := cur.w.close(); err != nil {
		return fail("finish", err)
	}
	if err := cur.f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := cur.f.Close(); err != nil {
		return fail("close", err)
	}
	name := fmt.Sprintf("part-%05d-%05d-%s.%s", epoch, o.env.Partition, sources.RandomID(), o.sink.format.ext)
	if o.sink.batch {
		name = batchFileName(o.env.Partition, o.sink.jobID, o.sink.format.ext)
	}
	final := filepath.Join(cur.dir, name)
	if err := os.Rename(cur.path, final); err != nil {
		os.Remove(cur.path)
		return "", sparkerr.New("java.io.IOException", "", "", "Failed to rename "+cur.path+": "+err.Error())
	}
	return final, nil
}

// discard drops the staged files (rows of an epoch already committed, or after the last
// barrier).
func (o *fileOperator) discard() {
	for _, rel := range o.order {
		discardStaged(o.cur[rel])
	}
	o.cur, o.order = nil, nil
}

func discardStaged(cur *stagedFile) {
	_ = cur.w.close()
	cur.f.Close()
	os.Remove(cur.path)
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch.
func (o *fileOperator) EndOfData(context.Context, flow.Emitter) error {
	o.discard()
	return nil
}

// Close implements flow.Closer.
func (o *fileOperator) Close() { o.discard() }

// removeStaged deletes staging files a previous run left behind when it crashed mid-epoch
// (readers ignore them; this only reclaims the space), in the output directory, its partition
// directories and the log directory. Part files without a log entry stay: they may be a
// concurrent reader's business, and are never read.
func removeStaged(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && name != SinkLogDir && (strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") {
			os.Remove(path)
		}
		return nil
	})
}
