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
	// HasForeach / HasForeachBatch mark Python foreach writers, which Weir refuses clearly.
	HasForeach, HasForeachBatch bool
}

func (WriteStream) isCommand() {}
