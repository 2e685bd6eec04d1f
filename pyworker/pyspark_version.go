package pyworker

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PySparkVersion is the release of the PySpark package an interpreter imports. The server runs
// that package's worker modules, and their socket protocol changed between releases (3.5's
// listener worker answers no status per event; 4.3's foreachBatch worker reads a session id per
// batch), so the server speaks the protocol of the PySpark it runs, whatever client started it.
type PySparkVersion struct{ Major, Minor, Patch int }

func (v PySparkVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// AtLeast reports whether v is major.minor or later.
func (v PySparkVersion) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// ParsePySparkVersion reads a pyspark.__version__ such as "4.2.0", "3.5.9" or "4.3.0.dev1".
func ParsePySparkVersion(s string) (PySparkVersion, error) {
	parts := strings.SplitN(strings.TrimSpace(s), ".", 4)
	if len(parts) < 2 {
		return PySparkVersion{}, fmt.Errorf("pyworker: %q is not a PySpark version", s)
	}
	var nums [3]int
	for i := 0; i < 3 && i < len(parts); i++ {
		digits := parts[i]
		if i == 2 { // "0rc1", "0.dev1": the leading digits
			digits = digits[:len(digits)-len(strings.TrimLeft(digits, "0123456789"))]
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return PySparkVersion{}, fmt.Errorf("pyworker: %q is not a PySpark version", s)
		}
		nums[i] = n
	}
	return PySparkVersion{nums[0], nums[1], nums[2]}, nil
}

// versionScript prints pyspark/version.py's __version__ without importing the pyspark package
// (whose __init__ loads much of PySpark): find_spec locates a top-level package without running it.
const versionScript = `import importlib.util, os, sys
spec = importlib.util.find_spec("pyspark")
if spec is None or not spec.submodule_search_locations:
    sys.exit("no pyspark package")
g = {}
with open(os.path.join(list(spec.submodule_search_locations)[0], "version.py")) as f:
    exec(f.read(), g)
sys.stdout.write(g["__version__"])`

// versionTimeout bounds one interpreter's version probe.
const versionTimeout = 30 * time.Second

var versions sync.Map // interpreter path → PySparkVersion

// InterpreterPySpark returns the PySpark version python (PYSPARK_PYTHON; "python3" when empty)
// imports, asking the interpreter once and remembering the answer for the process's life.
func InterpreterPySpark(ctx context.Context, python string) (PySparkVersion, error) {
	if python == "" {
		python = "python3"
	}
	if v, ok := versions.Load(python); ok {
		return v.(PySparkVersion), nil
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, python, "-c", versionScript)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return PySparkVersion{}, workerFailure("cannot read the PySpark version of %s: %v: %s", python, err,
			strings.TrimSpace(stderr.String())).Wrap(err)
	}
	v, err := ParsePySparkVersion(string(out))
	if err != nil {
		return PySparkVersion{}, workerFailure("cannot read the PySpark version of %s: %v", python, err).Wrap(err)
	}
	versions.Store(python, v)
	return v, nil
}
