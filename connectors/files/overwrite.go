package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
)

// A batch overwrite (df.write.mode("overwrite")) never deletes the old output before the new
// one is complete. The new output is written into a hidden staging directory beside the target
// (<parent>/.<name>.weir-overwrite-<job>); Finish swaps it with the target in one atomic
// rename (Linux renameat2 RENAME_EXCHANGE; where the filesystem lacks it, two renames whose
// middle state recovery repairs), then removes the old output, which the swap left under the
// staging name. Readers of the target see the old output or the new one, never a mix, and a
// crash at any point leaves one of them complete at the target:
//
//   - before the swap: the target is untouched; the staging directory is a leftover;
//   - after the swap: the target is the new output; the staging directory holds the old one.
//
// Leftovers are removed at the next overwrite of the same target (by name) and when the server
// starts (RecoverOverwrites, from a journal record per overwrite kept in the state dir, written
// before the staging directory exists and removed after the old output is gone). Removing the
// old output checks the request's context between entries, so an interrupt stops it; what is
// left then is a leftover like any other.

// overwriteMarker is in the name of every staging directory of an overwrite.
const overwriteMarker = ".weir-overwrite-"

// overwriteOldSuffix names the old output while the two-rename fallback swaps.
const overwriteOldSuffix = "-old"

// overwriteJournalDir is the state dir's folder of overwrite journal records.
const overwriteJournalDir = "overwrites"

// overwrite is one batch overwrite in progress.
type overwrite struct {
	target  string // the output path, absolute and resolved
	staging string // where the new output is written
	journal string // the journal record's path ("" without a state dir)
}

// journalRecord is what the journal keeps of an overwrite.
type journalRecord struct {
	Target  string `json:"target"`
	Staging string `json:"staging"`
}

// overwritesInFlight are the targets of this process's running overwrites. It is the one
// process-wide table Weir keeps on purpose: what it guards is the filesystem, which every
// session and every server in the process shares, so a per-server table would let two servers
// of one process swap the same target at once.
var overwritesInFlight = struct {
	sync.Mutex
	targets map[string]bool
}{targets: map[string]bool{}}

// stagingName is the staging directory of job's overwrite of target.
func stagingName(target, jobID string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+overwriteMarker+jobID)
}

// isStagingOf reports whether name (a base name) is a staging directory, or the fallback's old
// output, of an overwrite of target.
func isStagingOf(name, target string) bool {
	return strings.HasPrefix(name, "."+filepath.Base(target)+overwriteMarker)
}

// beginOverwrite starts job's overwrite of target: removes leftovers of earlier overwrites of
// it, journals the staging directory (under stateDir, if any) and creates it. A second
// overwrite of a target this process is already overwriting is refused.
func beginOverwrite(ctx context.Context, target, jobID, stateDir string) (*overwrite, error) {
	overwritesInFlight.Lock()
	if overwritesInFlight.targets[target] {
		overwritesInFlight.Unlock()
		return nil, sparkerr.New("java.io.IOException", "", "", "Another write is overwriting "+fileaccess.HadoopPath(target)+
			" right now; retry when it has finished.")
	}
	overwritesInFlight.targets[target] = true
	overwritesInFlight.Unlock()
	o := &overwrite{target: target, staging: stagingName(target, jobID)}
	err := o.begin(ctx, jobID, stateDir)
	if err != nil {
		o.abort()
	}
	return o, err
}

func (o *overwrite) begin(ctx context.Context, jobID, stateDir string) error {
	parent := filepath.Dir(o.target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return ioError("Failed to create the output directory "+parent, err)
	}
	if err := removeLeftovers(ctx, o.target); err != nil {
		return err
	}
	if stateDir != "" {
		dir := filepath.Join(stateDir, overwriteJournalDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return ioError("Failed to create "+dir, err)
		}
		o.journal = filepath.Join(dir, jobID+".json")
		raw, _ := json.Marshal(journalRecord{Target: o.target, Staging: o.staging})
		if err := writeSynced(o.journal, raw); err != nil {
			o.journal = ""
			return ioError("Failed to write the overwrite journal", err)
		}
	}
	if err := os.Mkdir(o.staging, 0o755); err != nil {
		return ioError("Failed to create the staging directory "+o.staging, err)
	}
	return nil
}

// commit swaps the complete new output in and removes the old one.
func (o *overwrite) commit(ctx context.Context) error {
	defer o.release()
	if err := syncDir(o.staging); err != nil {
		return ioError("Failed to sync "+o.staging, err)
	}
	if err := swapIn(o.staging, o.target); err != nil {
		return ioError("Failed to replace "+fileaccess.HadoopPath(o.target)+" with the new output", err)
	}
	_ = syncDir(filepath.Dir(o.target))
	if err := removeTree(ctx, o.staging); err != nil {
		return err // the new output is in place; the old one is a leftover
	}
	o.dropJournal()
	return nil
}

// abort removes the staging directory of a failed write; the target was never touched.
func (o *overwrite) abort() {
	defer o.release()
	if removeTree(context.Background(), o.staging) == nil {
		o.dropJournal()
	}
}

func (o *overwrite) release() {
	overwritesInFlight.Lock()
	delete(overwritesInFlight.targets, o.target)
	overwritesInFlight.Unlock()
}

func (o *overwrite) dropJournal() {
	if o.journal != "" {
		_ = os.Remove(o.journal)
		o.journal = ""
	}
}

// swapIn makes staging the target: an atomic exchange when the target exists and the
// filesystem supports it, a plain rename when there is no target, and otherwise the target
// renamed aside and staging renamed in (recoverOverwrite repairs a crash between the two).
// Afterwards staging names the old output, if there was one.
func swapIn(staging, target string) error {
	if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(staging, target)
	}
	err := exchange(staging, target)
	if !errors.Is(err, errExchangeUnsupported) {
		return err
	}
	old := staging + overwriteOldSuffix
	if err := os.Rename(target, old); err != nil {
		return err
	}
	if err := os.Rename(staging, target); err != nil {
		_ = os.Rename(old, target)
		return err
	}
	return os.Rename(old, staging)
}

// removeLeftovers removes what earlier overwrites of target left beside it (staging
// directories of crashed or interrupted writes). A target that the two-rename fallback left
// missing first gets its old output back, as RecoverOverwrites would have done.
func removeLeftovers(ctx context.Context, target string) error {
	entries, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		return nil
	}
	_, statErr := os.Lstat(target)
	missing := errors.Is(statErr, fs.ErrNotExist)
	for _, e := range entries {
		if !isStagingOf(e.Name(), target) {
			continue
		}
		path := filepath.Join(filepath.Dir(target), e.Name())
		if missing && strings.HasSuffix(e.Name(), overwriteOldSuffix) {
			if err := os.Rename(path, target); err == nil {
				missing = false
				continue
			}
		}
		if err := removeTree(ctx, path); err != nil {
			return err
		}
	}
	return nil
}

// RecoverOverwrites finishes what overwrites interrupted by a crash left, from the journal in
// stateDir: a target the two-rename fallback left missing gets its old output back, and
// staging directories are removed. The server calls it when it starts.
func RecoverOverwrites(ctx context.Context, stateDir string) error {
	dir := filepath.Join(stateDir, overwriteJournalDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if err := recoverOverwrite(ctx, path); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		_ = os.Remove(path)
	}
	return errors.Join(errs...)
}

// recoverOverwrite repairs one journaled overwrite. Only paths with the staging marker, beside
// the journaled target, are removed: a damaged journal cannot name anything else.
func recoverOverwrite(ctx context.Context, journal string) error {
	raw, err := os.ReadFile(journal)
	if err != nil {
		return err
	}
	var r journalRecord
	if err := json.Unmarshal(raw, &r); err != nil || !filepath.IsAbs(r.Target) ||
		filepath.Dir(r.Staging) != filepath.Dir(r.Target) || !isStagingOf(filepath.Base(r.Staging), r.Target) {
		return nil // not a record this code wrote: drop it, touch nothing
	}
	old := r.Staging + overwriteOldSuffix
	if _, err := os.Lstat(r.Target); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(old); err == nil {
			if err := os.Rename(old, r.Target); err != nil {
				return err
			}
		}
	}
	for _, p := range []string{old, r.Staging} {
		if err := removeTree(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// removeTree removes path and everything under it, like os.RemoveAll, but checks ctx between
// entries (an interrupt stops it), never follows symbolic links and never descends into
// another filesystem mounted below path (it fails instead). A missing path is not an error.
func removeTree(ctx context.Context, path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ioError("Failed to remove "+path, err)
	}
	return removeEntry(ctx, path, info, deviceOf(info))
}

func removeEntry(ctx context.Context, path string, info fs.FileInfo, dev uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if info.IsDir() {
		if deviceOf(info) != dev {
			return sparkerr.New("java.io.IOException", "", "", "Not removing "+path+": another filesystem is mounted there")
		}
		entries, err := os.ReadDir(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ioError("Failed to list "+path, err)
		}
		for _, e := range entries {
			child := filepath.Join(path, e.Name())
			ci, err := os.Lstat(child)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return ioError("Failed to remove "+child, err)
			}
			if err := removeEntry(ctx, child, ci, dev); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ioError("Failed to remove "+path, err)
	}
	return nil
}

// writeSynced writes data to path and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs a directory's entries.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ioError is Spark's IOException for a failed file operation.
func ioError(what string, err error) error {
	return sparkerr.New("java.io.IOException", "", "", what+": "+err.Error()).Wrap(err)
}
