package state

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Stale scratch stores: a process killed without closing its stores (kill -9, OOM kill)
// leaves their directories behind. Opening a store sweeps its parent: a sibling scratch
// directory goes when nobody owns it, that is when it is not one of this process's open
// stores, its Pebble LOCK can be taken (no live process holds the store open) and it is
// older than staleAfter (a store being created by another process has its directory for a
// moment before Pebble locks it). Sweeping is best effort: what cannot be removed stays.

// spillDirPrefix names the scratch stores' directories.
const spillDirPrefix = "weir-spill-"

// staleAfter is how long a scratch directory nobody has locked is left alone after its last
// change.
const staleAfter = time.Minute

// ownStores are this process's open scratch directories: a POSIX lock does not keep the
// process that holds it out (and closing any descriptor of the file would drop it), so the
// sweep must not try the locks of its own stores.
var ownStores struct {
	mu   sync.Mutex
	dirs map[string]os.FileInfo
}

// claim records dir as one of this process's stores.
func claim(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	ownStores.mu.Lock()
	defer ownStores.mu.Unlock()
	if ownStores.dirs == nil {
		ownStores.dirs = map[string]os.FileInfo{}
	}
	ownStores.dirs[dir] = fi
	return nil
}

// unclaim forgets dir once its store is closed.
func unclaim(dir string) {
	ownStores.mu.Lock()
	defer ownStores.mu.Unlock()
	delete(ownStores.dirs, dir)
}

// sweepStale removes the scratch directories under parent ("" = the system temporary
// directory) that nobody owns.
func sweepStale(parent string) {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	ownStores.mu.Lock()
	defer ownStores.mu.Unlock()
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), spillDirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		fi, err := os.Stat(dir)
		if err != nil || time.Since(fi.ModTime()) < staleAfter || owned(fi) {
			continue
		}
		lock, err := vfs.Default.Lock(filepath.Join(dir, "LOCK"))
		if err != nil {
			continue // a live store (or not ours to touch)
		}
		_ = os.RemoveAll(dir)
		_ = lock.Close()
	}
}

// owned reports whether fi is one of this process's stores; ownStores.mu is held.
func owned(fi os.FileInfo) bool {
	for _, own := range ownStores.dirs {
		if os.SameFile(fi, own) {
			return true
		}
	}
	return false
}
