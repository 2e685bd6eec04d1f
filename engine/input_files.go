package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors/files"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/plan"
)

// InputFiles are the files rel's batch file reads (Parquet, JSON, CSV, text) list now, as URIs,
// sorted and without duplicates (DataFrame.inputFiles, Spark Connect's AnalyzePlan
// InputFiles). A persisted DataFrame's reads count through its plan; a checkpoint has none
// (Spark's LogicalRDD).
func (s *Session) InputFiles(ctx context.Context, rel plan.Relation) ([]string, error) {
	node, err := s.Analyze(ctx, rel)
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(n logical.Node) error
	walk = func(n logical.Node) error {
		if scan, ok := n.(*logical.SourceScan); ok && !scan.Streaming {
			format := scan.Format
			if format == "" {
				format = s.conf.GetOr(conf.SourcesDefaultKey, "parquet")
			}
			if files.IsFileFormat(strings.ToLower(format)) {
				uris, err := files.InputFiles(s.files, scan.Options, scan.Paths)
				if err != nil {
					return err
				}
				out = append(out, uris...)
			}
		}
		for _, c := range n.Children() {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(node); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
