package engine

import (
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/connectors"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sql/logical"
)

// A write refreshes the persisted DataFrames that read what it wrote, as Spark's
// CacheManager.recacheByPath does after a write to a path, an INSERT, insertInto or
// saveAsTable: the held rows of every DataFrame of the session whose plan reads a file or
// Iceberg path at or above the written path (the written path is the read root or under it,
// Spark's isSubDir) are dropped, and the next query that reads the DataFrame computes them
// again from what is there now. Files written by something other than this server are not
// seen: the DataFrame keeps the rows it held, as Spark's cache does until it is refreshed or
// unpersisted. Checkpoints are not refreshed (Spark's LogicalRDD reads no path).

// refreshPersistedReading drops the held rows of the session's persisted DataFrames whose
// plans read the written path (a write's "path" option); a path the policy cannot resolve
// refreshes nothing.
func (s *Session) refreshPersistedReading(options map[string]string) {
	target, ok := sources.NormalizeOptions(options)["path"]
	if !ok || target == "" {
		return
	}
	written, err := s.files.Resolve(target)
	if err != nil {
		return
	}
	s.views.mu.RLock()
	var stale []*heldRows
	for _, r := range s.views.persisted {
		if !r.Checkpoint && s.readsPath(r.Plan, written) {
			stale = append(stale, r.Rows.(*heldRows))
		}
	}
	s.views.mu.RUnlock()
	for _, h := range stale {
		h.drop()
	}
}

// readsPath reports whether plan reads a file or Iceberg path that is written or a directory
// above it (through persisted DataFrames it reads too).
func (s *Session) readsPath(plan logical.Node, written string) bool {
	if scan, ok := plan.(*logical.SourceScan); ok && (connectors.IsFileFormat(scan.Format) || isIceberg(scan.Format)) {
		for _, p := range sources.ReadPaths(scan.Options, scan.Paths) {
			root, err := s.files.Resolve(globRoot(p))
			if err == nil && (written == root || strings.HasPrefix(written, root+string(filepath.Separator))) {
				return true
			}
		}
		return false
	}
	for _, c := range plan.Children() {
		if s.readsPath(c, written) {
			return true
		}
	}
	return false
}

// globRoot is the directory part of a glob pattern before its first pattern element (path
// itself when it has none): the directory whose files the glob lists.
func globRoot(path string) string {
	i := strings.IndexAny(path, "*?[{")
	if i < 0 {
		return path
	}
	return filepath.Dir(path[:i] + "x")
}
