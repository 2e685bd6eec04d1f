package fileaccess

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Config is what a Policy is built from; New resolves every path in it.
type Config struct {
	// Roots are the --data-root directories; empty means no root restriction.
	Roots []string
	// StateDir is the server's state directory ("" if none).
	StateDir string
	// Warehouse is the directory of managed tables' files (spark.sql.warehouse.dir; "" if
	// none), usually inside StateDir: clients read, write and replace under it although it is
	// in the state directory, but never replace the warehouse itself.
	Warehouse string
	// WorkDir is the server's working directory ("" = the process's).
	WorkDir string
	// Home is $HOME ("" = the process's home directory, if it has one).
	Home string
}

// Policy decides which client-named paths may be read, written and replaced. Its paths are
// absolute, cleaned and free of symbolic links. A nil *Policy applies the always-on rules with
// the process's working and home directories and no state directory.
type Policy struct {
	roots     []string
	stateDir  string
	warehouse string
	workDir   string
	home      string
}

// New resolves c into a Policy. A data root must be an existing directory.
func New(c Config) (*Policy, error) {
	p := &Policy{}
	wd := c.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("fileaccess: working directory: %w", err)
		}
	}
	var err error
	if p.workDir, err = resolveConfigPath(wd); err != nil {
		return nil, fmt.Errorf("fileaccess: working directory %s: %w", wd, err)
	}
	home := c.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		if p.home, err = resolveConfigPath(home); err != nil {
			return nil, fmt.Errorf("fileaccess: home directory %s: %w", home, err)
		}
	}
	if c.StateDir != "" {
		if p.stateDir, err = resolveConfigPath(c.StateDir); err != nil {
			return nil, fmt.Errorf("fileaccess: state directory %s: %w", c.StateDir, err)
		}
	}
	if c.Warehouse != "" {
		if p.warehouse, err = resolveConfigPath(c.Warehouse); err != nil {
			return nil, fmt.Errorf("fileaccess: warehouse directory %s: %w", c.Warehouse, err)
		}
	}
	for _, r := range c.Roots {
		if strings.TrimSpace(r) == "" {
			return nil, errors.New("fileaccess: an empty data root")
		}
		resolved, err := resolveConfigPath(r)
		if err != nil {
			return nil, fmt.Errorf("fileaccess: data root %s: %w", r, err)
		}
		st, err := os.Stat(resolved)
		if err != nil {
			return nil, fmt.Errorf("fileaccess: data root %s: %w", r, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("fileaccess: data root %s is not a directory", r)
		}
		p.roots = append(p.roots, resolved)
	}
	return p, nil
}

// resolveConfigPath resolves a path of the server's configuration (relative to the process's
// working directory).
func resolveConfigPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return resolveLinks(abs)
}

// processPolicy is the nil Policy's rules: the process's working and home directories.
func processPolicy() *Policy {
	p := &Policy{workDir: "/"}
	if wd, err := os.Getwd(); err == nil {
		if r, err := resolveLinks(wd); err == nil {
			p.workDir = r
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if r, err := resolveConfigPath(home); err == nil {
			p.home = r
		}
	}
	return p
}

// rules is p, or the process's rules for a nil p.
func (p *Policy) rules() *Policy {
	if p == nil {
		return processPolicy()
	}
	return p
}

// StateDir is the resolved state directory ("" if none, and for a nil Policy).
func (p *Policy) StateDir() string {
	if p == nil {
		return ""
	}
	return p.stateDir
}

// ScratchDir is the server's scratch area, <state>/scratch, where it keeps files of its own that
// live no longer than the process (spilled persisted DataFrames); clients may neither read nor
// write it (it is in the state directory). "" without a state directory, and for a nil Policy.
func (p *Policy) ScratchDir() string {
	if p == nil || p.stateDir == "" {
		return ""
	}
	return filepath.Join(p.stateDir, "scratch")
}

// Warehouse is the resolved warehouse directory ("" if none, and for a nil Policy).
func (p *Policy) Warehouse() string {
	if p == nil {
		return ""
	}
	return p.warehouse
}

// Roots are the resolved data roots (none: no root restriction).
func (p *Policy) Roots() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.roots...)
}

// Resolve turns a client's path into the local path it names: a "file:" URI's path, absolute
// (against the working directory), cleaned, with every symbolic link on its existing part
// followed. The empty path is Spark's IllegalArgumentException.
func (p *Policy) Resolve(path string) (string, error) {
	q := p.rules()
	abs, err := q.absolute(path)
	if err != nil {
		return "", err
	}
	return resolveLinks(abs)
}

// absolute is the client's path as a cleaned absolute local path, links not yet followed.
func (p *Policy) absolute(path string) (string, error) {
	local := LocalPath(path)
	if local == "" {
		return "", sparkerr.IllegalArgument("Can not create a Path from an empty string")
	}
	if !filepath.IsAbs(local) {
		local = filepath.Join(p.workDir, local)
	}
	return filepath.Clean(local), nil
}

// CheckRead resolves path and refuses it unless it may be read. For a glob pattern the
// directory before the first pattern character is resolved and checked, and the pattern is
// returned over the resolved directory; the caller checks each match with CheckRead.
func (p *Policy) CheckRead(path string) (string, error) {
	q := p.rules()
	abs, err := q.absolute(path)
	if err != nil {
		return "", err
	}
	if i := strings.IndexAny(abs, globChars); i >= 0 {
		static := filepath.Dir(abs[:i] + "x")
		rest := strings.TrimPrefix(abs[len(static):], "/")
		dir, err := resolveLinks(static)
		if err != nil {
			return "", err
		}
		if err := q.check(opRead, dir); err != nil {
			return "", err
		}
		return filepath.Join(dir, rest), nil
	}
	r, err := resolveLinks(abs)
	if err != nil {
		return "", err
	}
	return r, q.check(opRead, r)
}

// globChars are the characters that make a read path a pattern (as filepath.Glob reads them).
const globChars = "*?["

// CheckWrite resolves path and refuses it unless files may be created and written at or
// under it.
func (p *Policy) CheckWrite(path string) (string, error) {
	return p.checkResolved(opWrite, path)
}

// CheckReplace resolves path and refuses it unless the path itself, with everything under
// it, may be overwritten or deleted.
func (p *Policy) CheckReplace(path string) (string, error) {
	return p.checkResolved(opReplace, path)
}

func (p *Policy) checkResolved(o op, path string) (string, error) {
	q := p.rules()
	r, err := q.Resolve(path)
	if err != nil {
		return "", err
	}
	if err := q.check(o, r); err != nil {
		return "", err
	}
	return r, nil
}

// ResolveWithin resolves name, a relative slash-separated name, under dir (a directory the
// server owns, e.g. a session's artifact directory) and refuses a name that is absolute, has a
// "." or ".." element, or leads out of dir through a symbolic link.
func ResolveWithin(dir, name string) (string, error) {
	invalid := sparkerr.IllegalArgument("Invalid path %q: it must stay inside its directory.", name)
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return "", invalid
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return "", invalid
		}
	}
	base, err := resolveConfigPath(dir)
	if err != nil {
		return "", err
	}
	r, err := resolveLinks(filepath.Join(base, filepath.FromSlash(name)))
	if err != nil {
		return "", err
	}
	if r == base || !within(r, base) {
		return "", invalid
	}
	return r, nil
}
