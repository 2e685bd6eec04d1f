package engine

import (
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
	"github.com/weirhq/weir/sql/logical"
)

// batchSource plans a batch read of a data source (spark.read.format(f).load(path)): file
// formats read their files when the query runs (sources.FileBatch); Kafka reads its topics
// (kafka_source.go); other sources are stream sources only and were refused at analysis.
func (s *Session) batchSource(scan *logical.SourceScan) (flow.Source, int, error) {
	format := strings.ToLower(scan.Format)
	if format == "" {
		format = strings.ToLower(s.conf.GetOr(conf.SourcesDefaultKey, "parquet"))
	}
	if format == kafkaFormat && !scan.Streaming {
		return s.kafkaBatchSource(scan)
	}
	if scan.Streaming || !sources.IsFileFormat(format) {
		return nil, 0, sparkerr.Unsupported("batch reads of data source %s are not supported", sparkerr.Quote(format))
	}
	maxLine, err := sources.MaxLineBytesFromConf(s.conf.Get)
	if err != nil {
		return nil, 0, err
	}
	return sources.FileBatch{Format: format, Options: scan.Options, Paths: sources.FilePaths(scan.Options, scan.Paths),
		Schema: scan.Out, TimeZone: s.timeZone(), Files: s.files, MaxLineBytes: maxLine}, flow.DefaultParallelism(), nil
}
