package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sinks"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// A batch file write (df.write.parquet/json/csv/text) is the file sink run for one epoch
// without its commit log: every partition writes its rows to a hidden staging file, renamed
// at the end of its input to part-<partition>-<job uuid>-c000.<ext> (Spark's batch names);
// Finish then writes Spark's _SUCCESS marker. A write of no rows still leaves one (empty) part
// file, as Spark does, so the output can be read back with its schema. The directory gets no
// _spark_metadata, so readers list its files.
//
// Save modes, as Spark's InsertIntoHadoopFsRelationCommand: errorifexists (the default) fails
// with PATH_ALREADY_EXISTS when the path exists; ignore writes nothing then; overwrite replaces
// the path; append adds files. An overwrite writes the new output into a staging directory
// beside the path and swaps it in at Finish (overwrite.go): the old output is removed only
// after the new one is complete, and a failed or aborted write leaves the path as it was.

// successMarker is the file Spark's committer writes when a batch write succeeded.
const successMarker = "_SUCCESS"

func newFileBatchSink(ctx context.Context, format string, env sinks.Env, mode sinks.SaveMode, options map[string]string) (sinks.BatchSink, error) {
	s, err := buildFileSink(format, env, sinks.NewOptions(options))
	if err != nil {
		return nil, err
	}
	_, statErr := os.Lstat(s.dir)
	exists := statErr == nil
	switch {
	case exists && (mode == sinks.SaveErrorIfExists || mode == ""):
		uri := fileaccess.HadoopPath(s.dir)
		return nil, sparkerr.Analysis("PATH_ALREADY_EXISTS", "42K04",
			`Path %s already exists. Set mode as "overwrite" to overwrite the existing path.`, uri).WithParams("outputPath", uri)
	case exists && mode == sinks.SaveIgnore:
		return nil, nil
	}
	s.batch, s.jobID = true, sources.RandomID()
	if mode == sinks.SaveOverwrite {
		if _, err := env.Files.CheckReplace(s.dir); err != nil {
			return nil, err
		}
		s.replace, err = beginOverwrite(ctx, s.dir, s.jobID, env.Files.StateDir())
		if err != nil {
			return nil, err
		}
		s.dir = s.replace.staging
	} else if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, sparkerr.New("java.io.IOException", "", "", "Failed to create the output directory "+s.dir+": "+err.Error())
	}
	return sinks.BatchAdapter{Sink: s, OnFinish: s.finishWrite, OnAbort: s.abortWrite}, nil
}

// finishWrite completes a batch write: _SUCCESS, then an overwrite's swap.
func (s *fileSink) finishWrite(ctx context.Context) error {
	if err := s.finishBatch(); err != nil {
		s.abortWrite()
		return err
	}
	if s.replace != nil {
		return s.replace.commit(ctx)
	}
	return nil
}

// abortWrite abandons a batch write (an overwrite's staged output is removed).
func (s *fileSink) abortWrite() {
	if s.replace != nil {
		s.replace.abort()
	}
}

// batchFileName is a batch write's part file name.
func batchFileName(partition int, jobID, ext string) string {
	return fmt.Sprintf("part-%05d-%s-c000.%s", partition, jobID, ext)
}

// finishBatch ends a batch write: one empty part file if no partition wrote any, then
// _SUCCESS.
func (s *fileSink) finishBatch() error {
	s.mu.Lock()
	files := s.files
	s.mu.Unlock()
	if files == 0 {
		if err := s.writeEmptyFile(); err != nil {
			return err
		}
	}
	path := filepath.Join(s.dir, successMarker)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return sparkerr.New("java.io.IOException", "", "", "Failed to write "+path+": "+err.Error()).Wrap(err)
	}
	return nil
}

// writeEmptyFile writes a part file of no rows (for Parquet, the schema alone).
func (s *fileSink) writeEmptyFile() error {
	path := filepath.Join(s.dir, batchFileName(0, s.jobID, s.format.ext))
	f, err := os.Create(path)
	if err != nil {
		return sparkerr.New("java.io.IOException", "", "", "Failed to create "+path+": "+err.Error()).Wrap(err)
	}
	w, err := s.format.newWriter(f, memory.DefaultAllocator, s.data, s.env.TimeZone)
	if err == nil {
		err = w.close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return sparkerr.New("java.io.IOException", "", "", "Failed to write "+path+": "+err.Error()).Wrap(err)
	}
	return nil
}

// checkTextWritable is the text format's rule: exactly one column, of type string.
func checkTextWritable(schema sqltypes.Schema) error {
	if len(schema) != 1 {
		return sparkerr.New(sparkerr.AnalysisException, "_LEGACY_ERROR_TEMP_1135", "",
			fmt.Sprintf("Text data source supports only a single column, and you have %d columns.", len(schema))).
			WithParams("schemaSize", fmt.Sprint(len(schema)))
	}
	if t := schema[0].Type; t.Kind != sqltypes.String {
		col, typ := sparkerr.Quote(schema[0].Name), `"`+t.SQL()+`"`
		return sparkerr.Analysis("UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE", "0A000",
			"The Text datasource doesn't support the column %s of the type %s.", col, typ).
			WithParams("columnName", col, "columnType", typ, "format", "Text")
	}
	return nil
}

// appendTextRow renders a text row: the string, or an empty line for null.
func appendTextRow(buf []byte, vals []any, _ sqltypes.Schema, _ *time.Location, _ string) []byte {
	if s, ok := vals[0].(string); ok {
		buf = append(buf, s...)
	}
	return buf
}
