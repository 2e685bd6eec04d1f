package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/connectors/files"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/metastore"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/parser"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Writes into tables: INSERT INTO/OVERWRITE, df.write.saveAsTable/insertInto, df.writeTo (the
// DataFrameWriterV2) and writeStream.toTable. Rows are cast to the table's column types and
// written by the table format's batch sink at the table's location (Hive-style directories
// for its partition columns), as a path write would.

func (s *Session) insertInto(ctx context.Context, c *plan.InsertInto) (*Result, error) {
	t, err := s.mustTable(ctx, c.Table)
	if err != nil {
		return nil, err
	}
	return s.empty2(s.insertRows(ctx, t, c, false))
}

// insertRows writes ins.Input's rows into t: by position (INSERT, insertInto) or by name
// (saveAsTable's append, writeTo); static partition values come from ins.Partition.
// ins.Overwrite replaces the table's rows (those of the static partition, if one is given).
func (s *Session) insertRows(ctx context.Context, t metastore.Table, ins *plan.InsertInto, byName bool) error {
	return s.insertRowsDynamic(ctx, t, ins, byName, false)
}

// insertRowsDynamic is insertRows; dynamic makes an overwrite of an Iceberg table replace only
// the partitions the rows hold (writeTo's overwritePartitions).
func (s *Session) insertRowsDynamic(ctx context.Context, t metastore.Table, ins *plan.InsertInto, byName, dynamic bool) error {
	if t.IsView() {
		return sparkerr.Analysis("EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE", "42809",
			"The view %s is not supported for INSERT.", t.QualifiedName()).
			WithParams("viewName", t.QualifiedName(), "operation", "INSERT")
	}
	schema, err := schemaOfTable(t)
	if err != nil {
		return err
	}
	static := map[string]plan.Expr{}
	var staticDir []string // the leading static partition values: the directory an overwrite replaces
	prefix := true
	for _, pv := range ins.Partition {
		i := fieldIndex(schema, pv.Column)
		if i < len(schema)-len(t.PartitionBy) {
			return sparkerr.Analysis("PARTITIONS_NOT_FOUND", "428FT",
				"The partition(s) %s cannot be found in table %s. Verify the partition specification and table name.",
				sparkerr.Quote(pv.Column), t.QualifiedName())
		}
		name := schema[i].Name
		if pv.Value == nil {
			prefix = false
			continue
		}
		static[strings.ToLower(name)] = pv.Value
		if prefix {
			lit, ok := pv.Value.(plan.Literal)
			if !ok {
				return sparkerr.Unsupported("a PARTITION value must be a literal, not %T", pv.Value)
			}
			staticDir = append(staticDir, files.PartitionDir(name, fmt.Sprint(lit.Value), lit.Value == nil))
		}
	}
	var targets []string // the table columns the input's columns fill, in the input's order
	if len(ins.Columns) > 0 {
		for _, c := range ins.Columns {
			i := fieldIndex(schema, c)
			if i < 0 {
				return sparkerr.UnresolvedColumn([]string{c}, schema.Names())
			}
			targets = append(targets, schema[i].Name)
		}
	} else {
		for _, f := range schema {
			if _, ok := static[strings.ToLower(f.Name)]; !ok {
				targets = append(targets, f.Name)
			}
		}
	}
	node, err := s.analyzer().Resolve(ctx, ins.Input)
	if err != nil {
		return err
	}
	in := node.Schema()
	input := ins.Input
	if byName {
		if len(in) != len(schema) {
			plain := catalogName + "." + t.Database + "." + t.Name
			return sparkerr.Analysis("_LEGACY_ERROR_TEMP_1161", "",
				"The column number of the existing table %s (%s) doesn't match the data schema (%s).",
				plain, schema.AsStruct().String(), in.AsStruct().String()).
				WithParams("tableName", plain, "existingTableSchema", schema.AsStruct().String(),
					"querySchema", in.AsStruct().String())
		}
		for _, f := range in {
			if fieldIndex(schema, f.Name) < 0 {
				return sparkerr.Analysis("INCOMPATIBLE_DATA_FOR_TABLE.EXTRA_COLUMNS", "KD000",
					"Cannot write incompatible data for the table %s: Cannot find columns %s in the table.",
					t.QualifiedName(), sparkerr.Quote(f.Name))
			}
		}
		targets = targets[:0]
		for _, f := range in {
			targets = append(targets, schema[fieldIndex(schema, f.Name)].Name)
		}
	} else if len(in) != len(targets) {
		reason, sub := "not enough data columns", "NOT_ENOUGH_DATA_COLUMNS"
		if len(in) > len(targets) {
			reason, sub = "too many data columns", "TOO_MANY_DATA_COLUMNS"
		}
		return sparkerr.Analysis("INSERT_COLUMN_ARITY_MISMATCH."+sub, "21S01",
			"Cannot write to %s, the reason is %s:\nTable columns: %s.\nData columns: %s.",
			t.QualifiedName(), reason, quoteAll(targets), quoteAll(in.Names())).
			WithParams("tableName", t.QualifiedName(), "reason", reason, "tableColumns", quoteAll(targets),
				"dataColumns", quoteAll(in.Names()))
	}
	if !byName {
		input = &plan.ToDF{Input: input, Names: targets}
	}
	exprs := make([]plan.Expr, len(schema))
	for i, f := range schema {
		var v plan.Expr = plan.Lit(nil, sqltypes.NullType)
		if e, ok := static[strings.ToLower(f.Name)]; ok {
			v = e
		} else if containsFold(targets, f.Name) {
			v = plan.Col(f.Name)
		}
		exprs[i] = plan.Alias{Child: plan.Cast{Child: v, To: f.Type, Mode: plan.CastANSI}, Names: []string{f.Name}}
	}
	write, err := s.analyzer().Resolve(ctx, &plan.Project{Input: input, Exprs: exprs})
	if err != nil {
		return err
	}
	if isIceberg(t.Format) {
		return s.writeIcebergRows(ctx, t, write, ins.Overwrite, dynamic || len(static) > 0)
	}
	return s.writeTableRows(ctx, t, write, ins.Overwrite, staticDir)
}

// writeIcebergRows writes node's rows into the Iceberg table t as one snapshot; overwrite
// replaces its rows (dynamic: those of the partitions the rows hold).
func (s *Session) writeIcebergRows(ctx context.Context, t metastore.Table, node logical.Node, overwrite, dynamic bool) error {
	options := s.icebergWriteOptions(t, dynamic)
	mode := sinks.SaveAppend
	if overwrite {
		if err := s.checkOverwrite(node, options); err != nil {
			return err
		}
		mode = sinks.SaveOverwrite
	}
	sink, err := connectors.NewBatchSink(ctx, t.Format, sinks.Env{Mode: flow.OutputAppend, Schema: node.Schema(),
		TimeZone: s.timeZone(), Stdout: s.stdout, PartitionBy: t.PartitionBy, Files: s.files}, mode, options)
	if err != nil {
		return err
	}
	if err := s.runWrite(ctx, node, sink); err != nil {
		sink.Abort()
		return err
	}
	if err := sink.Finish(ctx); err != nil {
		return err
	}
	s.refreshPersistedReading(options)
	return nil
}

// writeTableRows writes node's rows (the table's columns in order) into t's location;
// overwrite replaces what is there (only under staticDir when given).
func (s *Session) writeTableRows(ctx context.Context, t metastore.Table, node logical.Node, overwrite bool, staticDir []string) error {
	options := withOption(t.Options, "path", t.Location)
	mode := sinks.SaveAppend
	if overwrite {
		if len(staticDir) > 0 {
			dir, err := s.files.CheckReplace(filepath.Join(append([]string{t.Location}, staticDir...)...))
			if err != nil {
				return err
			}
			if err := s.checkOverwrite(node, map[string]string{"path": dir}); err != nil {
				return err
			}
			if err := os.RemoveAll(dir); err != nil {
				return sparkerr.Internal("overwriting a partition of %s: %v", t.QualifiedName(), err)
			}
		} else {
			if err := s.checkOverwrite(node, options); err != nil {
				return err
			}
			mode = sinks.SaveOverwrite
		}
	}
	sink, err := connectors.NewBatchSink(ctx, t.Format, sinks.Env{Mode: flow.OutputAppend, Schema: node.Schema(),
		TimeZone: s.timeZone(), Stdout: s.stdout, PartitionBy: t.PartitionBy, Files: s.files}, mode, options)
	if err != nil {
		return err
	}
	if sink == nil {
		return nil
	}
	if err := s.runWrite(ctx, node, sink); err != nil {
		sink.Abort()
		return err
	}
	if err := sink.Finish(ctx); err != nil {
		return err
	}
	s.refreshPersistedReading(options)
	return nil
}

// writeTable runs df.write.saveAsTable(name) and df.write.insertInto(name).
func (s *Session) writeTable(ctx context.Context, w *plan.Write) (*Result, error) {
	name, err := splitTableName(w.TableName)
	if err != nil {
		return nil, err
	}
	t, exists, err := s.lookupTable(ctx, name)
	if err != nil {
		return nil, err
	}
	if w.TableMethod == plan.TableInsertInto {
		if !exists {
			return nil, sparkerr.TableNotFound(name)
		}
		if len(w.PartitionBy) > 0 {
			return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1309", "",
				"insertInto() can't be used together with partitionBy(). Partition columns have already been defined for the table. It is not necessary to use partitionBy().")
		}
		return s.empty2(s.insertRows(ctx, t, &plan.InsertInto{Input: w.Input, Overwrite: w.Mode == plan.SaveOverwrite}, false))
	}
	if exists {
		switch w.Mode {
		case plan.SaveIgnore:
			return s.empty()
		case plan.SaveAppend:
			return s.empty2(s.insertRows(ctx, t, &plan.InsertInto{Input: w.Input}, true))
		case plan.SaveOverwrite:
			// Spark drops the table and creates it again from the new rows.
			node, err := s.analyzer().Resolve(ctx, w.Input)
			if err != nil {
				return nil, err
			}
			if !t.IsView() && s.checkOverwrite(node, map[string]string{"path": t.Location}) != nil {
				q := t.QualifiedName()
				return nil, sparkerr.Analysis("UNSUPPORTED_OVERWRITE.TABLE", "42902",
					"Can't overwrite the target that is also being read from. The target table is %s.", q).
					WithParams("table", q)
			}
			store, err := s.storeOf(ctx, t)
			if err != nil {
				return nil, err
			}
			dropped, ok, err := store.DropTable(t.Database, t.Name)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := s.deleteManagedFiles(dropped); err != nil {
					return nil, err
				}
			}
		default:
			return nil, alreadyExistsOf(t)
		}
	}
	node, err := s.analyzer().Resolve(ctx, w.Input)
	if err != nil {
		return nil, err
	}
	location := w.Path
	if location == "" {
		location = w.Options["path"]
	}
	options := map[string]string{}
	for k, v := range w.Options {
		if !strings.EqualFold(k, "path") {
			options[k] = v
		}
	}
	nt, err := s.newTable(ctx, name, w.Format, node.Schema(), w.PartitionBy, location, options, nil, "")
	if err != nil {
		return nil, err
	}
	return s.empty2(s.createAndFill(ctx, nt, w.Input, true))
}

// writeTo runs df.writeTo(name)'s actions. Weir's file tables are what Spark calls v1 tables:
// as in Spark, create() makes one, append/overwrite/overwritePartitions of one are
// _LEGACY_ERROR_TEMP_1012 and replace/createOrReplace are UNSUPPORTED_FEATURE.TABLE_OPERATION.
func (s *Session) writeTo(ctx context.Context, w *plan.WriteTo) (*Result, error) {
	t, exists, err := s.lookupTable(ctx, w.Table)
	if err != nil {
		return nil, err
	}
	if exists && isIceberg(t.Format) && !t.IsView() {
		switch w.Mode {
		case plan.WriteToAppend, plan.WriteToOverwrite, plan.WriteToOverwritePartitions:
			return s.writeToIceberg(ctx, w, t)
		case plan.WriteToReplace, plan.WriteToCreateOrReplace:
			return s.empty2(s.replaceIceberg(ctx, t, w))
		}
	}
	if !exists && w.Mode == plan.WriteToCreateOrReplace && isIceberg(s.writeToProvider(w)) {
		w.Mode = plan.WriteToCreate
	}
	switch w.Mode {
	case plan.WriteToReplace, plan.WriteToCreateOrReplace:
		db, name, err := s.qualify(w.Table)
		if err != nil {
			return nil, err
		}
		q := sparkerr.Quote(catalogName, db, name)
		return nil, sparkerr.New(sparkerr.AnalysisException, "UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
			"The feature is not supported: Table "+q+" does not support REPLACE TABLE AS SELECT. Please check the "+
				"current catalog and namespace to make sure the qualified table name is expected, and also check the "+
				"catalog implementation which is configured by \"spark.sql.catalog\".").
			WithParams("tableName", q, "operation", "REPLACE TABLE AS SELECT")
	case plan.WriteToCreate:
		if exists {
			return nil, alreadyExistsOf(t)
		}
		node, err := s.analyzer().Resolve(ctx, w.Input)
		if err != nil {
			return nil, err
		}
		location := w.Options["path"]
		options := map[string]string{}
		for k, v := range w.Options {
			if !strings.EqualFold(k, "path") {
				options[k] = v
			}
		}
		nt, err := s.newTable(ctx, w.Table, w.Provider, node.Schema(), w.PartitionBy, location, options, w.Properties, "")
		if err != nil {
			return nil, err
		}
		return s.empty2(s.createAndFill(ctx, nt, w.Input, true))
	}
	if !exists {
		return nil, sparkerr.TableNotFound(w.Table)
	}
	return nil, sparkerr.Analysis("_LEGACY_ERROR_TEMP_1012", "", "Cannot write into v1 table: %s.", t.QualifiedName()).
		WithParams("identifier", t.QualifiedName())
}

// streamTable resolves writeStream.toTable(name) into the file sink of the table's location,
// creating the table from the stream's schema when it does not exist (as Spark does).
func (s *Session) streamTable(ctx context.Context, ws *plan.WriteStream) error {
	name, err := splitTableName(ws.TableName)
	if err != nil {
		return err
	}
	t, exists, err := s.lookupTable(ctx, name)
	if err != nil {
		return err
	}
	if !exists {
		node, err := s.analyzer().Resolve(ctx, ws.Input)
		if err != nil {
			return err
		}
		options := map[string]string{}
		for k, v := range ws.Options {
			if !strings.EqualFold(k, "path") && !strings.EqualFold(k, "checkpointLocation") {
				options[k] = v
			}
		}
		if t, err = s.newTable(ctx, name, ws.Format, node.Schema(), ws.PartitionBy, ws.Path, options, nil, ""); err != nil {
			return err
		}
		store, err := s.storeOf(ctx, t)
		if err != nil {
			return err
		}
		if t, err = s.createInStore(ctx, store, t); err != nil {
			return err
		}
	} else if t.IsView() {
		return sparkerr.Analysis("EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE", "42809",
			"The view %s is not supported for writeStream.toTable.", t.QualifiedName())
	}
	exprs := make([]plan.Expr, len(t.Columns))
	for i, c := range t.Columns {
		exprs[i] = plan.Col(c.Name)
	}
	ws.Input = &plan.Project{Input: ws.Input, Exprs: exprs}
	ws.Format, ws.Path, ws.TableName, ws.PartitionBy = t.Format, t.Location, "", t.PartitionBy
	return nil
}

// splitTableName parses a writer's table name ("db.t", "`a.b`").
func splitTableName(name string) ([]string, error) {
	return parser.ParseMultipartIdentifier(name)
}

func fieldIndex(schema sqltypes.Schema, name string) int {
	for i, f := range schema {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func containsFold(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = sparkerr.Quote(n)
	}
	return strings.Join(q, ", ")
}
