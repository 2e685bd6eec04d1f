package engine

import (
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
	sqltypes "github.com/weirhq/weir/sql/types"
)

// sourceSchemas answers the analyzer's data source reads (analyzer.SourceSchemas) from the
// format registry (package connectors): streaming reads (spark.readStream) take the format's
// stream schema, batch reads (spark.read) its batch schema; a format that exists only as a
// stream source (spark.read.format("rate")) gets Spark's error for a table without batch scan.
// File paths are checked with the session's file-access policy here already, so a refused
// path fails the read (or readStream.load()) before anything is read.
type sourceSchemas struct {
	files *fileaccess.Policy
	// settings is the session's conf (spark.sql.sources.default).
	settings *Conf
}

// Schema implements analyzer.SourceSchemas.
func (ss sourceSchemas) Schema(format string, options map[string]string, userSchema string, streaming bool) (sqltypes.Schema, error) {
	if format == "" {
		format = ss.settings.GetOr(conf.SourcesDefaultKey, "parquet")
	}
	if streaming {
		if p := sources.NormalizeOptions(options)["path"]; p != "" && connectors.IsFileFormat(format) {
			if _, err := ss.files.CheckRead(p); err != nil {
				return nil, err
			}
		}
		return connectors.StreamSchema(format, options, userSchema)
	}
	return connectors.BatchSchema(format, connectors.BatchEnv{Files: ss.files}, options, nil, userSchema)
}

// batchSource plans a batch read of a data source (spark.read.format(f).load(path)) through
// the format registry: the file formats read their files when the query runs, Kafka reads its
// topics; stream-only formats were refused at analysis.
func (s *Session) batchSource(scan *logical.SourceScan) (flow.Source, int, error) {
	format := scan.Format
	if format == "" {
		format = strings.ToLower(s.conf.GetOr(conf.SourcesDefaultKey, "parquet"))
	}
	if scan.Streaming {
		return nil, 0, sparkerr.Unsupported("batch reads of data source %s are not supported", sparkerr.Quote(format))
	}
	maxLine, err := sources.MaxLineBytesFromConf(s.conf.Get)
	if err != nil {
		return nil, 0, err
	}
	env := connectors.BatchEnv{Files: s.files, TimeZone: s.timeZone(), MaxLineBytes: maxLine, DefaultPartitions: flow.DefaultParallelism(),
		Filters: scan.Filters}
	return connectors.BatchRead(format, env, scan.Options, scan.Paths, scan.Out)
}
