package checkpoints

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestStoreRecoversLogOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.PutMetadata("q1", []byte(`{"id":"q1"}`)))
	for e := int64(0); e < 3; e++ {
		must(s.WriteOffsets("q1", e, []byte{byte(e)}))
		must(s.PutState("q1", "agg", 0, e, []byte{byte(10 + e)}))
		if e < 2 {
			must(s.Commit("q1", e))
		}
	}
	must(s.WriteOffsets("q2", 7, []byte("other")))
	must(s.Close())

	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, ok, err := s.LastCommit("q1"); err != nil || !ok || c != 1 {
		t.Fatalf("LastCommit = %d %v %v, want 1", c, ok, err)
	}
	if o, ok, err := s.LastOffsets("q1"); err != nil || !ok || o != 2 {
		t.Fatalf("LastOffsets = %d %v %v, want 2 (logged, not committed)", o, ok, err)
	}
	if v, ok, _ := s.Offsets("q1", 2); !ok || v[0] != 2 {
		t.Fatalf("Offsets(2) = %v %v", v, ok)
	}
	if v, ok, _ := s.State("q1", "agg", 0, 1); !ok || v[0] != 11 {
		t.Fatalf("State at 1 = %v %v, want [11]", v, ok)
	}
	if _, ok, _ := s.LastCommit("q2"); ok {
		t.Fatal("q2 has no commits")
	}
	if m, ok, _ := s.Metadata("q1"); !ok || string(m) != `{"id":"q1"}` {
		t.Fatalf("Metadata = %q", m)
	}
	must(s.Purge("q1", 2))
	if _, ok, _ := s.Offsets("q1", 0); ok {
		t.Fatal("purged offsets still there")
	}
	if _, ok, _ := s.Offsets("q1", 2); !ok {
		t.Fatal("offsets at keep epoch purged")
	}
}

func TestStateReadsLatestAtOrBefore(t *testing.T) {
	s, err := Open("", InMemory())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, e := range []int64{1, 4, 9} {
		if err := s.PutState("q", "op", 3, e, []byte{byte(e)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		at   int64
		want byte
		ok   bool
	}{{0, 0, false}, {1, 1, true}, {3, 1, true}, {4, 4, true}, {100, 9, true}} {
		v, ok, err := s.State("q", "op", 3, c.at)
		if err != nil || ok != c.ok || (ok && v[0] != c.want) {
			t.Errorf("State(at %d) = %v %v %v, want %v %v", c.at, v, ok, err, c.want, c.ok)
		}
	}
}

func TestPurgeStateKeepsTheSnapshotsRecoveryNeeds(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, op := range []string{"Aggregate#1", "Aggregate#12"} {
		for p := range 2 {
			for e := int64(0); e < 6; e++ {
				if op == "Aggregate#12" && p == 1 && e%2 == 0 {
					continue // this partition saved odd epochs only
				}
				if err := s.PutState("q", op, p, e, []byte(fmt.Sprintf("%s/%d/%d", op, p, e))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := s.PurgeState("q", 4); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op      string
		p       int
		at      int64
		want    string
		present bool
	}{
		{"Aggregate#1", 0, 4, "Aggregate#1/0/4", true},
		{"Aggregate#1", 1, 5, "Aggregate#1/1/5", true},
		{"Aggregate#1", 0, 3, "", false},
		{"Aggregate#12", 1, 4, "Aggregate#12/1/3", true},
		{"Aggregate#12", 1, 2, "", false},
		{"Aggregate#12", 0, 9, "Aggregate#12/0/5", true},
	} {
		got, ok, err := s.State("q", c.op, c.p, c.at)
		if err != nil || ok != c.present || string(got) != c.want {
			t.Fatalf("State(%s, %d, %d) = %q %t %v, want %q %t", c.op, c.p, c.at, got, ok, err, c.want, c.present)
		}
	}
}
