package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// maxFuzzInput bounds the inputs FuzzParse tries: the parser is linear in its input, so
// larger inputs only slow the search down.
const maxFuzzInput = 64 << 10

// FuzzParse checks that no input makes the parser panic, and that every input it refuses is
// refused with a Spark-shaped error: a *sparkerr.Error of the exception classes the parser
// raises (ParseException, or AnalysisException / UnsupportedOperationException for statements
// that parse but are invalid or not supported, SparkException for an unknown collation name),
// never INTERNAL_ERROR (the parser's recovered
// panics). What it accepts can be formatted. The seeds are the statements of this package's
// testdata and the queries of the engine's SQL logic tests.
//
// Run it for a bounded time: go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 15s ./sql
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > maxFuzzInput {
			return
		}
		cmd, err := ParseStatement(text)
		checkParseError(t, "ParseStatement", text, err)
		if err == nil {
			_ = FormatCommand(cmd)
		}
		e, err := ParseExpression(text)
		checkParseError(t, "ParseExpression", text, err)
		if err == nil {
			_ = FormatExpr(e)
		}
		_, err = ParseDataType(text)
		checkParseError(t, "ParseDataType", text, err)
		_, err = ParseTableSchema(text)
		checkParseError(t, "ParseTableSchema", text, err)
	})
}

// checkParseError fails t unless err is nil or a Spark-shaped parser error (see FuzzParse).
func checkParseError(t *testing.T, what, text string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	e, ok := sparkerr.As(err)
	if !ok {
		t.Fatalf("%s(%q): untyped error %v", what, text, err)
	}
	switch {
	case e.Class == "INTERNAL_ERROR":
		t.Fatalf("%s(%q): %v", what, text, err)
	case e.JavaClass != sparkerr.ParseException && e.JavaClass != sparkerr.AnalysisException &&
		e.JavaClass != sparkerr.UnsupportedOperation &&
		// An unknown collation name is Spark's SparkException (CollationFactory), raised while
		// parsing COLLATE and STRING COLLATE.
		(e.JavaClass != sparkerr.SparkException || e.Class != "COLLATION_INVALID_NAME"):
		t.Fatalf("%s(%q): exception class %s: %v", what, text, e.JavaClass, err)
	case e.Message == "":
		t.Fatalf("%s(%q): error without a message (class %s)", what, text, e.Class)
	}
}

// fuzzSeeds are the inputs of testdata/* (each block's lines before "----") and of the engine's
// SQL logic tests.
func fuzzSeeds(f *testing.F) []string {
	var seeds []string
	for _, pattern := range []string{"testdata/*", "../../engine/testdata/sql/*"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			if st, err := os.Stat(file); err == nil && st.IsDir() {
				continue // testdata/fuzz: the fuzzer's own corpus, which it reads itself
			}
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			for _, block := range strings.Split(string(b), "\n\n") {
				lines := strings.Split(strings.TrimLeft(block, "\n"), "\n")
				for i, l := range lines {
					if l == "----" && i > 0 {
						seeds = append(seeds, strings.Join(lines[1:i], "\n"))
						// Each line alone too: expression and type files hold one input a line.
						if i > 2 {
							seeds = append(seeds, lines[1:i]...)
						}
						break
					}
				}
			}
		}
	}
	if len(seeds) == 0 {
		f.Fatal("no seeds found")
	}
	return seeds
}
