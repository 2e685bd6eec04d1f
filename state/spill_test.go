package state

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestSpillMatchesMap applies random puts, deletes (one by one and in batches), gets and range
// scans to a Spill and a map,
// takes views and checks they keep the contents of their moment, then checks Close removes the
// store's directory.
func TestSpillMatchesMap(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("WEIR_TEST_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (rerun with WEIR_TEST_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed>>3))
	parent := t.TempDir()
	s, err := OpenSpill(parent)
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	type frozen struct {
		view  *View
		model map[string]string
	}
	var views []frozen
	key := func() []byte { return []byte(fmt.Sprintf("k%03d", rng.IntN(200))) }
	for step := 0; step < 3000; step++ {
		switch op := rng.IntN(20); {
		case op < 9:
			k, v := key(), []byte(strconv.Itoa(rng.IntN(1000)))
			if rng.IntN(10) == 0 {
				v = nil
			}
			if err := s.Put(k, v); err != nil {
				t.Fatal(err)
			}
			model[string(k)] = string(v)
		case op < 14:
			k := key()
			if err := s.Delete(k); err != nil {
				t.Fatal(err)
			}
			delete(model, string(k))
		case op < 18:
			k := key()
			v, ok, err := s.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			want, wantOK := model[string(k)]
			if ok != wantOK || string(v) != want {
				t.Fatalf("step %d: Get(%s) = %q %t, model %q %t", step, k, v, ok, want, wantOK)
			}
			if has, _ := s.Has(k); has != wantOK {
				t.Fatalf("step %d: Has(%s) = %t", step, k, has)
			}
		case op < 19:
			if rng.IntN(2) == 0 {
				views = append(views, frozen{s.View(), maps.Clone(model)})
				break
			}
			// A batch of changes, none visible before Commit.
			b := s.NewBatch()
			for range 1 + rng.IntN(20) {
				k := key()
				if rng.IntN(3) == 0 {
					if err := b.Delete(k); err != nil {
						t.Fatal(err)
					}
					delete(model, string(k))
					continue
				}
				v := []byte(strconv.Itoa(rng.IntN(1000)))
				if err := b.Put(k, v); err != nil {
					t.Fatal(err)
				}
				model[string(k)] = string(v)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		default:
			lo, hi := key(), key()
			if bytes.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			checkScan(t, step, s.Scan, lo, hi, model)
		}
	}
	for i, f := range views {
		checkScan(t, i, f.view.Scan, nil, nil, f.model)
	}
	// Close waits for the open views: the directory goes with the last one.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range views {
		if err := f.view.Close(); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 0 {
		t.Errorf("spill directory left behind: %v", entries)
	}
}

func checkScan(t *testing.T, step int, scan func(lo, hi []byte, fn func(k, v []byte) error) error,
	lo, hi []byte, model map[string]string) {
	t.Helper()
	var got []string
	err := scan(lo, hi, func(k, v []byte) error {
		got = append(got, string(k)+"="+string(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range slices.Sorted(maps.Keys(model)) {
		if (lo == nil || k >= string(lo)) && (hi == nil || k < string(hi)) {
			want = append(want, k+"="+model[k])
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("step %d: scan [%s, %s) = %v, model %v", step, lo, hi, got, want)
	}
}

func TestBudgetFromConf(t *testing.T) {
	conf := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	b, err := BudgetFromConf(conf(map[string]string{MemoryBudgetConf: " 4096 ", SpillDirConf: "/x"}))
	if err != nil || b != (Budget{MemoryBytes: 4096, Dir: "/x"}) || !b.Limited() {
		t.Errorf("got %+v, %v", b, err)
	}
	if b, err := BudgetFromConf(conf(nil)); err != nil || b.Limited() {
		t.Errorf("unset: got %+v, %v", b, err)
	}
	if b, err := BudgetFromConf(nil); err != nil || b.Limited() {
		t.Errorf("no conf: got %+v, %v", b, err)
	}
	_, err = BudgetFromConf(conf(map[string]string{MemoryBudgetConf: "lots"}))
	if err == nil || err.Error() == "" {
		t.Fatalf("a bad budget is accepted")
	}
	t.Log(err)
}

// TestHashFilter: no false negatives, and about 1% false positives at capacity.
func TestHashFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f := NewHashFilter(10_000)
	added := map[uint64]bool{}
	for range 10_000 {
		h := rng.Uint64()
		added[h] = true
		f.Add(h)
	}
	for h := range added {
		if !f.MayContain(h) {
			t.Fatalf("hash %x added but not found", h)
		}
	}
	fp := 0
	for range 100_000 {
		if h := rng.Uint64(); !added[h] && f.MayContain(h) {
			fp++
		}
	}
	if fp > 3000 {
		t.Errorf("%d false positives in 100000 (want about 1%%)", fp)
	}
	t.Logf("%d false positives in 100000, %d bytes", fp, f.Bytes())
}

// TestSpillSizeCountsWhatWasSpilled: SizeBytes covers the values written, flushed to tables or
// still in a memtable.
func TestSpillSizeCountsWhatWasSpilled(t *testing.T) {
	s, err := OpenSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	empty := s.SizeBytes()
	value := bytes.Repeat([]byte{'v'}, 64<<10)
	const n = 160 // 10 MiB: more than a memtable holds, so some reach tables
	for i := range n {
		if err := s.Put([]byte(fmt.Sprintf("k%04d", i)), value); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.SizeBytes(); got < empty+n*int64(len(value)) {
		t.Fatalf("size %d after spilling %d bytes (empty: %d)", got, n*len(value), empty)
	}
}
