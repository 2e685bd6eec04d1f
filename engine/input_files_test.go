package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/weirhq/weir/sql/plan"
)

// TestInputFilesListsFileReads: a plan's text reads list their data files as file URIs, once
// each and sorted; hidden files are not data; a plan without file reads lists none.
func TestInputFilesListsFileReads(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.txt", "a.txt", "_SUCCESS", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(other, []byte("y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSession()
	defer s.Close()
	read := &plan.DataSource{Format: "text", Paths: []string{dir}}
	rel := &plan.SetOp{Type: plan.Union, IsAll: true, Left: read, Right: &plan.SetOp{Type: plan.Union, IsAll: true, Left: read,
		Right: &plan.DataSource{Format: "text", Options: map[string]string{"path": other}}}}
	got, err := s.InputFiles(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"file://" + filepath.Join(dir, "a.txt"), "file://" + filepath.Join(dir, "b.txt"), "file://" + other}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("input files %v, want %v", got, want)
	}
	if got, err := s.InputFiles(context.Background(), &plan.Range{End: 3, Step: 1}); err != nil || len(got) != 0 {
		t.Fatalf("range: %v %v", got, err)
	}
}
