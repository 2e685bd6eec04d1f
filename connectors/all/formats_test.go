package all_test

import (
	"context"
	"github.com/weirhq/weir/flow"
	"strings"
	"testing"

	"github.com/weirhq/weir/connectors"
	_ "github.com/weirhq/weir/connectors/all"
	"github.com/weirhq/weir/connectors/sinktest"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

var writeSchema = sqltypes.Schema{
	{Name: "id", Type: sqltypes.DataType{Kind: sqltypes.Long}, Nullable: true},
	{Name: "name", Type: sqltypes.StringType, Nullable: true},
}

func TestBatchFormatsAndModes(t *testing.T) {
	for _, tc := range []struct {
		format string
		mode   sinks.SaveMode
		opts   map[string]string
		part   []string
		want   string
	}{
		{"parquet", sinks.SaveErrorIfExists, map[string]string{}, nil, "'path' is not specified"},
		{"avro", sinks.SaveAppend, map[string]string{"path": "/tmp/x"}, nil, "[DATA_SOURCE_NOT_FOUND] Failed to find the data source: avro. Make sure the provider name is correct"},
		{"memory", sinks.SaveAppend, map[string]string{}, nil, "Data source memory does not support batch writes"},
		{"noop", sinks.SaveErrorIfExists, map[string]string{}, nil, "TableProvider implementation noop cannot be written with ErrorIfExists mode, please use Append or Overwrite modes instead."},
		{"noop", sinks.SaveIgnore, map[string]string{}, nil, "cannot be written with Ignore mode"},
		{"kafka", sinks.SaveOverwrite, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, nil, "Save mode Overwrite not allowed for Kafka. Allowed save modes are Append and ErrorIfExists (default)."},
		{"kafka", sinks.SaveIgnore, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, nil, "Save mode Ignore not allowed for Kafka."},
		{"kafka", sinks.SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"}, []string{"id"}, "'kafka' does not support partitioning."},
		{"kafka", sinks.SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1"}, nil, "topic option required when no 'topic' attribute is present."},
		{"kafka", sinks.SaveAppend, map[string]string{"topic": "t"}, nil, "Option 'kafka.bootstrap.servers' must be specified for configuring Kafka producer"},
	} {
		_, err := connectors.NewBatchSink(context.Background(), tc.format, sinks.Env{Schema: writeSchema, PartitionBy: tc.part}, tc.mode, tc.opts)
		if got := sinktest.ErrText(err); !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: got %q, want %q", tc.format, tc.mode, got, tc.want)
		}
	}
	_, err := connectors.NewBatchSink(context.Background(), "kafka", sinks.Env{Schema: writeSchema[:1]}, sinks.SaveAppend, map[string]string{"kafka.bootstrap.servers": "h:1", "topic": "t"})
	if got := sinktest.ErrText(err); !strings.Contains(got, "Required attribute 'value' not found") {
		t.Errorf("kafka without value: %s", got)
	}
	h, err := sinktest.NewBatchHarness(t, "noop", writeSchema, 2, sinks.SaveOverwrite, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Push(0, []any{int64(1), "a"})
	h.Push(1, []any{int64(2), "b"}, []any{int64(3), "c"})
	if err := h.End(); err != nil {
		t.Fatal(err)
	}
	if n := h.Sink.OutputRows(); n != 3 {
		t.Fatalf("noop rows %d", n)
	}
}

// TestPartitionByRefusedOutsideFiles checks that only the file formats accept partitionBy.
func TestPartitionByRefusedOutsideFiles(t *testing.T) {
	opts := map[string]string{"checkpointLocation": t.TempDir()}
	for _, format := range []string{"memory", "console"} {
		_, err := connectors.NewSink(format, sinks.Env{Mode: flow.OutputAppend, Schema: writeSchema, TimeZone: "UTC", QueryName: "q", PartitionBy: []string{"id"}}, opts)
		se, ok := err.(*sparkerr.Error)
		if !ok || se.Class != "_LEGACY_ERROR_TEMP_1197" || se.JavaClass != sparkerr.AnalysisException ||
			!strings.Contains(se.Message, "'"+format+"' does not support partitioning.") {
			t.Errorf("%s: %v", format, err)
		}
	}
}
