package fileaccess

import (
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// op is what a client asks to do with a path.
type op int

const (
	opRead op = iota
	opWrite
	opReplace
)

// verb is how a refusal names the operation.
func (o op) verb() string {
	switch o {
	case opRead:
		return "read"
	case opWrite:
		return "write to"
	}
	return "overwrite or delete"
}

// Error classes of refusals (SQLSTATE 42501: insufficient privilege).
const (
	ClassOutsideDataRoots = "PATH_NOT_ALLOWED.OUTSIDE_DATA_ROOTS"
	ClassProtectedPath    = "PATH_NOT_ALLOWED.PROTECTED_PATH"
	sqlStateNotAllowed    = "42501"
)

// kernelDirs are the kernel's and devices' filesystems: never written or replaced; /proc and
// /sys not read either.
var kernelDirs = []struct {
	dir      string
	readable bool
}{{"/proc", false}, {"/sys", false}, {"/dev", true}}

// check applies the rules to r, a resolved path.
func (p *Policy) check(o op, r string) error {
	for _, k := range kernelDirs {
		if within(r, k.dir) && (o != opRead || !k.readable) {
			return protected(o, r, "under "+k.dir+", a kernel or device filesystem, which holds no data")
		}
	}
	if p.warehouse != "" && within(r, p.warehouse) {
		// Managed tables' files: the server's directory, but the tables' data is the clients'.
		if o == opReplace && r == p.warehouse {
			return protected(o, r, "the warehouse directory of managed tables")
		}
		return nil
	}
	if o == opReplace {
		if reason := p.replaceRefusal(r); reason != "" {
			return protected(o, r, reason)
		}
	}
	if p.stateDir != "" && within(r, p.stateDir) {
		return protected(o, r, "inside the server's state directory, which belongs to the server")
	}
	if o == opWrite && r == "/" {
		return protected(o, r, "the filesystem root")
	}
	if !p.inRoots(r) {
		return p.outsideRoots(o, r)
	}
	return nil
}

// replaceRefusal is why r may never be overwritten or deleted ("" if it may).
func (p *Policy) replaceRefusal(r string) string {
	switch {
	case r == "/":
		return "the filesystem root"
	case filepath.Dir(r) == "/":
		return "a top-level directory"
	case p.stateDir != "" && r == p.stateDir:
		return "the server's state directory"
	case p.stateDir != "" && within(r, p.stateDir):
		return "inside the server's state directory"
	case p.stateDir != "" && within(p.stateDir, r):
		return "an ancestor of the server's state directory " + hadoopPath(p.stateDir)
	case p.workDir != "" && r == p.workDir:
		return "the server's working directory"
	case p.workDir != "" && within(p.workDir, r):
		return "an ancestor of the server's working directory " + hadoopPath(p.workDir)
	case p.home != "" && r == p.home:
		return "the home directory of the server's user"
	case p.home != "" && within(p.home, r):
		return "an ancestor of the home directory of the server's user " + hadoopPath(p.home)
	}
	for _, root := range p.roots {
		if r == root {
			return "a data root (its files are everyone's data)"
		}
		if within(root, r) {
			return "an ancestor of the data root " + hadoopPath(root)
		}
	}
	return ""
}

func (p *Policy) inRoots(r string) bool {
	if len(p.roots) == 0 {
		return true
	}
	for _, root := range p.roots {
		if within(r, root) {
			return true
		}
	}
	return false
}

// hadoopPath renders a resolved path as Spark's messages show it ("file:/tmp/out").
func hadoopPath(abs string) string { return "file:" + filepath.ToSlash(abs) }

func (p *Policy) outsideRoots(o op, r string) *sparkerr.Error {
	uri := hadoopPath(r)
	roots := make([]string, len(p.roots))
	for i, root := range p.roots {
		roots[i] = hadoopPath(root)
	}
	list := strings.Join(roots, ", ")
	return sparkerr.Newf(sparkerr.AnalysisException, ClassOutsideDataRoots, sqlStateNotAllowed,
		"Cannot %s %s: it is outside the data roots of this server (%s). Use a path under one of them, "+
			"or start the server with --data-root DIR (repeatable, or WEIR_DATA_ROOTS=DIR:DIR) naming a "+
			"directory that holds it.", o.verb(), uri, list).
		WithParams("path", uri, "operation", o.verb(), "dataRoots", list)
}

func protected(o op, r, reason string) *sparkerr.Error {
	uri := hadoopPath(r)
	return sparkerr.Newf(sparkerr.AnalysisException, ClassProtectedPath, sqlStateNotAllowed,
		"Cannot %s %s: it is %s. Weir refuses this whatever its configuration; use a directory of your own.",
		o.verb(), uri, reason).
		WithParams("path", uri, "operation", o.verb(), "reason", reason)
}
