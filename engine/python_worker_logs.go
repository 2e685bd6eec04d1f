package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/weirhq/weir/pyworker"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Python worker logging (Spark 4.2's spark.sql.pyspark.worker.logging.enabled): the session's
// workers run with PYSPARK_SPARK_SESSION_UUID set, so PySpark's worker_io writes every logging
// record, print and stderr write of a task to the worker's stdout as a line
// "PYTHON_WORKER_LOGGING:<pid>:<JSON record>" (an empty record ends a task's output). The daemon's
// stdout goes through workerLogWriter, which keeps those records, while the setting is on, for
// python_worker_logs(), and passes every other line to the server's stderr. The session keeps
// the newest maxPythonWorkerLogs records.

// PythonWorkerLoggingConf turns the capture of the Python workers' logs on.
const PythonWorkerLoggingConf = "spark.sql.pyspark.worker.logging.enabled"

const (
	pythonLogMarker     = "PYTHON_WORKER_LOGGING:"
	maxPythonWorkerLogs = 10000
	// maxPythonLogLine bounds a line held while it is incomplete.
	maxPythonLogLine = 1 << 20
)

// pythonWorkerLogs are a session's captured records, as python_worker_logs() rows.
type pythonWorkerLogs struct {
	mu   sync.Mutex
	rows [][]any
}

func (l *pythonWorkerLogs) add(row []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.rows) == maxPythonWorkerLogs {
		l.rows = l.rows[1:] // append moves the rest to a new array when this one is full
	}
	l.rows = append(l.rows, row)
}

func (l *pythonWorkerLogs) snapshot() [][]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]any(nil), l.rows...)
}

// pythonWorkerLogsOption is expr.Options.PythonWorkerLogs: the session's records while the
// setting is on.
func (s *Session) pythonWorkerLogsOption() func() [][]any {
	if !s.conf.Bool(PythonWorkerLoggingConf, false) {
		return nil
	}
	return s.python.logs.snapshot
}

// loggingPool adds to cfg what captures the workers' log records for the session.
func (s *Session) loggingPool(cfg pyworker.PoolConfig) pyworker.PoolConfig {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	cfg.Env = append(cfg.Env, "PYSPARK_SPARK_SESSION_UUID="+hex.EncodeToString(id))
	cfg.Stdout = &workerLogWriter{out: os.Stderr, keep: func(row []any) {
		if s.conf.Bool(PythonWorkerLoggingConf, false) {
			s.python.logs.add(row)
		}
	}}
	return cfg
}

// workerLogWriter splits the workers' stdout into lines: log records go to keep, other lines
// to out.
type workerLogWriter struct {
	out  io.Writer
	keep func(row []any)
	mu   sync.Mutex
	buf  []byte
}

func (w *workerLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i+1])
		w.buf = w.buf[i+1:]
	}
	// A partial line that cannot be a record is passed on at once; a record waits for its end.
	n := min(len(w.buf), len(pythonLogMarker))
	if len(w.buf) > 0 && (string(w.buf[:n]) != pythonLogMarker[:n] || len(w.buf) > maxPythonLogLine) {
		w.line(w.buf)
		w.buf = w.buf[:0]
	}
	if len(w.buf) == 0 {
		w.buf = nil
	}
	return len(p), nil
}

func (w *workerLogWriter) line(l []byte) {
	rest, ok := bytes.CutPrefix(l, []byte(pythonLogMarker))
	if !ok {
		_, _ = w.out.Write(l)
		return
	}
	_, record, _ := bytes.Cut(rest, []byte(":")) // the pid
	if record = bytes.TrimSpace(record); len(record) == 0 {
		return // the end of a task's output
	}
	if row, ok := pythonLogRow(record); ok {
		w.keep(row)
	}
}

// pythonLogRecord is PySpark's JSONFormatter output.
type pythonLogRecord struct {
	TS        string          `json:"ts"`
	Level     *string         `json:"level"`
	Logger    *string         `json:"logger"`
	Msg       *string         `json:"msg"`
	Context   json.RawMessage `json:"context"`
	Exception *struct {
		Class      *string `json:"class"`
		Msg        *string `json:"msg"`
		Stacktrace []struct {
			Class  *string `json:"class"`
			Method *string `json:"method"`
			File   *string `json:"file"`
			Line   *string `json:"line"`
		} `json:"stacktrace"`
	} `json:"exception"`
}

// pythonLogRow turns a JSON record into a python_worker_logs() row.
func pythonLogRow(record []byte) ([]any, bool) {
	var r pythonLogRecord
	if err := json.Unmarshal(record, &r); err != nil {
		return nil, false
	}
	var ts any
	if t, err := time.Parse("2006-01-02 15:04:05.000000-0700", r.TS); err == nil {
		ts = t.UnixMicro()
	}
	ctx, ok := pythonLogContext(r.Context)
	if !ok {
		return nil, false
	}
	var exc any
	if e := r.Exception; e != nil {
		frames := make([]any, len(e.Stacktrace))
		for i, f := range e.Stacktrace {
			frames[i] = []any{str(f.Class), str(f.Method), str(f.File), str(f.Line)}
		}
		exc = []any{str(e.Class), str(e.Msg), frames}
	}
	return []any{ts, str(r.Level), str(r.Msg), ctx, exc, str(r.Logger)}, true
}

// pythonLogContext reads the record's context object as a map in the record's key order
// (Spark's JSON reader keeps it); null or absent is NULL.
func pythonLogContext(raw json.RawMessage) (any, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	m := &sqltypes.MapValue{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		var val any = string(v) // a number or object as its JSON text
		var s *string
		if json.Unmarshal(v, &s) == nil {
			val = str(s)
		}
		m.Keys, m.Values = append(m.Keys, k), append(m.Values, val)
	}
	return m, true
}

// str is a JSON string or null as a row value.
func str(s *string) any {
	if s == nil {
		return nil
	}
	return strings.Clone(*s)
}
