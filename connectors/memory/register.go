package memory

import (
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/flow"
)

// The in-process sinks. Spark's MemorySink also takes update mode
// (SupportsStreamingUpdateAsAppend): the epoch's changed rows are appended. Only noop also
// takes batch writes.
func init() {
	all := []flow.OutputMode{flow.OutputAppend, flow.OutputUpdate, flow.OutputComplete}
	connectors.Register(connectors.Format{Name: "memory", Sink: newMemory, OutputModes: all})
	connectors.Register(connectors.Format{Name: "console", Sink: newConsole, OutputModes: all})
	connectors.Register(connectors.Format{Name: "noop", Sink: newNoop, OutputModes: all, BatchSink: newNoopBatch})
}
