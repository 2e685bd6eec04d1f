package analyzer

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// sparkFunctionsFile is Apache Spark 4.2.0's SHOW FUNCTIONS, captured from Spark's own server.
const sparkFunctionsFile = "../expr/testdata/coverage/spark-4.2.0-functions.txt"

// notDone are the names Spark 4.2 lists that Weir does not have yet. The list may only shrink:
// TestFunctionCoverage fails on a Spark name that is neither in FunctionNames nor here, and on a
// name here that Weir now has.
var notDone = []string{
	// Exist only to call JVM code (issue 14 leaves them out).
	"java_method", "reflect", "try_reflect",
}

// sparkFunctions reads sparkFunctionsFile: one name a line, # comments.
func sparkFunctions(t *testing.T) []string {
	f, err := os.Open(sparkFunctionsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			names = append(names, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestFunctionCoverage checks FunctionNames against Spark 4.2's list: every Spark name is either
// one Weir has or in notDone, and notDone holds only Spark names Weir does not have.
func TestFunctionCoverage(t *testing.T) {
	spark := sparkFunctions(t)
	if len(spark) != 574 {
		t.Fatalf("%s holds %d names, want Spark 4.2.0's 574", sparkFunctionsFile, len(spark))
	}
	have := FunctionNames()
	pending := map[string]bool{}
	for _, n := range notDone {
		if pending[n] {
			t.Errorf("%q is twice in notDone", n)
		}
		pending[n] = true
	}
	done := 0
	for _, n := range spark {
		_, known := slices.BinarySearch(have, n)
		switch {
		case known && pending[n]:
			t.Errorf("%q is in notDone but Weir has it now: remove it from the list", n)
		case !known && !pending[n]:
			t.Errorf("Spark 4.2 lists %q, which Weir neither has nor lists in notDone", n)
		case known:
			done++
		}
		delete(pending, n)
	}
	for n := range pending {
		t.Errorf("notDone lists %q, which is not one of Spark 4.2's functions", n)
	}
	t.Logf("%d of Spark 4.2's %d functions are in Weir; %d not done", done, len(spark), len(notDone))
}
