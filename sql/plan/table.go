package plan

import sqltypes "github.com/weirhq/weir/sql/types"

// Commands on the persistent catalog: databases, tables and persistent views. Names are as
// written (one to three parts: t, db.t, spark_catalog.db.t); the engine resolves them against
// the session's current database.

// CreateDatabase is CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] name [COMMENT c]
// [LOCATION l] [WITH DBPROPERTIES (...)].
type CreateDatabase struct {
	Name        []string
	IfNotExists bool
	Comment     string
	Location    string
	Properties  map[string]string
}

// DropDatabase is DROP DATABASE [IF EXISTS] name [RESTRICT|CASCADE].
type DropDatabase struct {
	Name     []string
	IfExists bool
	Cascade  bool
}

// CreateTable is CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(columns)] USING format
// [OPTIONS (...)] [PARTITIONED BY (cols)] [LOCATION path] [COMMENT c] [TBLPROPERTIES (...)]
// [AS query], and spark.catalog.createTable.
type CreateTable struct {
	Name []string
	// Columns are the declared columns (none with AS query or a schema read from Location).
	Columns     sqltypes.Schema
	Format      string // "" is spark.sql.sources.default
	Options     map[string]string
	PartitionBy []string
	Location    string
	Comment     string
	Properties  map[string]string
	// Query is AS query (nil without).
	Query       Relation
	IfNotExists bool
	Replace     bool
}

// CreatePersistentView is CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(cols)] AS query:
// a view kept in the catalog by its SQL text. With Language "YAML" it is CREATE VIEW … WITH
// METRICS LANGUAGE YAML AS $$…$$, a metric view whose Text is its YAML definition (no Query).
type CreatePersistentView struct {
	Name        []string
	Columns     []string
	Text        string
	Language    string
	Query       Relation
	Replace     bool
	IfNotExists bool
	Comment     string
}

// AlterTable is ALTER TABLE name ADD COLUMNS (...) | RENAME TO name | SET TBLPROPERTIES (...)
// | UNSET TBLPROPERTIES (...): one of AddColumns, RenameTo, SetProperties, UnsetProperties.
type AlterTable struct {
	Name            []string
	IsView          bool // ALTER VIEW
	AddColumns      sqltypes.Schema
	RenameTo        []string
	SetProperties   map[string]string
	UnsetProperties []string
}

// ShowCreateTable is SHOW CREATE TABLE name.
type ShowCreateTable struct{ Name []string }

// ShowTableProperties is SHOW TBLPROPERTIES name [(key)].
type ShowTableProperties struct {
	Name []string
	Key  string
}

// TruncateTable is TRUNCATE TABLE name.
type TruncateTable struct{ Name []string }

// PartitionValue is one column of a PARTITION (...) spec: Value nil for a dynamic partition
// column (PARTITION (p)).
type PartitionValue struct {
	Column string
	Value  Expr
}

// InsertInto is INSERT INTO|OVERWRITE [TABLE] name [PARTITION (...)] [(cols)] query.
type InsertInto struct {
	Table     []string
	Partition []PartitionValue
	Columns   []string
	Input     Relation
	Overwrite bool
	// IfNotExists is INSERT OVERWRITE ... PARTITION (...) IF NOT EXISTS.
	IfNotExists bool
}

func (CreateDatabase) isCommand()       {}
func (DropDatabase) isCommand()         {}
func (CreateTable) isCommand()          {}
func (CreatePersistentView) isCommand() {}
func (AlterTable) isCommand()           {}
func (ShowCreateTable) isCommand()      {}
func (ShowTableProperties) isCommand()  {}
func (TruncateTable) isCommand()        {}
func (InsertInto) isCommand()           {}

// DeleteFrom is DELETE FROM name [[AS] alias] [WHERE condition] (nil Condition: every row).
type DeleteFrom struct {
	Table     []string
	Alias     string
	Condition Expr
}

// UpdateTable is UPDATE name [[AS] alias] SET col = value, ... [WHERE condition].
type UpdateTable struct {
	Table       []string
	Alias       string
	Assignments []Assignment
	Condition   Expr
}

// Assignment is one SET col = value of UPDATE.
type Assignment struct {
	Column []string
	Value  Expr
}

func (DeleteFrom) isCommand()  {}
func (UpdateTable) isCommand() {}

// MergeInto is MERGE INTO target [[AS] alias] USING source ON condition followed by WHEN
// clauses (Spark 4's syntax), and df.mergeInto(table, condition)...merge(). Each clause list
// is in written order: the first clause whose condition holds acts on a row.
type MergeInto struct {
	Table []string
	Alias string
	// Source is the source relation, under its alias if one is given.
	Source    Relation
	Condition Expr
	// Matched are WHEN MATCHED clauses (UPDATE, UPDATE SET *, DELETE).
	Matched []MergeAction
	// NotMatched are WHEN NOT MATCHED [BY TARGET] clauses (INSERT, INSERT *).
	NotMatched []MergeAction
	// NotMatchedBySource are WHEN NOT MATCHED BY SOURCE clauses (UPDATE, DELETE).
	NotMatchedBySource []MergeAction
}

// MergeActionKind is what a MERGE clause does.
type MergeActionKind uint8

// MERGE clause actions.
const (
	MergeDelete     MergeActionKind = iota // DELETE
	MergeUpdate                            // UPDATE SET col = value, ...
	MergeUpdateStar                        // UPDATE SET *
	MergeInsert                            // INSERT (cols) VALUES (values)
	MergeInsertStar                        // INSERT *
)

// MergeAction is one WHEN clause of MERGE: its action, its AND condition (nil: none) and,
// for UPDATE and INSERT, the target columns it sets (INSERT's columns and values paired).
type MergeAction struct {
	Kind        MergeActionKind
	Condition   Expr
	Assignments []Assignment
}

func (MergeInto) isCommand() {}
