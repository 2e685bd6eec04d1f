package engine

import (
	"strings"

	"github.com/weirhq/weir/connectors/files"
	"github.com/weirhq/weir/connectors/kafka"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sqltypes"
)

// sourceSchemas answers the analyzer's data source reads (analyzer.SourceSchemas): streaming
// reads (spark.readStream) take their schema from the stream source registry; batch reads
// (spark.read) exist for the file formats (file_sources.go) and are refused otherwise, with
// Spark's own error for formats that exist only as stream sources (spark.read.format("rate")).
// File paths are checked with the session's file-access policy here already, so a refused
// path fails the read (or readStream.load()) before anything is read.
type sourceSchemas struct {
	files *fileaccess.Policy
}

// Schema implements analyzer.SourceSchemas.
func (ss sourceSchemas) Schema(format string, options map[string]string, userSchema string, streaming bool) (sqltypes.Schema, error) {
	if format == "" {
		format = "parquet" // spark.sql.sources.default
	}
	if streaming {
		if p := sources.NormalizeOptions(options)["path"]; p != "" && files.IsFileFormat(format) {
			if _, err := ss.files.CheckRead(p); err != nil {
				return nil, err
			}
		}
		return sources.StreamSchema(format, options, userSchema)
	}
	if files.IsFileFormat(format) {
		return files.FileBatchSchema(ss.files, format, options, nil, userSchema)
	}
	if strings.EqualFold(format, kafkaFormat) {
		return kafka.KafkaBatchSchema(options, userSchema)
	}
	if _, err := sources.StreamSchema(format, options, userSchema); err == nil || !isSourceNotFound(err) {
		// The format is a stream source: Spark's table for it has no BATCH_READ capability.
		name := sparkerr.Quote(format)
		return nil, sparkerr.Analysis("UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
			"The feature is not supported: Table %s does not support batch scan. Please check the current catalog "+
				"and namespace to make sure the qualified table name is expected, and also check the catalog "+
				"implementation which is configured by \"spark.sql.catalog\".", name).
			WithParams("tableName", name, "operation", "batch scan")
	}
	return nil, sparkerr.Unsupported("batch reads of data source %s are not supported (Weir reads data sources only as streams: spark.readStream)",
		sparkerr.Quote(strings.ToLower(format)))
}

func isSourceNotFound(err error) bool {
	se, ok := sparkerr.As(err)
	return ok && se.Class == "DATA_SOURCE_NOT_FOUND"
}
