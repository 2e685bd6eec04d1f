package connectors

import (
	"context"
	"github.com/weirhq/weir/flow"
	"testing"

	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var keyedSchema = sqltypes.Schema{{Name: "k", Type: sqltypes.LongType, Nullable: true}}

// TestUnsupportedOutputMode checks NewSink's error for a format without the requested mode
// (Spark's STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE).
func TestUnsupportedOutputMode(t *testing.T) {
	Register(Format{Name: "appendonly", Sink: func(sinks.Env, map[string]string) (sinks.Sink, error) { return nil, nil },
		OutputModes: []flow.OutputMode{flow.OutputAppend}})
	t.Cleanup(func() { Unregister("appendonly") })
	_, err := NewSink("appendonly", sinks.Env{Mode: flow.OutputUpdate, Schema: keyedSchema}, nil)
	se, ok := err.(*sparkerr.Error)
	if !ok {
		t.Fatalf("got %v, want a *sparkerr.Error", err)
	}
	want := "[STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming output mode: update. " +
		"This output mode is not supported in Data Source appendonly. SQLSTATE: 42KDE"
	if se.Error() != want || se.JavaClass != sparkerr.AnalysisException ||
		se.Params["outputMode"] != "update" || se.Params["className"] != "appendonly" {
		t.Fatalf("got %s (%s, %v), want %s", se.Error(), se.JavaClass, se.Params, want)
	}
	if _, err := NewSink("appendonly", sinks.Env{Mode: flow.OutputAppend, Schema: keyedSchema}, nil); err != nil {
		t.Fatalf("append: %v", err)
	}
}

// TestUnknownFormat checks the one error every use of an unknown format gets.
func TestUnknownFormat(t *testing.T) {
	want := "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: avro. Make sure the provider name is correct " +
		"and the package is properly registered and compatible with your Spark version. SQLSTATE: 42K02"
	_, e1 := NewSink("avro", sinks.Env{Mode: flow.OutputAppend}, nil)
	_, e2 := NewBatchSink(t.Context(), "avro", sinks.Env{}, sinks.SaveAppend, nil)
	_, e3 := StreamSchema("avro", nil, "")
	_, e4 := BatchSchema("avro", BatchEnv{}, nil, nil, "")
	for i, err := range []error{e1, e2, e3, e4} {
		se, ok := sparkerr.As(err)
		if !ok || se.Error() != want || se.JavaClass != sparkerr.AnalysisException || se.Params["provider"] != "avro" {
			t.Errorf("use %d: got %v, want %s", i+1, err, want)
		}
	}
}

// TestRecoverRunsEachRecoveryOnce checks that formats sharing a recovery run it once.
func TestRecoverRunsEachRecoveryOnce(t *testing.T) {
	recoveries = 0
	for _, name := range []string{"recover-a", "recover-b"} {
		Register(Format{Name: name, Recover: countRecovery})
		t.Cleanup(func() { Unregister(name) })
	}
	if err := Recover(t.Context(), t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if recoveries != 1 {
		t.Fatalf("the shared recovery ran %d times, want 1", recoveries)
	}
}

var recoveries int

func countRecovery(context.Context, string) error {
	recoveries++
	return nil
}
