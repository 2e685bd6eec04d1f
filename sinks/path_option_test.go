package sinks_test

import (
	"testing"

	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
)

// TestWithPath checks Spark's rule for save(path) / start(path) on a writer with a "path"
// option: refused, unless the legacy behaviour lets the parameter replace the option.
func TestWithPath(t *testing.T) {
	opts := map[string]string{"PATH": "/fake", "checkpointLocation": "/chk"}
	_, err := sinks.WithPath("start", "/out", opts, false)
	if e, ok := sparkerr.As(err); !ok || e.Class != "_LEGACY_ERROR_TEMP_1188" || e.Params["method"] != "start" {
		t.Fatalf("err %v: want _LEGACY_ERROR_TEMP_1188 for start", err)
	}
	got, err := sinks.WithPath("save", "/out", opts, true)
	if err != nil || got["path"] != "/out" || len(got) != 2 || got["checkpointLocation"] != "/chk" {
		t.Fatalf("legacy: options %v, err %v: want the parameter as the path", got, err)
	}
	if opts["PATH"] != "/fake" {
		t.Fatal("the caller's options were changed")
	}
	got, err = sinks.WithPath("save", "", opts, false)
	if err != nil || got["PATH"] != "/fake" {
		t.Fatalf("no parameter: options %v, err %v", got, err)
	}
	got, err = sinks.WithPath("save", "/out", map[string]string{"x": "1"}, false)
	if err != nil || got["path"] != "/out" || got["x"] != "1" {
		t.Fatalf("no option: options %v, err %v", got, err)
	}
}
