package fileaccess

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// maxLinks bounds the symbolic links one resolution follows (Linux's ELOOP limit is 40).
const maxLinks = 40

// HadoopPath renders an absolute local path as Spark's messages show it ("file:/tmp/out").
func HadoopPath(abs string) string { return "file:" + filepath.ToSlash(abs) }

// LocalPath turns a file URI ("file:/x", "file:///x", "file://localhost/x") or a plain path
// into a local path.
func LocalPath(uri string) string {
	if !strings.HasPrefix(uri, "file:") {
		return uri
	}
	u, err := url.Parse(uri)
	if err != nil {
		return strings.TrimPrefix(uri, "file:")
	}
	return filepath.FromSlash(u.Path)
}

// resolveLinks follows every symbolic link on abs (absolute and clean) as far as the path
// exists, element by element as the kernel does, so a link in the middle and a link as the
// last element both count; a dangling link is followed to where it points. From the first
// element that does not exist on, the rest is kept as written.
func resolveLinks(abs string) (string, error) {
	resolved := "/"
	rest := splitPath(abs)
	links := 0
	missing := false
	for len(rest) > 0 {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, elem)
		if missing {
			resolved = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing (or not traversable, which the later operation meets as well): the
			// rest cannot hold a link.
			missing = true
			resolved = next
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return "", sparkerr.New("java.io.IOException", "", "",
				"Too many levels of symbolic links in "+abs)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", sparkerr.New("java.io.IOException", "", "",
				"Cannot read the symbolic link "+next+": "+err.Error()).Wrap(err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return resolved, nil
}

// splitPath is a path's elements (empty ones dropped).
func splitPath(p string) []string {
	var out []string
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// within reports whether path is dir or lies under it (both resolved).
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}
