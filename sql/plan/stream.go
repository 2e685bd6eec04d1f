package plan

// TriggerKind is a streaming trigger's kind as the client set it.
type TriggerKind uint8

// Trigger kinds.
const (
	TriggerUnset TriggerKind = iota
	TriggerProcessingTime
	TriggerAvailableNow
	TriggerOnce
	TriggerContinuous
)

// WriteStream is df.writeStream…start() / toTable(): start a streaming query over Input.
type WriteStream struct {
	Input      Relation
	Format     string
	Options    map[string]string
	OutputMode string
	// Trigger and its interval string ("10 seconds") for processing-time and continuous.
	Trigger         TriggerKind
	TriggerInterval string
	QueryName       string
	Path            string
	TableName       string
	PartitionBy     []string
	ClusterBy       []string
	// Foreach is writeStream.foreach's Python writer, ForeachBatch writeStream.foreachBatch's
	// Python function (nil when not set).
	Foreach, ForeachBatch *PythonFunction
}

func (WriteStream) isCommand() {}
