package pyworker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestParsePySparkVersion(t *testing.T) {
	for in, want := range map[string]PySparkVersion{
		"3.5.9":       {3, 5, 9},
		"4.2.0\n":     {4, 2, 0},
		"4.3.0.dev1":  {4, 3, 0},
		"4.1.0rc2":    {4, 1, 0},
		"4.0":         {4, 0, 0},
		"10.12.13.14": {10, 12, 13},
	} {
		got, err := ParsePySparkVersion(in)
		if err != nil || got != want {
			t.Errorf("ParsePySparkVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "4", "x.y.z", "4.x.0"} {
		if v, err := ParsePySparkVersion(in); err == nil {
			t.Errorf("ParsePySparkVersion(%q) = %v, want an error", in, v)
		}
	}
}

func TestPySparkVersionAtLeast(t *testing.T) {
	v := PySparkVersion{4, 3, 0}
	for _, c := range []struct {
		major, minor int
		want         bool
	}{{3, 5, true}, {4, 2, true}, {4, 3, true}, {4, 4, false}, {5, 0, false}} {
		if got := v.AtLeast(c.major, c.minor); got != c.want {
			t.Errorf("%v.AtLeast(%d, %d) = %t", v, c.major, c.minor, got)
		}
	}
}

// TestInterpreterPySpark runs the probe with the real interpreter on a fake pyspark package
// (only version.py, which the probe reads without importing the package).
func TestInterpreterPySpark(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pyspark")
	if err := os.Mkdir(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	// An __init__ that fails shows the package is not imported.
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte("raise SystemExit('imported')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "version.py"), []byte("__version__: str = \"3.5.9\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A wrapper per test keeps the cache (keyed by interpreter path) from answering.
	python := filepath.Join(dir, "python")
	script := "#!/bin/sh\nPYTHONPATH=" + dir + " exec python3 \"$@\"\n"
	if err := os.WriteFile(python, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := InterpreterPySpark(context.Background(), python)
	if err != nil || v != (PySparkVersion{3, 5, 9}) {
		t.Fatalf("InterpreterPySpark = %v, %v; want 3.5.9", v, err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "version.py"), []byte("__version__ = \"4.0.0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, _ := InterpreterPySpark(context.Background(), python); v != (PySparkVersion{3, 5, 9}) {
		t.Fatalf("second probe = %v, want the remembered 3.5.9", v)
	}

	none := filepath.Join(dir, "nopyspark")
	if err := os.WriteFile(none, []byte("#!/bin/sh\necho 'No module named pyspark' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := InterpreterPySpark(context.Background(), none); err == nil {
		t.Fatalf("an interpreter without pyspark answered %v", v)
	}
}
