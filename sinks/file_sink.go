package sinks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

func init() {
	for _, name := range []string{"parquet", "json", "csv"} {
		format := name
		Register(format, func(env Env, options map[string]string) (Sink, error) {
			return newFileSink(format, env, options)
		}, Append)
	}
}

// fileSink writes each epoch's rows as files under a directory, exactly once: every sink
// partition writes its rows of the epoch to a hidden staging file, renamed at the barrier to
// part-<epoch>-<partition>-<uuid>.<ext>; the last partition to reach the barrier commits the
// epoch by writing its entry of the commit log (<path>/_spark_metadata/<epoch>, Spark's
// FileStreamSinkLog format). Readers (Weir's file source and batch reads, Spark) read only
// files the log lists, so files of an epoch that failed before its commit are never seen. An
// epoch the log already holds (a replay after recovery) writes nothing.
type fileSink struct {
	format  fileFormat
	path    string // as the user gave it (the description)
	dir     string // absolute
	env     Env
	written rowCounter

	mu        sync.Mutex
	committed int64 // newest epoch in the log, -1 if none
	pending   map[int64]*pendingEpoch
}

// pendingEpoch collects the partitions' files of an epoch until all reached its barrier.
type pendingEpoch struct {
	files   []sources.SinkFileStatus
	rows    int64
	arrived int
}

func newFileSink(format string, env Env, options map[string]string) (Sink, error) {
	opts := newSinkOptions(options)
	if opts["checkpointlocation"] == "" {
		return nil, sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "",
			`checkpointLocation must be specified either through option("checkpointLocation", ...) or `+
				`SparkSession.conf.set("spark.sql.streaming.checkpointLocation", ...)`).
			WithParams("config", "spark.sql.streaming.checkpointLocation")
	}
	path := opts["path"]
	if path == "" {
		return nil, sparkerr.IllegalArgument("'path' is not specified")
	}
	f := fileFormat{name: format, ext: format, sep: ","}
	if format == "parquet" {
		f.ext = "snappy.parquet"
	}
	if format == "csv" {
		header, err := opts.boolOr("header", false)
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
	if err := f.checkWritable(env.Schema); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(path)
	if err != nil {
		return nil, sparkerr.IllegalArgument("Invalid path %s", path).Wrap(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, sparkerr.New("java.io.IOException", "", "", "Failed to create the output directory "+dir+": "+err.Error())
	}
	latest, _, err := sources.LatestSinkLogEpoch(dir)
	if err != nil {
		return nil, err
	}
	removeStaged(dir)
	if env.TimeZone == "" {
		env.TimeZone = "UTC"
	}
	return &fileSink{format: f, path: path, dir: dir, env: env, committed: latest, pending: map[int64]*pendingEpoch{}}, nil
}

// Description implements Sink (Spark's FileStreamSink toString).
func (s *fileSink) Description() string { return "FileSink[" + s.path + "]" }

// Parallelism implements Sink: every upstream partition writes its own files.
func (s *fileSink) Parallelism(upstream int) int { return max(1, upstream) }

// OutputRows implements Sink.
func (s *fileSink) OutputRows() int64 { return s.written.take() }

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
func (s *fileSink) arrive(epoch int64, file *sources.SinkFileStatus, rows int64, partitions int) error {
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
	if file != nil {
		p.files = append(p.files, *file)
	}
	p.rows += rows
	p.arrived++
	if p.arrived < partitions {
		return nil
	}
	delete(s.pending, epoch)
	wrote, err := sources.WriteSinkLog(s.dir, epoch, p.files)
	if err != nil {
		return err
	}
	s.committed = epoch
	if wrote {
		s.written.add(p.rows)
	}
	return nil
}

// fileOperator is one sink partition: it streams the open epoch's rows into a staging file.
type fileOperator struct {
	sink *fileSink
	env  flow.Env
	cur  *stagedFile
}

// stagedFile is a hidden file being written.
type stagedFile struct {
	path string
	f    *os.File
	w    formatWriter
	rows int64
}

// Process implements flow.Operator.
func (o *fileOperator) Process(_ context.Context, _ int, rec arrow.RecordBatch, _ flow.Emitter) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if o.cur == nil {
		path := filepath.Join(o.sink.dir, ".part-"+sources.RandomID()+"."+o.sink.format.ext+".tmp")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return sparkerr.New("java.io.IOException", "", "", "Failed to create "+path+": "+err.Error())
		}
		w, err := o.sink.format.newWriter(f, o.env.Mem, o.sink.env.Schema, o.sink.env.TimeZone)
		if err != nil {
			f.Close()
			os.Remove(path)
			return err
		}
		o.cur = &stagedFile{path: path, f: f, w: w}
	}
	user := flow.UserColumns(rec)
	defer user.Release()
	if err := o.cur.w.write(user); err != nil {
		return sparkerr.New("java.io.IOException", "", "", "Failed to write "+o.cur.path+": "+err.Error())
	}
	o.cur.rows += rec.NumRows()
	return nil
}

// Barrier implements flow.BarrierHandler.
func (o *fileOperator) Barrier(_ context.Context, epoch int64, _ flow.Emitter) error {
	if o.sink.isCommitted(epoch) {
		o.discard()
		return nil
	}
	var status *sources.SinkFileStatus
	var rows int64
	if cur := o.cur; cur != nil {
		o.cur = nil
		final, err := o.finish(cur, epoch)
		if err != nil {
			return err
		}
		info, err := os.Stat(final)
		if err != nil {
			return sparkerr.New("java.io.IOException", "", "", "Failed to stat "+final+": "+err.Error())
		}
		st := sources.NewSinkFileStatus(final, info)
		status, rows = &st, cur.rows
	}
	return o.sink.arrive(epoch, status, rows, o.env.Partitions)
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
	final := filepath.Join(o.sink.dir, name)
	if err := os.Rename(cur.path, final); err != nil {
		os.Remove(cur.path)
		return "", sparkerr.New("java.io.IOException", "", "", "Failed to rename "+cur.path+": "+err.Error())
	}
	return final, nil
}

// discard drops the staged file (rows of an epoch already committed, or after the last
// barrier).
func (o *fileOperator) discard() {
	if o.cur == nil {
		return
	}
	_ = o.cur.w.close()
	o.cur.f.Close()
	os.Remove(o.cur.path)
	o.cur = nil
}

// EndOfData implements flow.EndOfDataHandler: rows after the last barrier belong to no epoch.
func (o *fileOperator) EndOfData(context.Context, flow.Emitter) error {
	o.discard()
	return nil
}

// Close implements flow.Closer.
func (o *fileOperator) Close() { o.discard() }

// removeStaged deletes staging files a previous run left behind when it crashed mid-epoch
// (readers ignore them; this only reclaims the space). Part files without a log entry stay:
// they may be a concurrent reader's business, and are never read.
func removeStaged(dir string) {
	for _, pattern := range []string{filepath.Join(dir, ".part-*.tmp"), filepath.Join(dir, sources.SinkLogDir, ".*.tmp")} {
		matches, _ := filepath.Glob(pattern)
		for _, m := range matches {
			os.Remove(m)
		}
	}
}
