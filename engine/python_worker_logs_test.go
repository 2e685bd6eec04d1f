package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	sqltypes "github.com/weirhq/weir/sql/types"
)

func TestWorkerLogWriterKeepsRecordsAndPassesOutput(t *testing.T) {
	var out strings.Builder
	var rows [][]any
	w := &workerLogWriter{out: &out, keep: func(r []any) { rows = append(rows, r) }}
	rec := `PYTHON_WORKER_LOGGING:42:{"ts": "2026-12-02 14:16:30.475689+0000", "level": "WARNING", "logger": "mylog", ` +
		`"msg": "hello 0", "context": {"func_name": "warning", "class_name": "Logger", "n": 1}}` + "\n"
	// A record cut across writes, a plain print, a partial plain line and a task's end marker.
	for _, p := range []string{rec[:30], rec[30:], "plain line\n", "no newline", "PYTHON_WORKER_LOGGING:42:\n"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if out.String() != "plain line\nno newline" {
		t.Errorf("passed on %q", out.String())
	}
	if len(rows) != 1 {
		t.Fatalf("kept %d rows: %v", len(rows), rows)
	}
	r := rows[0]
	ts := time.Date(2026, 12, 2, 14, 16, 30, 475689000, time.UTC).UnixMicro()
	m := r[3].(*sqltypes.MapValue)
	if r[0] != ts || r[1] != "WARNING" || r[2] != "hello 0" || r[4] != nil || r[5] != "mylog" ||
		fmt.Sprint(m.Keys, m.Values) != "[func_name class_name n] [warning Logger 1]" {
		t.Errorf("row %v (context %v %v)", r, m.Keys, m.Values)
	}
}

func TestPythonLogRowException(t *testing.T) {
	r, ok := pythonLogRow([]byte(`{"ts": "2026-12-02 14:16:30.000001+0100", "level": "ERROR", "logger": "exc", "msg": "boom",` +
		` "context": {}, "exception": {"class": "ZeroDivisionError", "msg": "division by zero",` +
		` "stacktrace": [{"class": null, "method": "f", "file": "<stdin>", "line": "7"}]}}`))
	if !ok {
		t.Fatal("not a record")
	}
	want := fmt.Sprint([]any{"ZeroDivisionError", "division by zero", []any{[]any{nil, "f", "<stdin>", "7"}}})
	if fmt.Sprint(r[4]) != want || r[0] != time.Date(2026, 12, 2, 13, 16, 30, 1000, time.UTC).UnixMicro() {
		t.Errorf("row %v", r)
	}
	if _, ok := pythonLogRow([]byte("not json")); ok {
		t.Error("a broken record was read")
	}
}

func TestPythonWorkerLogsKeepTheNewest(t *testing.T) {
	var l pythonWorkerLogs
	for i := range maxPythonWorkerLogs + 5 {
		l.add([]any{i})
	}
	rows := l.snapshot()
	if len(rows) != maxPythonWorkerLogs || rows[0][0] != 5 || rows[len(rows)-1][0] != maxPythonWorkerLogs+4 {
		t.Errorf("kept %d rows from %v to %v", len(rows), rows[0], rows[len(rows)-1])
	}
}
