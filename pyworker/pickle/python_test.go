package pickle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testPython is the venv interpreter with PySpark: $WEIR_TEST_PYTHON or <repo>/.venv/bin/python
// (scripts/test.sh installs it before the Go tests). Its absence fails the test: these tests are
// the proof that the codec matches the installed PySpark.
func testPython(t *testing.T) string {
	t.Helper()
	p := os.Getenv("WEIR_TEST_PYTHON")
	if p == "" {
		abs, err := filepath.Abs("../../.venv/bin/python")
		if err != nil {
			t.Fatal(err)
		}
		p = abs
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no Python with PySpark at %s (%v): run scripts/test.sh's venv step or set WEIR_TEST_PYTHON", p, err)
	}
	return p
}

// runPython runs script with stdin and returns its stdout; TZ is UTC so PySpark's local-time
// conversions are deterministic.
func runPython(t *testing.T, script string, stdin []byte) string {
	t.Helper()
	cmd := exec.Command(testPython(t), "-c", script)
	cmd.Env = append(os.Environ(), "TZ=UTC", "PYTHONHASHSEED=0")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, errb.String())
	}
	return strings.TrimRight(out.String(), "\n")
}
