package plan

// SaveMode is DataFrameWriter.mode as the client set it.
type SaveMode uint8

// Save modes. SaveUnset is the writer's default, error-if-exists.
const (
	SaveUnset SaveMode = iota
	SaveAppend
	SaveOverwrite
	SaveErrorIfExists
	SaveIgnore
)

// TableSaveMethod says how df.write names a table.
type TableSaveMethod uint8

// Table save methods.
const (
	TableSaveUnset TableSaveMethod = iota
	TableSaveAsTable
	TableInsertInto
)

// Write is df.write…save(path) / saveAsTable(name) / insertInto(name): write Input's rows
// once, as a batch, into a data source (Path, Options) or a table (TableName).
type Write struct {
	Input Relation
	// Format is the source name ("" is spark.sql.sources.default).
	Format  string
	Mode    SaveMode
	Options map[string]string
	// Path is save(path)'s path ("" when none or when writing a table).
	Path string
	// TableName and TableMethod are set by saveAsTable / insertInto.
	TableName   string
	TableMethod TableSaveMethod
	PartitionBy []string
	SortBy      []string
	ClusterBy   []string
	// BucketBy is bucketBy(n, cols…) (nil when not bucketed).
	BucketBy *Bucketing
}

// Bucketing is DataFrameWriter.bucketBy's spec.
type Bucketing struct {
	Columns    []string
	NumBuckets int32
}

func (Write) isCommand() {}

// WriteToMode is DataFrameWriterV2's action.
type WriteToMode uint8

// DataFrameWriterV2 actions.
const (
	WriteToCreate WriteToMode = iota + 1
	WriteToOverwrite
	WriteToOverwritePartitions
	WriteToAppend
	WriteToReplace
	WriteToCreateOrReplace
)

// WriteTo is df.writeTo(table)…create() / append() / overwrite(condition) /
// overwritePartitions() / replace() / createOrReplace().
type WriteTo struct {
	Input      Relation
	Table      []string
	Provider   string
	Options    map[string]string
	Properties map[string]string
	// PartitionBy are partitionedBy's columns (plain column references only).
	PartitionBy []string
	Mode        WriteToMode
	// Condition is overwrite(condition)'s condition (nil otherwise).
	Condition Expr
}

func (WriteTo) isCommand() {}
