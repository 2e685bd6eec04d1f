package files

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/expr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// fileFormat is how a file sink encodes rows.
type fileFormat struct {
	name   string // "parquet", "json", "csv", "text"
	ext    string // file name extension
	header bool   // csv: a header line per file
	sep    string // csv field separator
}

// formatWriter encodes batches of user columns into one file.
type formatWriter interface {
	write(rec arrow.RecordBatch) error
	// close finishes the file's encoding (footers, buffers) without closing the file.
	close() error
}

// checkWritable refuses column types a format cannot store, as Spark does at start.
func (f fileFormat) checkWritable(schema sqltypes.Schema) error {
	if f.name == "text" {
		return checkTextWritable(schema)
	}
	for _, c := range schema {
		if hasKind(c.Type, sqltypes.DayTimeInterval) || hasKind(c.Type, sqltypes.YearMonthInterval) ||
			hasKind(c.Type, sqltypes.CalendarInterval) ||
			(f.name == "csv" && (c.Type.Kind == sqltypes.Array || c.Type.Kind == sqltypes.Map || c.Type.Kind == sqltypes.Struct)) {
			name := strings.ToUpper(f.name)
			col := sparkerr.Quote(c.Name)
			typ := `"` + c.Type.SQL() + `"`
			return sparkerr.Analysis("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", "0A000",
				"The %s datasource doesn't support the column %s of the type %s.", name, col, typ).
				WithParams("columnName", col, "columnType", typ, "format", name)
		}
	}
	return nil
}

func hasKind(t sqltypes.DataType, k sqltypes.Kind) bool {
	switch {
	case t.Kind == k:
		return true
	case t.Kind == sqltypes.Array:
		return hasKind(*t.Elem, k)
	case t.Kind == sqltypes.Map:
		return hasKind(*t.Key, k) || hasKind(*t.Value, k)
	case t.Kind == sqltypes.Struct:
		for _, f := range t.Fields {
			if hasKind(f.Type, k) {
				return true
			}
		}
	}
	return false
}

// newWriter starts a file of the format on w.
func (f fileFormat) newWriter(w io.Writer, mem memory.Allocator, schema sqltypes.Schema, tz string) (formatWriter, error) {
	loc, err := expr.LoadZone(tz)
	if err != nil {
		loc = time.UTC
	}
	switch f.name {
	case "parquet":
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithAllocator(mem))
		as := parquetWriteSchema(schema, tz)
		fw, err := pqarrow.NewFileWriter(as, nopCloser{w}, props,
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)))
		if err != nil {
			return nil, sparkerr.Internal("start a Parquet file: %v", err)
		}
		pw := parquetWriter{fw: fw}
		if hasTopLevelVariant(schema) {
			pw.schema, pw.arrow = schema, as
		}
		return pw, nil
	case "json":
		return &textWriter{w: bufio.NewWriterSize(w, 64<<10), schema: schema, loc: loc, row: appendJSONRow}, nil
	case "csv":
		tw := &textWriter{w: bufio.NewWriterSize(w, 64<<10), schema: schema, loc: loc, sep: f.sep, row: appendCSVRow}
		if f.header {
			fields := make([]string, len(schema))
			for i, c := range schema {
				fields[i] = csvField(c.Name, f.sep)
			}
			tw.w.WriteString(strings.Join(fields, f.sep) + "\n")
		}
		return tw, nil
	case "text":
		return &textWriter{w: bufio.NewWriterSize(w, 64<<10), schema: schema, loc: loc, row: appendTextRow}, nil
	}
	return nil, sparkerr.Unsupported("file sink format %s", f.name)
}

// nopCloser keeps the Parquet writer from closing the file (the sink syncs and renames it).
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// parquetWriter writes a Parquet file; schema and arrow are set when top-level VARIANT columns
// are written as Parquet variants (parquet_variant.go).
type parquetWriter struct {
	fw     *pqarrow.FileWriter
	schema sqltypes.Schema
	arrow  *arrow.Schema
}

func (p parquetWriter) write(rec arrow.RecordBatch) error {
	if p.arrow != nil {
		rec = toParquetVariants(rec, p.schema, p.arrow)
		defer rec.Release()
	}
	if err := p.fw.WriteBuffered(rec); err != nil {
		return sparkerr.Internal("write a Parquet file: %v", err)
	}
	return nil
}

func (p parquetWriter) close() error {
	if err := p.fw.Close(); err != nil {
		return sparkerr.Internal("finish a Parquet file: %v", err)
	}
	return nil
}

// textWriter writes one line per row (JSON lines, CSV).
type textWriter struct {
	w      *bufio.Writer
	schema sqltypes.Schema
	loc    *time.Location
	sep    string
	row    func(buf []byte, vals []any, schema sqltypes.Schema, loc *time.Location, sep string) []byte
	buf    []byte
}

func (t *textWriter) write(rec arrow.RecordBatch) error {
	vals := make([]any, len(t.schema))
	for i := 0; i < int(rec.NumRows()); i++ {
		for c, f := range t.schema {
			vals[c] = expr.ValueAt(rec.Column(c), i, f.Type)
		}
		t.buf = t.row(t.buf[:0], vals, t.schema, t.loc, t.sep)
		t.buf = append(t.buf, '\n')
		if _, err := t.w.Write(t.buf); err != nil {
			return err
		}
	}
	return nil
}

func (t *textWriter) close() error { return t.w.Flush() }

// appendJSONRow renders a row as Spark's JSON writer does (the same generator as to_json):
// fields in schema order, nulls omitted (ignoreNullFields).
func appendJSONRow(buf []byte, vals []any, schema sqltypes.Schema, loc *time.Location, _ string) []byte {
	return expr.AppendJSONValue(buf, vals, sqltypes.DataType{Kind: sqltypes.Struct, Fields: schema}, loc)
}

// appendCSVRow renders a row as Spark's CSV writer does: null is an empty field, an empty
// string is "", values are trimmed of surrounding whitespace and quoted when they hold the
// separator, a quote or a line break (quotes escaped with a backslash).
func appendCSVRow(buf []byte, vals []any, schema sqltypes.Schema, loc *time.Location, sep string) []byte {
	for i, f := range schema {
		if i > 0 {
			buf = append(buf, sep...)
		}
		if vals[i] == nil {
			continue
		}
		s := strings.TrimFunc(scalarText(vals[i], f.Type, loc), func(r rune) bool { return r <= ' ' })
		if s == "" {
			buf = append(buf, `""`...)
			continue
		}
		buf = append(buf, csvField(s, sep)...)
	}
	return buf
}

func csvField(s, sep string) string {
	if !strings.ContainsAny(s, sep+"\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// scalarText renders an atomic value as Spark's JSON and CSV writers do.
func scalarText(v any, t sqltypes.DataType, loc *time.Location) string {
	switch t.Kind {
	case sqltypes.Boolean:
		return strconv.FormatBool(v.(bool))
	case sqltypes.Byte:
		return strconv.FormatInt(int64(v.(int8)), 10)
	case sqltypes.Short:
		return strconv.FormatInt(int64(v.(int16)), 10)
	case sqltypes.Integer:
		return strconv.FormatInt(int64(v.(int32)), 10)
	case sqltypes.Long:
		return strconv.FormatInt(v.(int64), 10)
	case sqltypes.Float:
		return expr.JavaDouble(float64(v.(float32)), 32)
	case sqltypes.Double:
		return expr.JavaDouble(v.(float64), 64)
	case sqltypes.Decimal:
		return v.(sqltypes.Decimal128).ToString(t.Scale)
	case sqltypes.String:
		return v.(string)
	case sqltypes.Binary:
		return base64.StdEncoding.EncodeToString(v.([]byte))
	case sqltypes.Date:
		return time.Unix(int64(v.(int32))*86400, 0).UTC().Format("2006-01-02")
	case sqltypes.Timestamp:
		// timestampFormat "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" in the session time zone.
		return time.UnixMicro(v.(int64)).In(loc).Format("2006-01-02T15:04:05.000Z07:00")
	case sqltypes.TimestampNTZ:
		return time.UnixMicro(v.(int64)).UTC().Format("2006-01-02T15:04:05.000")
	case sqltypes.Time:
		return sqltypes.FormatTime(v.(int64))
	}
	return ""
}
