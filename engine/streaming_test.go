package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// testStreamFormat is a stream format registered for these tests: analysis needs only its
// schema (these tests never start a query over it).
const testStreamFormat = "engine-test-stream"

func init() {
	connectors.Register(connectors.Format{Name: testStreamFormat,
		Stream: func(context.Context, sources.StreamEnv, map[string]string, string) (sources.StreamSource, error) {
			return nil, errors.New("the engine test stream is never opened")
		},
		StreamSchema: func(options map[string]string, userSchema string) (sqltypes.Schema, error) {
			if options["bad"] != "" {
				return nil, sparkerr.IllegalArgument("bad option %s", options["bad"])
			}
			return sqltypes.Schema{{Name: "value", Type: sqltypes.LongType}}, nil
		}})
}

func streamRead() *plan.DataSource {
	return &plan.DataSource{Format: testStreamFormat, Options: map[string]string{}, IsStreaming: true}
}

func wantError(t *testing.T, err error, javaClass, class, msgPart string) {
	t.Helper()
	se, ok := sparkerr.As(err)
	if !ok {
		t.Fatalf("want %s [%s] %q, got %v", javaClass, class, msgPart, err)
	}
	if se.JavaClass != javaClass || se.Class != class || !strings.Contains(se.Error(), msgPart) {
		t.Fatalf("want %s [%s] %q, got %s [%s] %q", javaClass, class, msgPart, se.JavaClass, se.Class, se.Error())
	}
}

func TestStreamingPlansAnalyzeButRefuseBatchActions(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	filtered := &plan.Filter{Input: streamRead(), Condition: plan.Literal{Value: true}}

	node, err := s.Analyze(ctx, filtered)
	if err != nil {
		t.Fatal(err)
	}
	if got := node.Schema().Names(); len(got) != 1 || got[0] != "value" {
		t.Fatalf("schema %v", got)
	}
	text, err := s.Explain(ctx, filtered, "simple")
	if err != nil || !strings.Contains(text, "StreamingRelation "+testStreamFormat) {
		t.Fatalf("explain %q, %v", text, err)
	}

	_, err = s.Execute(ctx, filtered)
	wantError(t, err, sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_3102",
		"Queries with streaming sources must be executed with writeStream.start()")
	if !strings.Contains(err.Error(), ";\nStreamingRelation "+testStreamFormat) {
		t.Fatalf("the error names the streaming leaf: %q", err.Error())
	}
	if se, _ := sparkerr.As(err); se.Params["msg"] == "" {
		t.Fatalf("msg parameter missing: %v", se.Params)
	}
	_, err = s.Execute(ctx, &plan.ShowString{Input: filtered, NumRows: 20, Truncate: 20})
	wantError(t, err, sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_3102", "writeStream.start()")

	// Options are validated at analysis, as spark.readStream...load() would when used.
	_, err = s.Analyze(ctx, &plan.DataSource{Format: testStreamFormat, Options: map[string]string{"BAD": "x"}, IsStreaming: true})
	wantError(t, err, sparkerr.IllegalArgumentException, "", "bad option x")
	_, err = s.Analyze(ctx, &plan.DataSource{Format: "no-such-stream", IsStreaming: true})
	wantError(t, err, sparkerr.AnalysisException, "DATA_SOURCE_NOT_FOUND", "no-such-stream")
}

func TestBatchReadsOfDataSources(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	_, err := s.Analyze(ctx, &plan.DataSource{Format: testStreamFormat})
	wantError(t, err, sparkerr.AnalysisException, "UNSUPPORTED_FEATURE.TABLE_OPERATION",
		"Table `"+testStreamFormat+"` does not support batch scan.")
	_, err = s.Analyze(ctx, &plan.DataSource{Format: "orc", Paths: []string{"/tmp/x.orc"}})
	wantError(t, err, sparkerr.AnalysisException, "DATA_SOURCE_NOT_FOUND", "Failed to find the data source: orc.")
	_, err = s.Analyze(ctx, &plan.DataSource{Format: "csv", Paths: []string{"/nonexistent/x.csv"}})
	wantError(t, err, sparkerr.AnalysisException, "PATH_NOT_FOUND", "Path does not exist: file:///nonexistent/x.csv.")
}

func TestStartStreamValidation(t *testing.T) {
	s := NewSession()
	defer s.Close()
	ctx := context.Background()
	ws := func(edit func(*plan.WriteStream)) *plan.WriteStream {
		w := &plan.WriteStream{Input: streamRead(), Format: "noop"}
		edit(w)
		return w
	}
	for _, c := range []struct {
		name                      string
		ws                        *plan.WriteStream
		javaClass, class, msgPart string
	}{
		{"batch input", ws(func(w *plan.WriteStream) { w.Input = &plan.Range{End: 3, Step: 1} }),
			sparkerr.AnalysisException, "WRITE_STREAM_NOT_ALLOWED", "`writeStream` can be called only on streaming Dataset/DataFrame."},
		{"input analysis error", ws(func(w *plan.WriteStream) { w.Input = &plan.NamedTable{Name: []string{"missing"}} }),
			sparkerr.AnalysisException, "TABLE_OR_VIEW_NOT_FOUND", "missing"},
		{"foreach", ws(func(w *plan.WriteStream) { w.Foreach = &plan.PythonFunction{} }),
			sparkerr.UnsupportedOperation, "UNSUPPORTED_FEATURE", "writeStream.foreach needs Python workers"},
		{"toTable", ws(func(w *plan.WriteStream) { w.TableName = "t" }),
			sparkerr.UnsupportedOperation, "UNSUPPORTED_FEATURE", "tables of the data source noop are not supported"},
		{"partitionBy on noop", ws(func(w *plan.WriteStream) { w.PartitionBy = []string{"value"} }),
			sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1197", "'noop' does not support partitioning."},
		{"clusterBy", ws(func(w *plan.WriteStream) { w.ClusterBy = []string{"value"} }),
			sparkerr.UnsupportedOperation, "UNSUPPORTED_FEATURE", "clusterBy"},
		{"output mode", ws(func(w *plan.WriteStream) { w.OutputMode = "sometimes" }),
			sparkerr.IllegalArgumentException, "", "Unknown output mode sometimes"},
		{"negative interval", ws(func(w *plan.WriteStream) {
			w.Trigger, w.TriggerInterval = plan.TriggerProcessingTime, "-1 second"
		}), sparkerr.IllegalArgumentException, "", "requirement failed: the interval of trigger should not be negative"},
		{"month interval", ws(func(w *plan.WriteStream) {
			w.Trigger, w.TriggerInterval = plan.TriggerContinuous, "1 month"
		}), sparkerr.IllegalArgumentException, "", "Doesn't support month or year interval: 1 month"},
		{"bad unit", ws(func(w *plan.WriteStream) {
			w.Trigger, w.TriggerInterval = plan.TriggerProcessingTime, "10 parsecs"
		}), sparkerr.IllegalArgumentException, "INVALID_INTERVAL_FORMAT.INVALID_UNIT", "Invalid unit parsecs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := s.StartStream(ctx, c.ws, nil)
			if q != nil {
				t.Fatalf("a query started: %v", q)
			}
			wantError(t, err, c.javaClass, c.class, c.msgPart)
		})
	}
	if got := s.Streams().Active(); len(got) != 0 {
		t.Fatalf("active queries after refused starts: %d", len(got))
	}
}

func TestParseTriggerInterval(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10 seconds":                 10 * time.Second,
		"1 second":                   time.Second,
		"1 minute":                   time.Minute,
		"interval 5 seconds":         5 * time.Second,
		"INTERVAL 1 hour 30 minutes": 90 * time.Minute,
		"500 milliseconds":           500 * time.Millisecond,
		"1.5 seconds":                1500 * time.Millisecond,
		"2 days":                     48 * time.Hour,
		"1 week":                     7 * 24 * time.Hour,
		"0 seconds":                  0,
		"1500 microseconds":          time.Millisecond,
		"1 minute -30 seconds":       30 * time.Second,
		"  3   seconds ":             3 * time.Second,
		"0 months 2 seconds":         2 * time.Second,
	} {
		got, err := parseTriggerInterval(in)
		if err != nil || got != want {
			t.Errorf("%q: got %v, %v; want %v", in, got, err, want)
		}
	}
	for in, class := range map[string]string{
		"":            "INVALID_INTERVAL_FORMAT.INPUT_IS_EMPTY",
		"interval":    "INVALID_INTERVAL_FORMAT.INVALID_PREFIX",
		"ten seconds": "INVALID_INTERVAL_FORMAT.UNRECOGNIZED_NUMBER",
		"10":          "INVALID_INTERVAL_FORMAT.MISSING_UNIT",
		"1.5 minutes": "INVALID_INTERVAL_FORMAT.INVALID_VALUE",
		"-5 seconds":  "",
		"1 year":      "",
	} {
		_, err := parseTriggerInterval(in)
		se, ok := sparkerr.As(err)
		if !ok || se.JavaClass != sparkerr.IllegalArgumentException || se.Class != class {
			t.Errorf("%q: got %v", in, err)
		}
	}
}
