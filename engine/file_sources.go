package engine

import (
	"runtime"
	"strings"

	"github.com/weirhq/weir/connectors/files"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/logical"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// batchSource plans a batch read of a data source (spark.read.format(f).load(path)): file
// formats read their files when the query runs (files.FileBatch); Kafka reads its topics
// (kafka_source.go); other sources are stream sources only and were refused at analysis.
func (s *Session) batchSource(scan *logical.SourceScan) (flow.Source, int, error) {
	format := strings.ToLower(scan.Format)
	if format == "" {
		format = "parquet" // spark.sql.sources.default
	}
	if format == kafkaFormat && !scan.Streaming {
		return s.kafkaBatchSource(scan)
	}
	if scan.Streaming || !files.IsFileFormat(format) {
		return nil, 0, sparkerr.Unsupported("batch reads of data source %s are not supported", sparkerr.Quote(format))
	}
	maxLine, err := sources.MaxLineBytesFromConf(s.conf.Get)
	if err != nil {
		return nil, 0, err
	}
	return files.FileBatch{Format: format, Options: scan.Options, Paths: files.FilePaths(scan.Options, scan.Paths),
		Schema: scan.Out, TimeZone: s.timeZone(), Files: s.files, MaxLineBytes: maxLine}, runtime.NumCPU(), nil
}
