package files

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// SinkLogDir is the file sink's commit log directory under the output path (Spark's
// FileStreamSink metadata directory).
const SinkLogDir = "_spark_metadata"

// SinkLogCompactInterval is spark.sql.streaming.fileSink.log.compactInterval's default: every
// tenth epoch's entry (epoch+1 divisible by it) is a compaction holding all files so far, named
// "<epoch>.compact", which Spark's readers require.
const SinkLogCompactInterval = 10

// SinkFileStatus is one line of a commit log entry (Spark's SinkFileStatus, JSON fields in its
// order).
type SinkFileStatus struct {
	Path             string `json:"path"`
	Size             int64  `json:"size"`
	IsDir            bool   `json:"isDir"`
	ModificationTime int64  `json:"modificationTime"`
	BlockReplication int    `json:"blockReplication"`
	BlockSize        int64  `json:"blockSize"`
	Action           string `json:"action"`
}

// Sink log actions.
const (
	SinkLogAdd    = "add"
	SinkLogDelete = "delete"
)

const sinkLogVersion = "v1"

// Java exception classes of file I/O failures.
const (
	javaIOException  = "java.io.IOException"
	javaIllegalState = "java.lang.IllegalStateException"
)

// NewSinkFileStatus describes a written file for the log (the path as a file URI).
func NewSinkFileStatus(path string, info os.FileInfo) SinkFileStatus {
	return SinkFileStatus{Path: FileURI(path), Size: info.Size(), ModificationTime: info.ModTime().UnixMilli(),
		BlockReplication: 1, BlockSize: 32 << 20, Action: SinkLogAdd}
}

// FileURI is an absolute local path as a file URI ("file:///tmp/out/part-0.parquet").
func FileURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// LocalPath turns a file URI ("file:/x", "file:///x") or a plain path into a local path
// (fileaccess.LocalPath: the policy reads URIs the same way).
func LocalPath(uri string) string { return fileaccess.LocalPath(uri) }

// sinkLogName is an epoch's entry file name.
func sinkLogName(epoch int64) string {
	if (epoch+1)%SinkLogCompactInterval == 0 {
		return strconv.FormatInt(epoch, 10) + ".compact"
	}
	return strconv.FormatInt(epoch, 10)
}

// sinkLogEpochs lists the epochs with a log entry under dir, ascending, with whether each is a
// compaction. ok is false when dir has no log directory.
func sinkLogEpochs(dir string) (epochs []int64, compact map[int64]bool, ok bool, err error) {
	entries, err := os.ReadDir(filepath.Join(dir, SinkLogDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fileError("read the commit log of", dir, err)
	}
	compact = map[int64]bool{}
	for _, e := range entries {
		name, isCompact := strings.CutSuffix(e.Name(), ".compact")
		n, perr := strconv.ParseInt(name, 10, 64)
		if perr != nil || e.IsDir() || n < 0 {
			continue
		}
		epochs = append(epochs, n)
		compact[n] = isCompact
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
	return epochs, compact, true, nil
}

// LatestSinkLogEpoch is the newest committed epoch of the file sink writing to dir.
func LatestSinkLogEpoch(dir string) (int64, bool, error) {
	epochs, _, _, err := sinkLogEpochs(dir)
	if err != nil || len(epochs) == 0 {
		return -1, false, err
	}
	return epochs[len(epochs)-1], true, nil
}

// HasSinkLog reports whether dir was written by a file sink (has a commit log directory).
func HasSinkLog(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, SinkLogDir))
	return err == nil && st.IsDir()
}

// ReadSinkLog returns the files the commit log of dir lists as committed (adds not deleted),
// in log order, read from the newest compaction on as Spark's readers do. ok is false when dir
// has no log.
func ReadSinkLog(dir string) (files []SinkFileStatus, ok bool, err error) {
	epochs, compact, ok, err := sinkLogEpochs(dir)
	if err != nil || !ok {
		return nil, ok, err
	}
	from := 0
	for i, e := range epochs {
		if compact[e] {
			from = i
		}
	}
	var all []SinkFileStatus
	for _, e := range epochs[from:] {
		name := strconv.FormatInt(e, 10)
		if compact[e] {
			name += ".compact"
		}
		entry, err := readSinkLogEntry(filepath.Join(dir, SinkLogDir, name))
		if err != nil {
			return nil, true, err
		}
		all = append(all, entry...)
	}
	deleted := map[string]bool{}
	for _, f := range all {
		if f.Action == SinkLogDelete {
			deleted[f.Path] = true
		}
	}
	for _, f := range all {
		if f.Action == SinkLogAdd && !deleted[f.Path] && !f.IsDir {
			files = append(files, f)
		}
	}
	return files, true, nil
}

func readSinkLogEntry(path string) ([]SinkFileStatus, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError("read the commit log entry", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != sinkLogVersion {
		return nil, sparkerr.New(javaIllegalState, "", "",
			"Log file was malformed: failed to detect the log file version line in "+path)
	}
	var out []SinkFileStatus
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var f SinkFileStatus
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			return nil, sparkerr.New(javaIllegalState, "", "", "Log file was malformed: "+path).Wrap(err)
		}
		out = append(out, f)
	}
	return out, nil
}

// WriteSinkLog commits epoch's files to dir's commit log atomically (a temp file linked into
// place, so a reader sees the whole entry or none). A compaction epoch's entry also lists every
// earlier committed file. It returns false without writing if the epoch is already committed.
func WriteSinkLog(dir string, epoch int64, files []SinkFileStatus) (bool, error) {
	logDir := filepath.Join(dir, SinkLogDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return false, fileError("create the commit log directory", logDir, err)
	}
	if latest, ok, err := LatestSinkLogEpoch(dir); err != nil {
		return false, err
	} else if ok && latest >= epoch {
		return false, nil
	}
	entry := files
	if (epoch+1)%SinkLogCompactInterval == 0 {
		before, _, err := ReadSinkLog(dir)
		if err != nil {
			return false, err
		}
		entry = append(before, files...)
	}
	var buf bytes.Buffer
	buf.WriteString(sinkLogVersion)
	for _, f := range entry {
		line, err := json.Marshal(f)
		if err != nil {
			return false, sparkerr.Internal("encode a commit log line: %v", err)
		}
		buf.WriteByte('\n')
		buf.Write(line)
	}
	tmp := filepath.Join(logDir, "."+sinkLogName(epoch)+"."+sources.RandomID()+".tmp")
	if err := writeFileSynced(tmp, buf.Bytes()); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	final := filepath.Join(logDir, sinkLogName(epoch))
	if err := os.Link(tmp, final); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fileError("commit the log entry", final, err)
	}
	return true, nil
}

// writeFileSynced writes data to path and syncs it.
func writeFileSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fileError("create", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fileError("write", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fileError("sync", path, err)
	}
	if err := f.Close(); err != nil {
		return fileError("close", path, err)
	}
	return nil
}

// fileError is an I/O failure on a path, as Spark's IOExceptions surface.
func fileError(what, path string, err error) *sparkerr.Error {
	return sparkerr.New(javaIOException, "", "", "Failed to "+what+" "+path+": "+err.Error()).Wrap(err)
}
