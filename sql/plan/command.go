package plan

// Command is a statement that does something rather than (only) returning rows: SQL DDL and
// SHOW/DESCRIBE, temp view creation, streaming starts. Commands that show something produce a
// result relation when executed.
type Command interface{ isCommand() }

// CreateView is CREATE [OR REPLACE] [GLOBAL] TEMP VIEW name AS query, and
// DataFrame.createTempView / createOrReplaceTempView.
type CreateView struct {
	Name        string
	Input       Relation
	Replace     bool
	IsGlobal    bool
	IfNotExists bool
	Columns     []string
}

// DropView is DROP VIEW|TABLE [IF EXISTS] name (IsTable for DROP TABLE): a temp view, a
// persistent view or a table.
type DropView struct {
	Name     []string
	IfExists bool
	IsTable  bool
}

// ShowTables is SHOW TABLES [IN db] [LIKE pattern].
type ShowTables struct {
	Namespace []string
	Pattern   string
}

// Describe is DESCRIBE [TABLE] name, or DESCRIBE QUERY.
type Describe struct {
	Table    []string
	Query    Relation
	Extended bool
}

// SetConf is SET key=value, SET key (show one) or SET (show all) when Key is empty.
type SetConf struct {
	Key   string
	Value *string
}

// ResetConf is RESET [key].
type ResetConf struct{ Key string }

// Explain is EXPLAIN [EXTENDED|FORMATTED|CODEGEN|COST] query.
type Explain struct {
	Mode  string
	Input Relation
}

// ShowFunctions is SHOW FUNCTIONS [LIKE pattern].
type ShowFunctions struct{ Pattern string }

// ShowColumns is SHOW COLUMNS IN table.
type ShowColumns struct{ Table []string }

// ShowDatabases is SHOW DATABASES/NAMESPACES.
type ShowDatabases struct{ Pattern string }

// UseDatabase is USE db.
type UseDatabase struct{ Name []string }

// Query wraps a relation as a command whose result is that relation's rows.
type Query struct{ Input Relation }

func (CreateView) isCommand()    {}
func (DropView) isCommand()      {}
func (ShowTables) isCommand()    {}
func (Describe) isCommand()      {}
func (SetConf) isCommand()       {}
func (ResetConf) isCommand()     {}
func (Explain) isCommand()       {}
func (ShowFunctions) isCommand() {}
func (ShowColumns) isCommand()   {}
func (ShowDatabases) isCommand() {}
func (UseDatabase) isCommand()   {}
func (Query) isCommand()         {}
