package checkpoints

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Operator state snapshots. A snapshot's record in Pebble (key q/<query>/t/<operator>/
// <partition>/<epoch>/) is a tag byte then either the snapshot itself (stateInline, snapshots up
// to inlineStateMax bytes) or the name of a file in the store's state directory holding it
// (stateInFile). Pebble copies a value through its WAL and memtable and, past half a memtable,
// flushes it as an sstable at once — for snapshots of tens of megabytes (a million groups) that
// is several times the cost of writing the bytes once to a file of their own. A state file is
// written to a temporary name, synced, renamed and its directory synced before its record is
// put, so a record never names a missing or partial file; files no record names (a crash
// between the two) are deleted at Open.

const (
	stateInline byte = iota
	stateInFile
)

// inlineStateMax is the largest snapshot kept inside Pebble.
const inlineStateMax = 256 << 10

// stateDirName is the state directory inside the store's directory (Pebble ignores files it
// did not name).
const stateDirName = "state"

const stateFileExt = ".state"

// stateFileName names the file of one snapshot: every key part, hex-encoded.
func stateFileName(query, operator string, partition int, epoch int64) string {
	return hex.EncodeToString([]byte(query)) + "-" + hex.EncodeToString([]byte(operator)) + "-" +
		strconv.Itoa(partition) + "-" + strconv.FormatInt(epoch, 10) + stateFileExt
}

// parseStateFileName is stateFileName's inverse.
func parseStateFileName(name string) (query, operator string, partition int, epoch int64, ok bool) {
	parts := strings.Split(strings.TrimSuffix(name, stateFileExt), "-")
	if !strings.HasSuffix(name, stateFileExt) || len(parts) != 4 {
		return "", "", 0, 0, false
	}
	q, err1 := hex.DecodeString(parts[0])
	op, err2 := hex.DecodeString(parts[1])
	p, err3 := strconv.Atoi(parts[2])
	e, err4 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return "", "", 0, 0, false
	}
	return string(q), string(op), p, e, true
}

func stateKey(query, operator string, partition int, epoch int64) []byte {
	return key(query, "t", []byte(operator), epochBytes(int64(partition)), epochBytes(epoch))
}

// PutState stores an operator partition's state snapshot for epoch. A large snapshot's file is
// synced before its record is written; the record itself is unsynced, made durable by the
// epoch's Commit (which the caller writes only after PutState returned).
func (s *Store) PutState(query, operator string, partition int, epoch int64, state []byte) error {
	k := stateKey(query, operator, partition, epoch)
	if len(state) <= inlineStateMax {
		v := make([]byte, 1+len(state))
		v[0] = stateInline
		copy(v[1:], state)
		if err := s.db.Set(k, v, pebble.NoSync); err != nil {
			return err
		}
		// A replayed epoch may have saved this snapshot to a file before: the record no longer
		// names it. (Removed after the record is written: until the epoch commits, its state is
		// never loaded, and the commit makes the record durable.)
		s.removeStateFiles([]string{stateFileName(query, operator, partition, epoch)})
		return nil
	}
	name := stateFileName(query, operator, partition, epoch)
	if err := s.writeStateFile(name, state); err != nil {
		return err
	}
	return s.db.Set(k, append([]byte{stateInFile}, name...), pebble.NoSync)
}

// writeStateFile writes data to name in the state directory durably (temporary file, sync,
// rename, directory sync).
func (s *Store) writeStateFile(name string, data []byte) error {
	path := s.fs.PathJoin(s.stateDir, name)
	tmp := path + ".tmp"
	f, err := s.fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("checkpoints: state file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.fs.Rename(tmp, path)
	}
	if err == nil {
		err = s.syncStateDir()
	}
	if err != nil {
		_ = s.fs.Remove(tmp)
		return fmt.Errorf("checkpoints: state file %s: %w", name, err)
	}
	return nil
}

func (s *Store) syncStateDir() error {
	d, err := s.fs.OpenDir(s.stateDir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// stateValue resolves a snapshot record to the snapshot.
func (s *Store) stateValue(v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("checkpoints: empty state record")
	}
	switch v[0] {
	case stateInline:
		return append([]byte(nil), v[1:]...), nil
	case stateInFile:
		return s.readStateFile(string(v[1:]))
	}
	return nil, fmt.Errorf("checkpoints: state record of unknown kind %d", v[0])
}

func (s *Store) readStateFile(name string) ([]byte, error) {
	f, err := s.fs.Open(s.fs.PathJoin(s.stateDir, name))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: state file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoints: state file %s: %w", name, err)
	}
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("checkpoints: state file %s: %w", name, err)
	}
	return data, nil
}

// stateFileOf returns the file a snapshot record names ("" for an inline one).
func stateFileOf(v []byte) string {
	if len(v) > 1 && v[0] == stateInFile {
		return string(v[1:])
	}
	return ""
}

// removeStateFiles deletes state files (already unreferenced).
func (s *Store) removeStateFiles(names []string) {
	for _, n := range names {
		_ = s.fs.Remove(s.fs.PathJoin(s.stateDir, n))
	}
}

// openStateDir creates the state directory and deletes the files no record names: temporary
// files and the files of saves a crash interrupted before their record was written.
func (s *Store) openStateDir() error {
	if err := s.fs.MkdirAll(s.stateDir, 0o755); err != nil {
		return fmt.Errorf("checkpoints: state directory: %w", err)
	}
	names, err := s.fs.List(s.stateDir)
	if err != nil {
		return fmt.Errorf("checkpoints: state directory: %w", err)
	}
	var orphans []string
	for _, n := range names {
		q, op, p, e, ok := parseStateFileName(n)
		if !ok {
			if strings.HasSuffix(n, stateFileExt+".tmp") {
				orphans = append(orphans, n)
			}
			continue
		}
		v, found, err := s.get(stateKey(q, op, p, e))
		if err != nil {
			return err
		}
		if !found || !bytes.Equal([]byte(stateFileOf(v)), []byte(n)) {
			orphans = append(orphans, n)
		}
	}
	s.removeStateFiles(orphans)
	return nil
}

// fsOf is the file system a store uses: Pebble's (vfs.Default unless an option set another).
func fsOf(o *pebble.Options) vfs.FS {
	if o.FS == nil {
		return vfs.Default
	}
	return o.FS
}
