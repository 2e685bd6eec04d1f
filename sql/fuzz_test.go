package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weirhq/weir/sparkerr"
)

// FuzzParseStatement checks that no input makes the parser panic or return an error that is
// not a *sparkerr.Error, and that any plan it returns can be formatted. The corpus seeds are
// the statements of testdata.
func FuzzParseStatement(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, block := range strings.Split(string(b), "\n\n") {
			lines := strings.Split(block, "\n")
			for i, l := range lines {
				if l == "----" && i > 0 {
					f.Add(strings.Join(lines[1:i], "\n"))
					break
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		cmd, err := ParseStatement(text)
		if err != nil {
			e, ok := sparkerr.As(err)
			if !ok {
				t.Fatalf("%q: untyped error %v", text, err)
			}
			if e.Class == "INTERNAL_ERROR" {
				t.Fatalf("%q: %v", text, err)
			}
			return
		}
		_ = FormatCommand(cmd)
		if _, err := ParseExpression(text); err != nil {
			if _, ok := sparkerr.As(err); !ok {
				t.Fatalf("%q: untyped error %v", text, err)
			}
		}
		_, _ = ParseDataType(text)
		_, _ = ParseTableSchema(text)
	})
}
