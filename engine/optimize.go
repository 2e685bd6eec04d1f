package engine

import (
	"context"
	"strings"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/connectors/files"
	"github.com/weirhq/weir/sql/expr"
	"github.com/weirhq/weir/sql/logical"
	"github.com/weirhq/weir/sql/optimizer"
)

// optimize runs the logical optimizer over an analyzed plan (batch or streaming) unless
// spark.weir.optimizer.enabled is false; ectx is the statement's evaluation context.
func (s *Session) optimize(ctx context.Context, node logical.Node, ectx *expr.Context) (logical.Node, error) {
	if !s.conf.Bool(conf.OptimizerEnabledKey, true) {
		return node, nil
	}
	return optimizer.Optimize(ctx, node, optimizer.Options{Stats: s.scanRows, Expr: ectx})
}

// scanRows is the optimizer's statistics hook: a batch Parquet read's row count from its
// files' footers.
func (s *Session) scanRows(scan *logical.SourceScan) (int64, bool) {
	format := scan.Format
	if format == "" {
		format = strings.ToLower(s.conf.GetOr(conf.SourcesDefaultKey, "parquet"))
	}
	if scan.Streaming || format != "parquet" {
		return 0, false
	}
	return files.ParquetRowCount(s.files, scan.Paths)
}
