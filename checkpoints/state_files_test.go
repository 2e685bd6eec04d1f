package checkpoints

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// bigState is a snapshot past inlineStateMax, distinct per seed.
func bigState(seed byte) []byte {
	b := make([]byte, inlineStateMax+1000)
	for i := range b {
		b[i] = byte(i) ^ seed
	}
	return b
}

func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, stateDirName))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Large snapshots live in files named by their records; they survive a reopen, read back
// exactly, and PurgeState removes the files of the snapshots it drops.
func TestLargeStateInFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for e := int64(0); e < 3; e++ {
		if err := s.PutState("q", "Aggregate/0", 1, e, bigState(byte(e))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutState("q", "Aggregate/0", 0, 1, []byte("small")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit("q", 2); err != nil {
		t.Fatal(err)
	}
	if got := stateFiles(t, dir); len(got) != 3 {
		t.Fatalf("state files %v, want 3 (the small snapshot is inline)", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for e := int64(0); e < 3; e++ {
		got, ok, err := s.State("q", "Aggregate/0", 1, e)
		if err != nil || !ok || !bytes.Equal(got, bigState(byte(e))) {
			t.Fatalf("epoch %d: found %v err %v, equal %v", e, ok, err, bytes.Equal(got, bigState(byte(e))))
		}
	}
	if got, ok, err := s.State("q", "Aggregate/0", 0, 5); err != nil || !ok || string(got) != "small" {
		t.Fatalf("inline state = %q %v %v", got, ok, err)
	}
	if err := s.PurgeState("q", 2); err != nil {
		t.Fatal(err)
	}
	want := []string{stateFileName("q", "Aggregate/0", 1, 2)}
	if got := stateFiles(t, dir); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("state files after purge %v, want %v", got, want)
	}
	if got, ok, err := s.State("q", "Aggregate/0", 1, 7); err != nil || !ok || !bytes.Equal(got, bigState(2)) {
		t.Fatalf("latest state after purge: found %v err %v", ok, err)
	}
}

// A file without a record (a crash after the file was written, before its record) and a
// temporary file are deleted at Open; a record's own file stays.
func TestOpenDeletesOrphanStateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutState("q", "Dedup/0", 0, 4, bigState(4)); err != nil {
		t.Fatal(err)
	}
	orphan := stateFileName("q", "Dedup/0", 0, 5)
	if err := s.writeStateFile(orphan, bigState(5)); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, stateDirName, stateFileName("q", "Dedup/0", 1, 5)+".tmp")
	if err := os.WriteFile(tmp, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := stateFiles(t, dir); len(got) != 1 || got[0] != stateFileName("q", "Dedup/0", 0, 4) {
		t.Fatalf("state files after reopen %v", got)
	}
	if got, ok, err := s.State("q", "Dedup/0", 0, 9); err != nil || !ok || !bytes.Equal(got, bigState(4)) {
		t.Fatalf("state after reopen: found %v err %v", ok, err)
	}
}

func TestStateFileNamesRoundTrip(t *testing.T) {
	q, op, p, e, ok := parseStateFileName(stateFileName("query", "Join/1-x", 3, 42))
	if !ok || q != "query" || op != "Join/1-x" || p != 3 || e != 42 {
		t.Fatalf("parsed %q %q %d %d %v", q, op, p, e, ok)
	}
	if _, _, _, _, ok := parseStateFileName("LOCK"); ok {
		t.Fatal("parsed a foreign name")
	}
}

// A replayed epoch whose snapshot was a file the first time and is small enough to be inline
// the second time leaves no file behind, and the inline snapshot is what reads back.
func TestReplayedInlineSnapshotRemovesTheOldFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutState("q", "Dedup/0", 0, 4, bigState(4)); err != nil {
		t.Fatal(err)
	}
	if got := stateFiles(t, dir); len(got) != 1 {
		t.Fatalf("state files %v, want 1", got)
	}
	if err := s.PutState("q", "Dedup/0", 0, 4, []byte("small")); err != nil {
		t.Fatal(err)
	}
	if got := stateFiles(t, dir); len(got) != 0 {
		t.Fatalf("state files %v after the inline replay, want none", got)
	}
	got, ok, err := s.State("q", "Dedup/0", 0, 4)
	if err != nil || !ok || string(got) != "small" {
		t.Fatalf("State = %q, %v, %v; want the inline snapshot", got, ok, err)
	}
}
