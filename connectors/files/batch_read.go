package files

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// FileBatch reads every data file under Paths (spark.read.format(f).load(path)) when it runs:
// files a file sink wrote are read through its commit log. Files are spread over the
// partitions round-robin; when Parquet files are fewer than the partitions, their row groups
// are cut into contiguous ranges, one per partition (readRowGroupShare).
type FileBatch struct {
	Format  string
	Options map[string]string
	Paths   []string
	// Schema is the rows' schema (FileBatchSchema's answer).
	Schema   sqltypes.Schema
	TimeZone string
	// Files is the file-access policy every path and glob match is checked with.
	Files *fileaccess.Policy
	// MaxLineBytes bounds a line of text, JSON and CSV files (MaxLineBytesConf; ≤ 0: the default).
	MaxLineBytes int64
	// Filters are advisory conjuncts over Schema (logical.SourceScan.Filters): Parquet row
	// groups whose min/max statistics and null counts prove that no row passes one are not read.
	// Rows that are read are not filtered: the plan's Filter does that.
	Filters []expr.Expr
}

// Run implements flow.Source.
func (b FileBatch) Run(ctx context.Context, env flow.Env, out flow.Emitter) error {
	o, err := parseFileOptions(b.Format, sources.NormalizeOptions(b.Options))
	if err != nil {
		return err
	}
	files, err := listPaths(b.Files, b.Paths)
	if err != nil {
		return err
	}
	r := newFileReader(env.Mem, o, b.Schema, b.TimeZone, b.MaxLineBytes)
	if o.format == "parquet" {
		r.pruner = newRowGroupPruner(b.Filters, r.schema, r.arrow, r.mem, r.tz, r.loc)
	}
	var in, schema *arrow.Schema // the last batch's schema; the output schema with its environment
	emit := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		if rec.Schema() != in {
			in, schema = rec.Schema(), flow.EnvSchema(env.OutSchema, rec)
		}
		return out.Emit(ctx, flow.NewDataBatch(env.Mem, schema, rec.Columns(), nil))
	}
	parts := max(1, env.Partitions)
	if o.format == "parquet" && len(files) < parts {
		return b.readRowGroupShare(ctx, r, files, env.Partition, parts, emit)
	}
	for i := env.Partition; i < len(files); i += parts {
		if err := r.readFile(ctx, files[i], emit); err != nil {
			return err
		}
	}
	return nil
}

// readRowGroupShare reads partition's share of the files' row groups: their sequence over the
// files in order, cut into parts contiguous ranges, so that the partitions read in turn give
// the rows in file order (as Spark's file splits do).
func (b FileBatch) readRowGroupShare(ctx context.Context, r *fileReader, files []dataFile, partition, parts int, emit func(arrow.RecordBatch) error) error {
	counts := make([]int, len(files))
	total := 0
	for i, f := range files {
		pf, err := file.OpenParquetFile(f.Path, false)
		if err != nil {
			return fileError("open the Parquet file", f.Path, err)
		}
		counts[i] = pf.NumRowGroups()
		pf.Close()
		total += counts[i]
	}
	lo, hi := partition*total/parts, (partition+1)*total/parts
	first := 0 // the position of the file's first row group in the sequence
	for i, f := range files {
		start := first
		first += counts[i]
		if start >= hi || first <= lo {
			continue
		}
		r.rowGroups = func(g int) bool { return start+g >= lo && start+g < hi }
		if err := r.readFile(ctx, f, emit); err != nil {
			return err
		}
	}
	return nil
}

// listPaths lists the data files of every path, each checked for reading by files (a glob's
// matches each); a missing path is Spark's PATH_NOT_FOUND.
func listPaths(files *fileaccess.Policy, paths []string) ([]dataFile, error) {
	var all []dataFile
	for _, p := range paths {
		r, err := files.CheckRead(p)
		if err != nil {
			return nil, err
		}
		if matches, _ := filepath.Glob(r); isGlob(r) && len(matches) == 0 {
			uri := FileURI(r)
			return nil, sparkerr.Analysis("PATH_NOT_FOUND", "42K03", "Path does not exist: %s.", uri).WithParams("path", uri)
		}
		if _, err := os.Stat(r); err != nil && !isGlob(r) {
			uri := FileURI(r)
			return nil, sparkerr.Analysis("PATH_NOT_FOUND", "42K03", "Path does not exist: %s.", uri).WithParams("path", uri)
		}
		found, err := listDataFiles(files, r)
		if err != nil {
			return nil, err
		}
		all = append(all, found...)
	}
	return all, nil
}

// FileBatchSchema is the schema of a batch file read: the user's if given (text: value
// STRING), else inferred as Spark does without options: Parquet's from its first file, JSON's
// from every record (fields sorted by name), CSV's as string columns named by the header or
// _c0, _c1, …. Every path is checked for reading by files before anything is read.
func FileBatchSchema(files *fileaccess.Policy, format string, options map[string]string, paths []string, userSchema string) (sqltypes.Schema, error) {
	opts := sources.NormalizeOptions(options)
	o, err := parseFileOptions(format, opts)
	if err != nil {
		return nil, err
	}
	paths = sources.ReadPaths(opts, paths)
	if len(paths) == 0 {
		return nil, sparkerr.IllegalArgument("'path' is not specified")
	}
	for _, p := range paths {
		if _, err := files.CheckRead(p); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(userSchema) != "" {
		s, err := ParseUserSchema(userSchema)
		if err != nil {
			return nil, err
		}
		found, _ := listPaths(files, paths) // a missing path fails when the read runs
		return withPartitionColumns(s, found), nil
	}
	found, err := listPaths(files, paths)
	if err != nil {
		return nil, err
	}
	if o.format == "text" {
		return withPartitionColumns(textSchema, found), nil
	}
	var s sqltypes.Schema
	switch o.format {
	case "parquet":
		s, err = inferParquet(found)
	case "json":
		s, err = inferJSON(found)
	case "csv":
		s, err = inferCSV(found, o)
	}
	if err != nil {
		return nil, err
	}
	s = withoutPartitionColumns(s, found)
	if len(s) == 0 {
		name := map[string]string{"parquet": "Parquet", "json": "JSON", "csv": "CSV"}[o.format]
		return nil, sparkerr.Analysis("UNABLE_TO_INFER_SCHEMA", "42KD9",
			"Unable to infer schema for %s. It must be specified manually.", name).WithParams("format", name)
	}
	return withPartitionColumns(s, found), nil
}

func inferParquet(files []dataFile) (sqltypes.Schema, error) {
	if len(files) == 0 {
		return nil, nil
	}
	pf, err := file.OpenParquetFile(files[0].Path, false)
	if err != nil {
		return nil, fileError("open the Parquet file", files[0].Path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fileError("read the Parquet file", files[0].Path, err)
	}
	as, err := fr.Schema()
	if err != nil {
		return nil, fileError("read the schema of", files[0].Path, err)
	}
	s, err := sqltypes.FromArrowSchema(as)
	if err != nil {
		return nil, err
	}
	for i := range s {
		s[i].Nullable = true
	}
	return s, nil
}

func inferCSV(files []dataFile, o fileOptions) (sqltypes.Schema, error) {
	for _, f := range files {
		fh, err := os.Open(f.Path)
		if err != nil {
			return nil, fileError("open", f.Path, err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		ok := sc.Scan()
		line := strings.TrimSuffix(sc.Text(), "\r")
		fh.Close()
		if !ok {
			continue
		}
		fields, _ := splitCSVLine(line, []rune(o.sep)[0])
		s := make(sqltypes.Schema, len(fields))
		for i, name := range fields {
			if !o.header || name == "" {
				name = "_c" + strconv.Itoa(i)
			}
			s[i] = sqltypes.Field{Name: name, Type: sqltypes.DataType{Kind: sqltypes.String}, Nullable: true}
		}
		return s, nil
	}
	return nil, nil
}

// inferJSON infers a JSON read's schema from all of its records.
func inferJSON(files []dataFile) (sqltypes.Schema, error) {
	var root *sqltypes.DataType
	for _, f := range files {
		fh, err := os.Open(f.Path)
		if err != nil {
			return nil, fileError("open", f.Path, err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			dec := json.NewDecoder(strings.NewReader(expr.JSONSingleQuotes(line)))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) != nil {
				continue
			}
			if _, ok := v.(map[string]any); !ok {
				continue
			}
			t := inferJSONType(v)
			if root == nil {
				root = &t
			} else {
				m := mergeJSONTypes(*root, t)
				root = &m
			}
		}
		err = sc.Err()
		fh.Close()
		if err != nil {
			return nil, fileError("read", f.Path, err)
		}
	}
	if root == nil {
		return nil, nil
	}
	return sqltypes.Schema(nullsToString(*root).Fields), nil
}

func inferJSONType(v any) sqltypes.DataType {
	switch x := v.(type) {
	case nil:
		return sqltypes.DataType{Kind: sqltypes.Null}
	case bool:
		return sqltypes.DataType{Kind: sqltypes.Boolean}
	case json.Number:
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return sqltypes.DataType{Kind: sqltypes.Long}
		}
		return sqltypes.DataType{Kind: sqltypes.Double}
	case string:
		return sqltypes.DataType{Kind: sqltypes.String}
	case []any:
		elem := sqltypes.DataType{Kind: sqltypes.Null}
		for _, it := range x {
			elem = mergeJSONTypes(elem, inferJSONType(it))
		}
		return sqltypes.ArrayType(elem, true)
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		fields := make([]sqltypes.Field, len(names))
		for i, n := range names {
			fields[i] = sqltypes.Field{Name: n, Type: inferJSONType(x[n]), Nullable: true}
		}
		return sqltypes.StructType(fields...)
	}
	return sqltypes.DataType{Kind: sqltypes.String}
}

// mergeJSONTypes is the type holding values of both a and b (Spark's compatibleType:
// long+double is double, conflicting kinds are string).
func mergeJSONTypes(a, b sqltypes.DataType) sqltypes.DataType {
	switch {
	case a.Kind == sqltypes.Null:
		return b
	case b.Kind == sqltypes.Null:
		return a
	case a.Kind == sqltypes.Struct && b.Kind == sqltypes.Struct:
		return sqltypes.MergeStructsByName(a, b, mergeJSONTypes)
	case a.Kind == sqltypes.Array && b.Kind == sqltypes.Array:
		return sqltypes.ArrayType(mergeJSONTypes(*a.Elem, *b.Elem), true)
	case a.Kind == b.Kind:
		return a
	case (a.Kind == sqltypes.Long && b.Kind == sqltypes.Double) || (a.Kind == sqltypes.Double && b.Kind == sqltypes.Long):
		return sqltypes.DataType{Kind: sqltypes.Double}
	}
	return sqltypes.DataType{Kind: sqltypes.String}
}

// nullsToString types fields that were null in every record as string, as Spark does.
func nullsToString(t sqltypes.DataType) sqltypes.DataType {
	switch t.Kind {
	case sqltypes.Null:
		return sqltypes.DataType{Kind: sqltypes.String}
	case sqltypes.Array:
		return sqltypes.ArrayType(nullsToString(*t.Elem), true)
	case sqltypes.Struct:
		fields := make([]sqltypes.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = sqltypes.Field{Name: f.Name, Type: nullsToString(f.Type), Nullable: true}
		}
		return sqltypes.StructType(fields...)
	}
	return t
}
