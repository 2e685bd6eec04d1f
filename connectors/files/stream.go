package files

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/benbjohnson/clock"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fileOffset is a file source's offset: the index of the last batch of files in its file log
// (-1 before any), as Spark's FileStreamSourceOffset.
type fileOffset struct {
	LogOffset int64 `json:"logOffset"`
}

func encodeFileOffset(n int64) sources.Offset {
	b, _ := json.Marshal(fileOffset{LogOffset: n})
	return b
}

func decodeFileOffset(o sources.Offset) (int64, error) {
	if len(o) == 0 {
		return -1, nil
	}
	var f fileOffset
	if err := json.Unmarshal(o, &f); err != nil {
		return 0, sparkerr.IllegalArgument("Invalid file source offset %s", string(o)).Wrap(err)
	}
	return f.LogOffset, nil
}

// fileStream is the streaming file source: each Latest lists the directory and appends the
// settled files not seen before (settle.go: unchanged for settleAfter, so not being written) as
// a new batch of its file log (at most maxFilesPerTrigger beyond the last batch read); an epoch
// (start, end] reads the files of batches start+1..end, spread over the partitions
// round-robin. The log persists through StreamEnv.Metadata, so a restarted query reads the
// same files for a replayed epoch. LatestAndAvailable (the data available for Trigger.Once and
// processAllAvailable) and PrepareAvailableNow (Trigger.AvailableNow) log all the files not
// seen before at once, in batches of at most maxFilesPerTrigger, first waiting for the files
// listed unsettled to settle (logAvailable): a file written before the call is read by it.
type fileStream struct {
	opts   fileOptions
	schema sqltypes.Schema
	reader *fileReader
	parts  int
	meta   sources.MetadataStore
	files  *fileaccess.Policy
	settle *settler

	mu      sync.Mutex
	batches [][]dataFile // the file log: batch i's files
	seen    map[string]bool
	// read is the highest end offset Read was called with (-1: none; after a restart, the last
	// logged batch): where Latest, which is not told where the next epoch starts, takes it to.
	read int64
	// availableNow: PrepareAvailableNow logged the files of Trigger.AvailableNow's target;
	// Latest lists the directory no more.
	availableNow bool
	// unlogged is how many files the last listing found not seen before and left out of the
	// log (past maxFilesPerTrigger, or still settling): pending beyond the logged batches.
	unlogged int
}

func openFileStream(_ context.Context, format string, env sources.StreamEnv, options map[string]string, userSchema string) (sources.StreamSource, error) {
	schema, o, err := streamFileSchema(format, options, userSchema)
	if err != nil {
		return nil, err
	}
	if o.path, err = env.Files.CheckRead(o.path); err != nil {
		return nil, err
	}
	clk := env.Clock
	if clk == nil {
		clk = clock.New()
	}
	s := &fileStream{opts: o, schema: schema, reader: newFileReader(env.Mem, o, schema, env.TimeZone, env.MaxLineBytes),
		parts: max(1, env.DefaultPartitions), meta: env.Metadata, files: env.Files, settle: newSettler(clk),
		seen: map[string]bool{}, read: -1}
	if s.meta != nil {
		data, ok, err := s.meta.Get()
		if err != nil {
			return nil, err
		}
		if ok {
			if err := json.Unmarshal(data, &s.batches); err != nil {
				return nil, sparkerr.New(javaIllegalState, "", "", "Invalid file source metadata").Wrap(err)
			}
			// The files logged before a restart were handed out already: epochs replayed
			// read them by their logged offsets, new epochs start after them.
			s.read = int64(len(s.batches)) - 1
			for _, b := range s.batches {
				for _, f := range b {
					s.seen[f.Path] = true
				}
			}
		}
	}
	return s, nil
}

// Schema implements StreamSource.
func (s *fileStream) Schema() sqltypes.Schema { return s.schema }

// Partitions implements StreamSource.
func (s *fileStream) Partitions() int { return s.parts }

// Description implements StreamSource (Spark's FileStreamSource toString).
func (s *fileStream) Description() string { return "FileStreamSource[" + FileURI(s.opts.path) + "]" }

// Initial implements StreamSource.
func (s *fileStream) Initial(context.Context) (sources.Offset, error) {
	return encodeFileOffset(-1), nil
}

// Latest implements StreamSource.
func (s *fileStream) Latest(context.Context) (sources.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latestAfter(s.read)
}

// latestAfter is the end of the next epoch, which starts after log batch from. The caller
// holds s.mu.
func (s *fileStream) latestAfter(from int64) (sources.Offset, error) {
	if next, ok := s.nextLogged(from); ok {
		return encodeFileOffset(next), nil
	}
	if !s.availableNow {
		if err := s.logFresh(false); err != nil {
			return nil, err
		}
	}
	return encodeFileOffset(int64(len(s.batches)) - 1), nil
}

// nextLogged is the end of the next epoch, which starts after log batch from, when
// maxFilesPerTrigger is set and the log holds batches after from: a batch holds up to
// maxFilesPerTrigger files, so the next epoch takes one alone. The caller holds s.mu.
func (s *fileStream) nextLogged(from int64) (int64, bool) {
	if s.opts.maxFiles > 0 && int64(len(s.batches))-1 > from {
		return from + 1, true
	}
	return 0, false
}

// LatestFrom implements StartRelative: Latest for an epoch starting at start, which after a
// restart may lie before batches logged (by PrepareAvailableNow or LatestAndAvailable) and not
// read yet; they are still read one per epoch under maxFilesPerTrigger.
func (s *fileStream) LatestFrom(_ context.Context, start sources.Offset) (sources.Offset, error) {
	from, err := decodeFileOffset(start)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latestAfter(from)
}

// LatestAndAvailable implements RateLimited: the files not seen before are logged in batches
// of at most maxFilesPerTrigger (logAvailable: waiting for those still settling); the next
// epoch ends after the first batch not read yet and the data available after the last batch
// (Trigger.Once reads them all in one epoch, as Spark ignores maxFilesPerTrigger under it).
func (s *fileStream) LatestAndAvailable(ctx context.Context, start sources.Offset) (sources.Offset, sources.Offset, error) {
	from, err := decodeFileOffset(start)
	if err != nil {
		return nil, nil, err
	}
	if err := s.logAvailable(ctx); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	last := int64(len(s.batches)) - 1
	next, ok := s.nextLogged(from)
	if !ok {
		next = last
	}
	return encodeFileOffset(next), encodeFileOffset(last), nil
}

// PrepareAvailableNow implements AvailableNow (Spark's FileStreamSource lists every file at
// the start of a Trigger.AvailableNow query): the files not seen before are logged in batches
// of at most maxFilesPerTrigger (logAvailable: waiting for those still settling), the last of
// which is the target; the directory is not listed again.
func (s *fileStream) PrepareAvailableNow(ctx context.Context, _ sources.Offset) (sources.Offset, error) {
	if err := s.logAvailable(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.availableNow = true
	return encodeFileOffset(int64(len(s.batches)) - 1), nil
}

// logAvailable logs every settled file not seen before (logFresh(true)) and, when files were
// listed unsettled, waits until the first of them would settle, lists again, and so on until
// each file first listed unsettled is logged or has changed since (it is being written after
// the call began: not available at it; later listings admit it once settled). Empty files are
// not waited for (they settle only once written). So it waits about settleAfter at most, and
// a file written completely before the call is logged when it returns. Nothing once
// availableNow fixed the target. The caller does not hold s.mu.
func (s *fileStream) logAvailable(ctx context.Context) error {
	var awaited map[string]sighting
	for {
		s.mu.Lock()
		if s.availableNow {
			s.mu.Unlock()
			return nil
		}
		err := s.logFresh(true)
		pending := s.settle.awaited()
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if awaited == nil {
			awaited = pending
		} else {
			for p, was := range awaited {
				if now, ok := pending[p]; !ok || now.size != was.size || now.mtime != was.mtime {
					delete(awaited, p)
				}
			}
		}
		if len(awaited) == 0 {
			return nil
		}
		var first time.Time
		for _, w := range awaited {
			if t := w.settles(); first.IsZero() || t.Before(first) {
				first = t
			}
		}
		if err := s.settle.wait(ctx, first.Sub(s.settle.clock.Now())); err != nil {
			return err
		}
	}
}

// logFresh lists the directory and logs the settled files not seen before (oldest first, or
// newest first with latestFirst): all of them in batches of at most maxFilesPerTrigger when
// all is set, else one batch of at most maxFilesPerTrigger. The files listed unsettled are
// left pending in s.settle. The caller holds s.mu.
func (s *fileStream) logFresh(all bool) error {
	files, err := listDataFiles(s.files, s.opts.path)
	if err != nil {
		return err
	}
	var fresh []dataFile
	for _, f := range files {
		if !s.seen[f.Path] {
			fresh = append(fresh, f)
		}
	}
	unseen := len(fresh)
	s.unlogged = unseen
	fresh = s.settle.split(fresh)
	if s.opts.latestFirst {
		sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].MTime > fresh[j].MTime })
	}
	if len(fresh) == 0 {
		return nil
	}
	size := len(fresh)
	if s.opts.maxFiles > 0 {
		size = s.opts.maxFiles
	}
	if !all {
		fresh = fresh[:min(size, len(fresh))]
	}
	for len(fresh) > 0 {
		n := min(size, len(fresh))
		s.batches = append(s.batches, fresh[:n:n])
		for _, f := range fresh[:n] {
			s.seen[f.Path] = true
		}
		s.unlogged -= n
		fresh = fresh[n:]
	}
	if s.meta == nil {
		return nil
	}
	data, err := json.Marshal(s.batches)
	if err != nil {
		return sparkerr.Internal("encode file source metadata: %v", err)
	}
	return s.meta.Put(data)
}

// Metrics implements sources.ReportsMetrics: numFilesOutstanding (the name Databricks' Auto
// Loader reports) is the files an epoch ending at end left to read: those of the log batches
// after it and those the last listing found but did not log yet.
func (s *fileStream) Metrics(end sources.Offset) map[string]string {
	e, err := decodeFileOffset(end)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	n := s.unlogged
	for _, b := range s.batches[min(max(e+1, 0), int64(len(s.batches))):] {
		n += len(b)
	}
	s.mu.Unlock()
	return map[string]string{"numFilesOutstanding": strconv.Itoa(n)}
}

// Read implements StreamSource.
func (s *fileStream) Read(ctx context.Context, p int, start, end sources.Offset, emit func(arrow.RecordBatch) error) error {
	from, err := decodeFileOffset(start)
	if err != nil {
		return err
	}
	to, err := decodeFileOffset(end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if to >= int64(len(s.batches)) {
		s.mu.Unlock()
		return sparkerr.New(javaIllegalState, "", "", "File source offset "+string(end)+
			" is beyond its file log (the metadata of the source was lost)")
	}
	s.read = max(s.read, to)
	var files []dataFile
	for b := from + 1; b <= to; b++ {
		files = append(files, s.batches[b]...)
	}
	s.mu.Unlock()
	for i := p; i < len(files); i += s.parts {
		if err := s.reader.readFile(ctx, files[i], emit); err != nil {
			return err
		}
	}
	return nil
}

// Close implements StreamSource.
func (s *fileStream) Close() error { return nil }
