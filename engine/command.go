package engine

import (
	"context"
	"path"
	"strings"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/analyzer"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

func stringField(name string) sqltypes.Field {
	return sqltypes.Field{Name: name, Type: sqltypes.StringType, Nullable: true}
}

// RunCommand executes a command. Commands that show something (SHOW TABLES, DESCRIBE, SET,
// EXPLAIN, a query) return their rows; others return an empty result with an empty schema.
func (s *Session) RunCommand(ctx context.Context, cmd plan.Command) (*Result, error) {
	switch c := cmd.(type) {
	case plan.Query:
		return s.Execute(ctx, c.Input)
	case *plan.Query:
		return s.Execute(ctx, c.Input)
	case plan.CreateView:
		return s.createView(ctx, &c)
	case *plan.CreateView:
		return s.createView(ctx, c)
	case plan.DropView:
		return s.dropView(ctx, &c)
	case *plan.DropView:
		return s.dropView(ctx, c)
	case plan.ShowTables:
		return s.showTables(ctx, &c)
	case *plan.ShowTables:
		return s.showTables(ctx, c)
	case plan.Describe:
		return s.describe(ctx, &c)
	case *plan.Describe:
		return s.describe(ctx, c)
	case plan.SetConf:
		return s.setConf(&c)
	case *plan.SetConf:
		return s.setConf(c)
	case plan.ResetConf:
		return s.resetConf(&c)
	case *plan.ResetConf:
		return s.resetConf(c)
	case plan.Explain:
		return s.explainCommand(ctx, &c)
	case *plan.Explain:
		return s.explainCommand(ctx, c)
	case plan.ShowFunctions:
		return s.showFunctions(&c)
	case *plan.ShowFunctions:
		return s.showFunctions(c)
	case plan.ShowColumns:
		return s.showColumns(ctx, &c)
	case *plan.ShowColumns:
		return s.showColumns(ctx, c)
	case plan.ShowDatabases:
		return s.showDatabases(c.Pattern)
	case *plan.ShowDatabases:
		return s.showDatabases(c.Pattern)
	case plan.Write:
		return s.write(ctx, &c)
	case *plan.Write:
		return s.write(ctx, c)
	case plan.RegisterPythonFunction:
		return s.registerPython(c)
	case plan.RegisterPythonTableFunction:
		return s.registerPythonTable(c)
	case plan.UseDatabase:
		return s.useDatabase(c.Name)
	case *plan.UseDatabase:
		return s.useDatabase(c.Name)
	}
	return s.runTableCommand(ctx, cmd)
}

// runTableCommand executes the commands of the persistent catalog (table_ddl.go,
// table_write.go).
func (s *Session) runTableCommand(ctx context.Context, cmd plan.Command) (*Result, error) {
	switch c := cmd.(type) {
	case plan.CreateDatabase:
		return s.createDatabase(ctx, &c)
	case plan.DropDatabase:
		return s.dropDatabase(ctx, &c)
	case plan.CreateTable:
		return s.createTable(ctx, &c)
	case *plan.CreateTable:
		return s.createTable(ctx, c)
	case plan.CreatePersistentView:
		return s.createPersistentView(ctx, &c)
	case plan.AlterTable:
		return s.alterTable(ctx, &c)
	case plan.ShowCreateTable:
		return s.showCreateTable(ctx, &c)
	case plan.ShowTableProperties:
		return s.showTableProperties(ctx, &c)
	case plan.TruncateTable:
		return s.truncateTable(ctx, &c)
	case plan.InsertInto:
		return s.insertInto(ctx, &c)
	case plan.DeleteFrom:
		return s.deleteFrom(ctx, &c)
	case plan.UpdateTable:
		return s.updateTable(ctx, &c)
	case plan.MergeInto:
		return s.mergeInto(ctx, &c)
	case *plan.WriteTo:
		return s.writeTo(ctx, c)
	}
	return nil, sparkerr.Unsupported("command %T is not supported", cmd)
}

func (s *Session) empty() (*Result, error) { return NewResult(nil, nil, nil), nil }

func (s *Session) createView(ctx context.Context, c *plan.CreateView) (*Result, error) {
	node, err := s.Analyze(ctx, c.Input)
	if err != nil {
		return nil, err
	}
	if len(c.Columns) > 0 {
		schema := node.Schema()
		if len(c.Columns) != len(schema) {
			return nil, sparkerr.Analysis("CREATE_VIEW_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS", "21S01",
				"Cannot create view %s, the reason is not enough data columns: View columns: %s. Data columns: %s.",
				sparkerr.Quote(c.Name), strings.Join(c.Columns, ", "), strings.Join(schema.Names(), ", "))
		}
		exprs := make([]expr.Expr, len(schema))
		for i, f := range schema {
			exprs[i] = &expr.Alias{Child: &expr.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}, Name: c.Columns[i]}
		}
		node = &logical.Project{Input: node, Exprs: exprs}
	}
	views := s.views
	if c.IsGlobal {
		views = s.global.c
	}
	if _, exists := views.TempView(c.Name); exists && c.IfNotExists {
		return s.empty()
	}
	if err := views.create(c.Name, node, c.Replace); err != nil {
		return nil, err
	}
	return s.empty()
}

func (s *Session) showTables(ctx context.Context, c *plan.ShowTables) (*Result, error) {
	schema := sqltypes.Schema{stringField("namespace"), stringField("tableName"),
		{Name: "isTemporary", Type: sqltypes.BooleanType, Nullable: true}}
	db := s.views.currentDatabase()
	var store tableStore = s.tables
	if len(c.Namespace) > 0 {
		var err error
		if store, db, err = s.storeOfNamespace(ctx, c.Namespace); err != nil {
			return nil, err
		}
	}
	var rows [][]any
	if isGlobalTempDatabase(db) {
		for _, n := range s.global.c.names() {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, n) {
				rows = append(rows, []any{GlobalTempDatabase, n, true})
			}
		}
	} else {
		tables, err := store.Tables(db)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			if c.Pattern == "" || likeSparkPattern(c.Pattern, t.Name) {
				rows = append(rows, []any{db, t.Name, false})
			}
		}
	}
	if _, rest := store.(restStore); rest {
		return s.rowsResult(schema, rows) // a v2 catalog lists its own tables only
	}
	for _, n := range s.views.names() {
		if c.Pattern != "" && !likeSparkPattern(c.Pattern, n) {
			continue
		}
		rows = append(rows, []any{"", n, true})
	}
	return s.rowsResult(schema, rows)
}

// likeSparkPattern matches SHOW TABLES patterns: '*' any characters, '|' alternatives.
func likeSparkPattern(pattern, name string) bool {
	for _, alt := range strings.Split(pattern, "|") {
		if ok, _ := path.Match(strings.ToLower(strings.TrimSpace(alt)), name); ok {
			return true
		}
	}
	return false
}

func (s *Session) describe(ctx context.Context, c *plan.Describe) (*Result, error) {
	var schema sqltypes.Schema
	var table *metastore.Table
	if c.Query != nil {
		n, err := s.Analyze(ctx, c.Query)
		if err != nil {
			return nil, err
		}
		schema = n.Schema()
	} else if t, ok := s.metricViewNamed(ctx, c.Table); ok {
		var err error
		if schema, err = schemaOfTable(t); err != nil {
			return nil, err
		}
		table = &t
	} else {
		n, err := s.Analyze(ctx, &plan.NamedTable{Name: c.Table})
		if err != nil {
			return nil, err
		}
		schema = n.Schema()
		if _, temp := s.views.TempView(strings.Join(c.Table, ".")); !temp {
			if t, ok, _ := s.lookupTable(ctx, c.Table); ok {
				table = &t
			}
		}
	}
	out := sqltypes.Schema{stringField("col_name"), stringField("data_type"), stringField("comment")}
	rows := make([][]any, 0, len(schema))
	for _, f := range schema {
		rows = append(rows, []any{f.Name, f.Type.String(), nullIfEmpty(fieldComment(f))})
	}
	if table != nil {
		rows = append(rows, describeTableRows(table, schema, c.Extended)...)
	}
	return s.rowsResult(out, rows)
}

func (s *Session) setConf(c *plan.SetConf) (*Result, error) {
	schema := sqltypes.Schema{stringField("key"), stringField("value")}
	switch {
	case c.Key == "":
		var rows [][]any
		for _, kv := range s.conf.All("") {
			rows = append(rows, []any{kv[0], kv[1]})
		}
		return s.rowsResult(schema, rows)
	case c.Value == nil && c.Key == WarehouseConf:
		return s.rowsResult(schema, [][]any{{c.Key, fileaccess.HadoopPath(s.warehouse)}})
	case c.Value == nil:
		v, ok := s.conf.Get(c.Key)
		if !ok {
			v = "<undefined>"
		}
		return s.rowsResult(schema, [][]any{{c.Key, v}})
	}
	if err := s.conf.Set(c.Key, *c.Value); err != nil {
		return nil, err
	}
	return s.rowsResult(schema, [][]any{{c.Key, *c.Value}})
}

func (s *Session) resetConf(c *plan.ResetConf) (*Result, error) {
	if c.Key == "" {
		for _, kv := range s.conf.All("") {
			s.conf.Unset(kv[0])
		}
	} else {
		s.conf.Unset(c.Key)
	}
	return s.empty()
}

func (s *Session) showFunctions(c *plan.ShowFunctions) (*Result, error) {
	var rows [][]any
	for _, n := range analyzer.FunctionNames() {
		if c.Pattern != "" && !likeSparkPattern(c.Pattern, n) {
			continue
		}
		rows = append(rows, []any{n})
	}
	return s.rowsResult(sqltypes.Schema{stringField("function")}, rows)
}

func (s *Session) showColumns(ctx context.Context, c *plan.ShowColumns) (*Result, error) {
	var names []string
	if t, ok := s.metricViewNamed(ctx, c.Table); ok {
		for _, col := range t.Columns {
			names = append(names, col.Name)
		}
	} else {
		n, err := s.Analyze(ctx, &plan.NamedTable{Name: c.Table})
		if err != nil {
			return nil, err
		}
		names = n.Schema().Names()
	}
	var rows [][]any
	for _, name := range names {
		rows = append(rows, []any{name})
	}
	return s.rowsResult(sqltypes.Schema{stringField("col_name")}, rows)
}

func (s *Session) explainCommand(ctx context.Context, c *plan.Explain) (*Result, error) {
	mode := strings.ToLower(c.Mode)
	if mode == "" {
		mode = "simple"
	}
	text, err := s.Explain(ctx, c.Input, mode)
	if err != nil {
		return nil, err
	}
	return s.rowsResult(sqltypes.Schema{stringField("plan")}, [][]any{{text}})
}

// Explain renders rel's plan in a mode ("simple", "extended", "codegen", "cost", "formatted"):
// the optimized plan, and for extended and cost the analyzed one before it too (the physical
// plan is rendered as the optimized logical tree the planner builds from).
func (s *Session) Explain(ctx context.Context, rel plan.Relation, mode string) (string, error) {
	node, err := s.Analyze(ctx, rel)
	if err != nil {
		return "", err
	}
	ectx, err := s.evalContext()
	if err != nil {
		return "", err
	}
	optimized, err := s.optimize(ctx, node, ectx)
	if err != nil {
		return "", err
	}
	tree := logical.TreeString(optimized)
	switch strings.ToLower(mode) {
	case "extended", "cost":
		schema := make([]string, 0, len(node.Schema()))
		for _, f := range node.Schema() {
			schema = append(schema, f.Name+": "+f.Type.String())
		}
		return "== Analyzed Logical Plan ==\n" + strings.Join(schema, ", ") + "\n" + logical.TreeString(node) +
			"\n== Optimized Logical Plan ==\n" + tree + "\n== Physical Plan ==\n" + tree, nil
	}
	return "== Physical Plan ==\n" + tree, nil
}
