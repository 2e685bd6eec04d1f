package files

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/plan"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fileBatchRows is how many rows a batch read from a JSON, CSV or text file holds.
const fileBatchRows = 4096

// dataFile is a file of a directory a file source reads.
type dataFile struct {
	Path  string `json:"path"`
	Size  int64  `json:"size"`
	MTime int64  `json:"modificationTime"`
	// Partition is the file's Hive-style partition directories under the listed path.
	Partition []PartitionValue `json:"partition,omitempty"`
	// committed: a file sink's commit log lists the file, so it is complete (not logged).
	committed bool
}

// listDataFiles lists the data files under path, oldest first (modification time, then
// name). A directory written by a file sink yields only the files its commit log lists;
// otherwise hidden files ("_…", "…" starting with a dot) and files being copied are skipped.
// A path that is a file lists itself; a missing path lists nothing. path was resolved and
// checked by files; what it leads to (a glob's matches, the commit log and the files it names)
// is checked here. Links inside a listed directory are not followed.
func listDataFiles(files *fileaccess.Policy, path string) ([]dataFile, error) {
	if isGlob(path) {
		return listGlob(files, path)
	}
	return listPath(files, path)
}

// listPath lists the data files of one file or directory (no pattern).
func listPath(files *fileaccess.Policy, path string) ([]dataFile, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fileError("list", path, err)
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return nil, notRegularError(path, st.Mode())
		}
		return []dataFile{{Path: path, Size: st.Size(), MTime: st.ModTime().UnixMilli()}}, nil
	}
	var out []dataFile
	if _, err := files.CheckRead(filepath.Join(path, SinkLogDir)); err != nil {
		return nil, err
	}
	if logged, ok, err := ReadSinkLog(path); err != nil {
		return nil, err
	} else if ok {
		for _, f := range logged {
			p := LocalPath(f.Path)
			if _, err := os.Stat(p); err != nil {
				p = filepath.Join(path, filepath.Base(p))
			}
			if p, err = files.CheckRead(p); err != nil {
				return nil, err
			}
			out = append(out, dataFile{Path: p, Size: f.Size, MTime: f.ModificationTime, Partition: partitionValuesOf(path, p), committed: true})
		}
		return out, nil
	}
	out, err = listTree(path, path, out)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].MTime != out[j].MTime {
			return out[i].MTime < out[j].MTime
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// listTree appends the data files under dir (a directory below root, or root), descending
// into subdirectories (Hive-style partition directories col=value) except hidden ones.
func listTree(root, dir string, out []dataFile) ([]dataFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fileError("list", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			if out, err = listTree(root, filepath.Join(dir, name), out); err != nil {
				return nil, err
			}
			continue
		}
		if strings.HasSuffix(name, "._COPYING_") || strings.HasSuffix(name, ".tmp") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		if !info.Mode().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		out = append(out, dataFile{Path: p, Size: info.Size(), MTime: info.ModTime().UnixMilli(), Partition: partitionValuesOf(root, p)})
	}
	return out, nil
}

// isGlob reports whether a path is a glob pattern ("/in/*.json").
func isGlob(path string) bool { return strings.ContainsAny(path, "*?[") }

// listGlob lists the data files a glob matches: matching files, and the data files of
// matching directories. Every match is checked for reading by files.
func listGlob(files *fileaccess.Policy, pattern string) ([]dataFile, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, sparkerr.IllegalArgument("Invalid path pattern %s", pattern).Wrap(err)
	}
	// The directory before the first pattern character; hidden names below it are skipped.
	static := filepath.Dir(pattern[:strings.IndexAny(pattern, "*?[")] + "x")
	var out []dataFile
	for _, m := range matches {
		rel, err := filepath.Rel(static, m)
		if err != nil {
			continue
		}
		hidden := false
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			hidden = hidden || strings.HasPrefix(part, "_") || strings.HasPrefix(part, ".")
		}
		if hidden {
			continue
		}
		r, err := files.CheckRead(m)
		if err != nil {
			return nil, err
		}
		found, err := listPath(files, r)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].MTime != out[j].MTime {
			return out[i].MTime < out[j].MTime
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// fileReader reads data files of one format into batches of a schema.
type fileReader struct {
	mem memory.Allocator
	// budget, when mem is a query's memory budget, also counts the lines a batch holds.
	budget *flow.MemoryBudget
	// maxLine bounds a line of a line-based format (MaxLineBytesConf).
	maxLine int64
	opts    fileOptions
	schema  sqltypes.Schema
	tz      string
	loc     *time.Location
	arrow   *arrow.Schema
	// rowGroups, when set, picks the Parquet row groups (by index in their file) this reader
	// reads: a partition's share when a batch read spreads row groups over partitions.
	rowGroups func(int) bool
	// pruner, when set, skips Parquet row groups no row of which passes a scan's filters.
	pruner *rowGroupPruner
	// prunedRowGroups counts the row groups the pruner skipped.
	prunedRowGroups int
	// partition is the partition values of the file being read: those columns come from its
	// directory names, never from the file (neither read nor pruned on).
	partition []PartitionValue
}

func newFileReader(mem memory.Allocator, opts fileOptions, schema sqltypes.Schema, tz string, maxLine int64) *fileReader {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	budget, _ := mem.(*flow.MemoryBudget)
	if tz == "" {
		tz = "UTC"
	}
	loc, err := expr.LoadZone(tz)
	if err != nil {
		loc = time.UTC
	}
	return &fileReader{mem: mem, budget: budget, maxLine: maxLine, opts: opts, schema: schema, tz: tz, loc: loc, arrow: sqltypes.ToArrowSchema(schema, tz)}
}

// read emits the rows of the file at path as batches of the reader's schema (emit takes
// ownership).
func (r *fileReader) read(ctx context.Context, path string, emit func(arrow.RecordBatch) error) error {
	switch r.opts.format {
	case "parquet":
		return r.readParquet(ctx, path, emit)
	case "json":
		return r.readLines(ctx, path, emit, r.jsonRow)
	case "csv":
		first := true
		return r.readLines(ctx, path, emit, func(line string) ([]any, bool) {
			if first && r.opts.header {
				first = false
				return nil, false
			}
			first = false
			return r.csvRow(line), true
		})
	case "text":
		return r.readLines(ctx, path, emit, func(line string) ([]any, bool) { return []any{line}, true })
	}
	return sparkerr.Unsupported("file format %s", r.opts.format)
}

// readFile emits the rows of f as batches of the reader's schema, its partition columns
// filled from f's directory names (emit takes ownership). Each batch's environment (its
// schema's metadata, see flow.EnvSchema) is f as expr.InputFile, one whole-file block (start
// 0, length f's listed size), which input_file_name() and the block functions read.
func (r *fileReader) readFile(ctx context.Context, f dataFile, emit func(arrow.RecordBatch) error) error {
	r.partition = f.Partition
	md := expr.InputFile{URI: FileURI(f.Path), Start: 0, Length: f.Size}.Metadata()
	var in, out *arrow.Schema // the last batch's schema and that schema with f's environment
	return r.read(ctx, f.Path, func(rec arrow.RecordBatch) error {
		if len(f.Partition) > 0 {
			rec = r.fillPartitionColumns(rec, f.Partition)
		}
		if rec.Schema() != in {
			in, out = rec.Schema(), arrow.NewSchema(rec.Schema().Fields(), &md)
		}
		withFile := array.NewRecordBatch(out, rec.Columns(), rec.NumRows())
		rec.Release()
		return emit(withFile)
	})
}

func (r *fileReader) reserve(n int64) error {
	if r.budget == nil {
		return nil
	}
	return r.budget.Reserve(n)
}

func (r *fileReader) release(n int64) {
	if r.budget != nil {
		r.budget.Release(n)
	}
}

// buildRows turns rows of Go values into a batch of the schema.
func (r *fileReader) buildRows(rows [][]any) arrow.RecordBatch {
	cols := make([]arrow.Array, len(r.schema))
	vals := make([]any, len(rows))
	for c, f := range r.schema {
		for i, row := range rows {
			vals[i] = row[c]
		}
		cols[c] = expr.BuildArray(r.mem, f.Type, r.tz, vals)
	}
	rec := array.NewRecordBatch(r.arrow, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// jsonRow parses a JSON line into a row; a malformed line is a row of nulls (PERMISSIVE mode),
// a blank line no row.
func (r *fileReader) jsonRow(line string) ([]any, bool) {
	if strings.TrimSpace(line) == "" {
		return nil, false
	}
	row := make([]any, len(r.schema))
	dec := json.NewDecoder(strings.NewReader(expr.JSONSingleQuotes(line)))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return row, true
	}
	for i, f := range r.schema {
		v, ok := obj[f.Name]
		if !ok {
			continue
		}
		row[i] = jsonValue(v, f.Type, r.loc)
	}
	return row, true
}

// csvRow parses a CSV line into a row by column position; an empty unquoted field is null.
func (r *fileReader) csvRow(line string) []any {
	fields, quoted := splitCSVLine(line, []rune(r.opts.sep)[0])
	row := make([]any, len(r.schema))
	for i, f := range r.schema {
		if i >= len(fields) || (fields[i] == "" && !quoted[i]) {
			continue
		}
		row[i] = parseScalar(fields[i], f.Type, r.loc)
	}
	return row
}

// splitCSVLine splits a CSV line as Spark's default parser reads it: '"' quotes a field, '\'
// escapes the next character inside quotes, and a doubled quote is a literal quote.
func splitCSVLine(line string, sep rune) (fields []string, quoted []bool) {
	var b strings.Builder
	inQuotes, wasQuoted := false, false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case inQuotes && c == '\\' && i+1 < len(rs):
			i++
			b.WriteRune(rs[i])
		case inQuotes && c == '"' && i+1 < len(rs) && rs[i+1] == '"':
			i++
			b.WriteRune('"')
		case inQuotes && c == '"':
			inQuotes = false
		case !inQuotes && c == '"' && b.Len() == 0:
			inQuotes, wasQuoted = true, true
		case !inQuotes && c == sep:
			fields, quoted = append(fields, b.String()), append(quoted, wasQuoted)
			b.Reset()
			wasQuoted = false
		default:
			b.WriteRune(c)
		}
	}
	return append(fields, b.String()), append(quoted, wasQuoted)
}

// conform returns rec's columns as the schema's (by name, case-insensitively): missing
// columns are null, other types are cast (values that do not fit become null).
func (r *fileReader) conform(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := rec.NumRows()
	cols := make([]arrow.Array, len(r.schema))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, f := range r.schema {
		want := r.arrow.Field(i).Type
		idx := -1
		for j, af := range rec.Schema().Fields() {
			if strings.EqualFold(af.Name, f.Name) {
				idx = j
				break
			}
		}
		if idx < 0 {
			cols[i] = array.MakeArrayOfNull(r.mem, want, int(n))
			continue
		}
		col, err := r.convert(rec.Column(idx), f.Type, want)
		if err != nil {
			release()
			return nil, err
		}
		cols[i] = col
	}
	out := array.NewRecordBatch(r.arrow, cols, n)
	release()
	return out, nil
}

// convert returns col as Spark type t (Arrow type want).
func (r *fileReader) convert(col arrow.Array, t sqltypes.DataType, want arrow.DataType) (arrow.Array, error) {
	have := col.DataType()
	if arrow.TypeEqual(have, want) {
		col.Retain()
		return col, nil
	}
	if v, ok := col.(*extensions.VariantArray); ok && t.Kind == sqltypes.Variant {
		return fromParquetVariant(v, r.mem)
	}
	if ht, ok := have.(*arrow.TimestampType); ok {
		if wt, ok := want.(*arrow.TimestampType); ok {
			// Same instants in another unit or zone label (Spark's INT96 Parquet timestamps
			// arrive as nanoseconds).
			return r.timestampAs(col.(*array.Timestamp), ht.Unit, wt), nil
		}
	}
	from, err := sqltypes.FromArrow(have)
	if err != nil {
		return nil, err
	}
	cast, err := expr.NewCast(&expr.Column{Index: 0, T: from, Null: true}, t, plan.CastTry, expr.Options{TimeZone: r.tz})
	if err != nil {
		return nil, err
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: have, Nullable: true}}, nil),
		[]arrow.Array{col}, int64(col.Len()))
	defer one.Release()
	return cast.Eval(&expr.Context{Mem: r.mem, Location: r.loc}, one)
}

// timestampAs converts timestamps of unit from to the micro- (or other unit) timestamps of want.
func (r *fileReader) timestampAs(col *array.Timestamp, from arrow.TimeUnit, want *arrow.TimestampType) arrow.Array {
	if from == want.Unit {
		return array.MakeFromData(array.NewData(want, col.Len(), col.Data().Buffers(), nil, col.NullN(), col.Data().Offset()))
	}
	b := array.NewTimestampBuilder(r.mem, want)
	defer b.Release()
	b.Reserve(col.Len())
	fromPer, toPer := int64(from.Multiplier()), int64(want.Unit.Multiplier())
	for i := 0; i < col.Len(); i++ {
		if col.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := int64(col.Value(i))
		if fromPer < toPer {
			v = floorDiv(v, int64(toPer/fromPer))
		} else {
			v *= fromPer / toPer
		}
		b.Append(arrow.Timestamp(v))
	}
	return b.NewArray()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
