package iceberg

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	iceberg "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// Read options (spark.read.option), as Spark's Iceberg source names them; the engine turns
// VERSION AS OF and TIMESTAMP AS OF into them.
const (
	SnapshotIDOption  = "snapshot-id"
	AsOfTimestampOpts = "as-of-timestamp" // milliseconds since the epoch
	// VersionAsOfOption is VERSION AS OF's version (Weir's own option): a snapshot id, or
	// the name of a branch or tag, as Iceberg's SparkCatalog.loadTable(ident, version).
	VersionAsOfOption = "weir.version-as-of"
)

// Batch reads one snapshot of a table: the one the read was planned on (the current one, or
// the time-travel options'), so every partition reads the same snapshot however many commits
// happen meanwhile. Data files are spread over the partitions round-robin, after Iceberg's
// own pruning by partition values and column statistics with the pushed-down filters.
type Batch struct {
	Location   string
	SnapshotID int64 // 0: the table has no snapshot (no rows)
	Schema     sqltypes.Schema
	TimeZone   string
	Files      *fileaccess.Policy
	Filter     iceberg.BooleanExpression
	// Incremental, if set, reads the rows appended after snapshot FromSnapshot up to SnapshotID
	// (the stream source).
	Incremental  bool
	FromSnapshot int64
}

// tableOf resolves the read's location and loads the table.
func tableOf(ctx context.Context, files *fileaccess.Policy, options map[string]string, paths []string) (*table.Table, string, error) {
	ps := sources.ReadPaths(options, paths)
	if len(ps) != 1 {
		return nil, "", sparkerr.Analysis("_LEGACY_ERROR_TEMP_1307", "", "An Iceberg read takes one table location, not %d paths", len(ps))
	}
	loc, err := files.CheckRead(ps[0])
	if err != nil {
		return nil, "", err
	}
	tbl, err := Load(ctx, loc)
	return tbl, loc, err
}

// snapshotOf is the snapshot a read of tbl with options reads (nil: the table is empty), with
// the errors of Iceberg's Spark runtime for a snapshot that is not there.
func snapshotOf(tbl *table.Table, options map[string]string) (*table.Snapshot, error) {
	opts := sources.NormalizeOptions(options)
	id, hasID := opts[SnapshotIDOption]
	ts, hasTS := opts[AsOfTimestampOpts]
	version, hasVersion := opts[VersionAsOfOption]
	switch {
	case hasID && hasTS:
		return nil, sparkerr.IllegalArgument("Cannot specify both snapshot-id (%s) and as-of-timestamp (%s)", id, ts)
	case hasVersion:
		if _, err := strconv.ParseInt(strings.TrimSpace(version), 10, 64); err == nil {
			return snapshotByID(tbl, version)
		}
		snap := tbl.SnapshotByName(version)
		if snap == nil {
			return nil, sparkerr.New("org.apache.iceberg.exceptions.ValidationException", "", "",
				"Cannot find matching snapshot ID or reference name for version "+version)
		}
		return snap, nil
	case hasID:
		return snapshotByID(tbl, id)
	case hasTS:
		ms, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
		if err != nil {
			return nil, sparkerr.New("java.lang.NumberFormatException", "", "", "For input string: \""+ts+"\"")
		}
		snap := tbl.SnapshotAsOf(ms, true)
		if snap == nil {
			return nil, sparkerr.IllegalArgument("Cannot find a snapshot older than %s", formatMillis(ms))
		}
		return snap, nil
	}
	return tbl.CurrentSnapshot(), nil
}

func snapshotByID(tbl *table.Table, id string) (*table.Snapshot, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
	if err != nil {
		return nil, sparkerr.New("java.lang.NumberFormatException", "", "", "For input string: \""+id+"\"")
	}
	snap := tbl.SnapshotByID(n)
	if snap == nil {
		return nil, sparkerr.IllegalArgument("Cannot find snapshot with ID %d", n)
	}
	return snap, nil
}

// formatMillis renders a timestamp as Iceberg's DateTimeUtil.formatTimestampMillis.
func formatMillis(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	layout := "2006-01-02T15:04:05"
	if ms%1000 != 0 {
		layout += ".000"
	}
	return t.Format(layout) + "+00:00"
}

// batchSchema is the schema of a read: the read snapshot's schema.
func batchSchema(env connectors.BatchEnv, options map[string]string, paths []string) (sqltypes.Schema, error) {
	ctx := context.Background()
	tbl, _, err := tableOf(ctx, env.Files, options, paths)
	if err != nil {
		return nil, err
	}
	snap, err := snapshotOf(tbl, options)
	if err != nil {
		return nil, err
	}
	sc := tbl.Schema()
	if snap != nil && snap.SchemaID != nil {
		if s, ok := tbl.Schemas()[*snap.SchemaID]; ok {
			sc = s
		}
	}
	return SparkSchema(sc)
}

func batchRead(env connectors.BatchEnv, options map[string]string, paths []string, schema sqltypes.Schema) (flow.Source, int, error) {
	ctx := context.Background()
	tbl, loc, err := tableOf(ctx, env.Files, options, paths)
	if err != nil {
		return nil, 0, err
	}
	snap, err := snapshotOf(tbl, options)
	if err != nil {
		return nil, 0, err
	}
	b := Batch{Location: loc, Schema: schema, TimeZone: env.TimeZone, Files: env.Files, Filter: pushedFilter(env.Filters, schema)}
	if snap != nil {
		b.SnapshotID = snap.SnapshotID
	}
	return b, env.DefaultPartitions, nil
}

// Run implements flow.Source.
func (b Batch) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	return b.read(ctx, env.Partition, max(1, env.Partitions), func(rec arrow.RecordBatch) error {
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		return out.Emit(ctx, flow.NewDataBatch(env.Mem, env.OutSchema, rec.Columns(), nil))
	}, env)
}

// read emits partition's share of the read's rows as batches of b.Schema (user columns).
func (b Batch) read(ctx context.Context, partition, parts int, emit func(arrow.RecordBatch) error, env flow.Env) error {
	if b.SnapshotID == 0 {
		return nil
	}
	tbl, err := Load(ctx, b.Location)
	if err != nil {
		return err
	}
	opts := []table.ScanOption{table.WithSnapshotID(b.SnapshotID), table.WithCaseSensitive(false)}
	if len(b.Schema) > 0 {
		opts = append(opts, table.WithSelectedFields(b.Schema.Names()...))
	}
	if b.Filter != nil {
		opts = append(opts, table.WithRowFilter(b.Filter))
	}
	scan := tbl.Scan(opts...)
	defer scan.Close()
	var tasks []table.FileScanTask
	if b.Incremental {
		inc := tbl.NewIncrementalAppendScan(opts...).ToSnapshot(b.SnapshotID)
		if b.FromSnapshot != 0 {
			inc = inc.FromSnapshotExclusive(b.FromSnapshot)
		}
		tasks, err = inc.PlanFiles(ctx)
	} else {
		tasks, err = scan.PlanFiles(ctx)
	}
	if err != nil {
		return ioError("planning the scan of the Iceberg table "+b.Location, err)
	}
	var mine []table.FileScanTask
	for i := partition; i < len(tasks); i += parts {
		path, err := localPathOf(tasks[i].File.FilePath())
		if err != nil {
			return ioError("reading the Iceberg table "+b.Location, err)
		}
		if _, err := b.Files.CheckRead(path); err != nil {
			return err
		}
		mine = append(mine, tasks[i])
	}
	if len(mine) == 0 {
		return nil
	}
	_, recs, err := scan.ReadTasks(ctx, mine)
	if err != nil {
		return ioError("reading the Iceberg table "+b.Location, err)
	}
	want := sqltypes.ToArrowSchema(b.Schema, b.TimeZone)
	for rec, err := range recs {
		if err != nil {
			return ioError("reading the Iceberg table "+b.Location, err)
		}
		c, err := conform(ctx, env.Mem, rec, want)
		if err != nil {
			return err
		}
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// pushedFilter is the conjunction of the filters' range terms Iceberg can evaluate over its
// partition values and column statistics (nil: none). Rows are still filtered by the plan.
func pushedFilter(filters []expr.Expr, schema sqltypes.Schema) iceberg.BooleanExpression {
	var out iceberg.BooleanExpression
	for _, f := range filters {
		for _, t := range expr.RangeTerms(f) {
			c, ok := t.Operand.(*expr.Column)
			if !ok || t.Column < 0 || t.Column >= len(schema) || c == nil {
				continue
			}
			e := termExpr(schema[t.Column].Name, t)
			if e == nil {
				continue
			}
			if out == nil {
				out = e
			} else {
				out = iceberg.NewAnd(out, e)
			}
		}
	}
	return out
}

// termExpr is one range term as an Iceberg predicate (nil: a value type it does not take).
func termExpr(name string, t expr.RangeTerm) iceberg.BooleanExpression {
	ref := iceberg.Reference(name)
	switch t.Op {
	case "isnull":
		return iceberg.UnaryPredicate(iceberg.OpIsNull, ref)
	case "isnotnull":
		return iceberg.UnaryPredicate(iceberg.OpNotNull, ref)
	}
	lits := make([]iceberg.Literal, 0, len(t.Values))
	for _, v := range t.Values {
		l := literal(v)
		if l == nil {
			return nil
		}
		lits = append(lits, l)
	}
	if len(lits) == 0 {
		return nil
	}
	switch t.Op {
	case "=":
		return iceberg.LiteralPredicate(iceberg.OpEQ, ref, lits[0])
	case "<":
		return iceberg.LiteralPredicate(iceberg.OpLT, ref, lits[0])
	case "<=":
		return iceberg.LiteralPredicate(iceberg.OpLTEQ, ref, lits[0])
	case ">":
		return iceberg.LiteralPredicate(iceberg.OpGT, ref, lits[0])
	case ">=":
		return iceberg.LiteralPredicate(iceberg.OpGTEQ, ref, lits[0])
	case "in":
		return iceberg.SetPredicate(iceberg.OpIn, ref, lits)
	}
	return nil
}

// literal is a Spark value as an Iceberg literal, for the types whose values compare alike.
func literal(v any) iceberg.Literal {
	switch x := v.(type) {
	case int8:
		return iceberg.NewLiteral(int32(x))
	case int16:
		return iceberg.NewLiteral(int32(x))
	case int32:
		return iceberg.NewLiteral(x)
	case int64:
		return iceberg.NewLiteral(x)
	case string:
		return iceberg.NewLiteral(x)
	case bool:
		return iceberg.NewLiteral(x)
	}
	return nil
}
