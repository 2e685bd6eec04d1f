// Package sourcetest holds helpers the stream source tests of several connectors share. It
// imports only the source contracts.
package sourcetest

import (
	"testing"

	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// OffsetString returns a function rendering an offset, failing the test on an error.
func OffsetString(t *testing.T) func(sources.Offset, error) string {
	return func(o sources.Offset, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return string(o)
	}
}

// OptionError checks that err is a sparkerr.Error of javaClass with message.
func OptionError(t *testing.T, what string, err error, javaClass, message string) {
	t.Helper()
	se, ok := sparkerr.As(err)
	if !ok {
		t.Fatalf("%s: got %v, want %s", what, err, message)
	}
	if se.JavaClass != javaClass || se.Message != message {
		t.Fatalf("%s: got %s %q, want %s %q", what, se.JavaClass, se.Message, javaClass, message)
	}
}
