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

// defaultBroadcastThreshold is spark.sql.autoBroadcastJoinThreshold's default, Spark's 10MB.
const defaultBroadcastThreshold = 10 << 20

// optimize runs the logical optimizer over an analyzed plan (batch or streaming) unless
// spark.weir.optimizer.enabled is false; ectx is the statement's evaluation context.
func (s *Session) optimize(ctx context.Context, node logical.Node, ectx *expr.Context) (logical.Node, error) {
	if !s.conf.Bool(conf.OptimizerEnabledKey, true) {
		return node, nil
	}
	st := &scanStats{s: s, rows: map[*logical.SourceScan]rowCount{}, distinct: map[scanColumn]rowCount{}}
	return optimizer.Optimize(ctx, node, optimizer.Options{Stats: st.scanRows, Distinct: st.columnDistinct, Expr: ectx,
		BroadcastThreshold: s.conf.Bytes(conf.BroadcastJoinThresholdKey, defaultBroadcastThreshold)})
}

// scanStats answers the optimizer's statistics hooks from Parquet footers, each question once
// per optimization.
type scanStats struct {
	s        *Session
	rows     map[*logical.SourceScan]rowCount
	distinct map[scanColumn]rowCount
}

type rowCount struct {
	n  int64
	ok bool
}

type scanColumn struct {
	scan *logical.SourceScan
	col  int
}

func (st *scanStats) scanRows(scan *logical.SourceScan) (int64, bool) {
	if r, ok := st.rows[scan]; ok {
		return r.n, r.ok
	}
	n, ok := st.s.scanRows(scan)
	st.rows[scan] = rowCount{n, ok}
	return n, ok
}

// columnDistinct bounds an integer column's distinct values by its range (max - min + 1).
func (st *scanStats) columnDistinct(scan *logical.SourceScan, col int) (int64, bool) {
	key := scanColumn{scan, col}
	if r, ok := st.distinct[key]; ok {
		return r.n, r.ok
	}
	var r rowCount
	if st.s.isParquet(scan) {
		if lo, hi, ok := files.ParquetColumnRange(st.s.files, scan.Paths, scan.Out[col].Name); ok && hi >= lo {
			r = rowCount{hi - lo + 1, true}
		}
	}
	st.distinct[key] = r
	return r.n, r.ok
}

// scanRows is the optimizer's statistics hook: a batch Parquet read's row count from its
// files' footers.
func (s *Session) scanRows(scan *logical.SourceScan) (int64, bool) {
	if !s.isParquet(scan) {
		return 0, false
	}
	return files.ParquetRowCount(s.files, scan.Paths)
}

// isParquet reports whether scan is a batch Parquet read.
func (s *Session) isParquet(scan *logical.SourceScan) bool {
	format := scan.Format
	if format == "" {
		format = strings.ToLower(s.conf.GetOr(conf.SourcesDefaultKey, "parquet"))
	}
	return !scan.Streaming && format == "parquet"
}
