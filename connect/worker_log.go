package connect

import (
	"bytes"
	"io"
	"log/slog"
	"sync"
)

// workerLog is a Python worker's stdout and stderr: each line goes to the server's log (Spark
// logs its workers' output the same way), attributed to the worker's kind and session.
type workerLog struct {
	mu      sync.Mutex
	logger  *slog.Logger
	partial []byte
}

// maxWorkerLogLine bounds a line kept while waiting for its newline.
const maxWorkerLogLine = 64 << 10

func newWorkerLog(logger *slog.Logger, kind, sessionID string) io.Writer {
	return &workerLog{logger: logger.With("python_worker", kind, "session", sessionID)}
}

// Write implements io.Writer.
func (l *workerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			if len(l.partial) > maxWorkerLogLine {
				l.flush()
			}
			break
		}
		l.partial = append(l.partial, p[:i]...)
		l.flush()
		p = p[i+1:]
	}
	return n, nil
}

func (l *workerLog) flush() {
	l.logger.Info(string(l.partial))
	l.partial = l.partial[:0]
}
