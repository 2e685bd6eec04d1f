package expr

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Spark 4.2's kll_sketch_agg_bigint(id) FROM range(0, 3, 1, 1) (tests/e2e/sketch_answers/kll.json).
const sparkKll3 = "05010f00c80008000300000000000000c8000100c500000000000000000000000200000000000000000000000000000001000000000000000200000000000000"

func TestKllMatchesSpark(t *testing.T) {
	s := newKllSketch[int64](kllDefaultK)
	for v := int64(0); v < 3; v++ {
		s.update(v)
	}
	final := newKllSketch[int64](kllDefaultK) // Spark's final aggregation merges into a fresh sketch
	final.merge(s)
	if got := hex.EncodeToString(kllLongs.bytes(final)); got != sparkKll3 {
		t.Fatalf("bytes\n got %s\nwant %s", got, sparkKll3)
	}
}

// TestKllCompaction checks, over random streams and merges, what compaction must keep: the
// weights add up to n, levels above 0 stay sorted, the retained items fit the capacity, ranks
// stay within the sketch's error, and the bytes read back to the same sketch.
func TestKllCompaction(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, k := range []int{8, 20, 200} {
		a, b := newKllSketch[float64](k), newKllSketch[float64](k)
		var all []float64
		for i := 0; i < 30000; i++ {
			v := math.Floor(r.NormFloat64() * 1000)
			all = append(all, v)
			if i%3 == 0 {
				b.update(v)
			} else {
				a.update(v)
			}
		}
		a.merge(b)
		checkKll(t, a, int64(len(all)))
		slices.Sort(all)
		if a.min != all[0] || a.max != all[len(all)-1] {
			t.Fatalf("k=%d: min/max %v %v, want %v %v", k, a.min, a.max, all[0], all[len(all)-1])
		}
		vals, cum := a.sortedView()
		eps := 2.296 / math.Pow(float64(a.minK), 0.9723)
		for _, q := range []float64{-500, -100, 0, 250, 900} {
			i, _ := slices.BinarySearch(all, math.Nextafter(q, math.Inf(1)))
			exact := float64(i) / float64(len(all))
			if got := a.rank(vals, cum, q); math.Abs(got-exact) > 3*eps {
				t.Errorf("k=%d: rank(%v) = %v, exact %v (eps %v)", k, q, got, exact, eps)
			}
		}
		if got := a.quantile(vals, cum, 0); got != all[0] {
			t.Errorf("k=%d: quantile(0) = %v", k, got)
		}
		back, err := kllDoubles.read(kllDoubles.bytes(a))
		if err != nil {
			t.Fatal(err)
		}
		if string(kllDoubles.bytes(back)) != string(kllDoubles.bytes(a)) {
			t.Fatalf("k=%d: bytes do not read back", k)
		}
		raw := kllDoubles.bytes(a)
		if _, err := kllDoubles.read(raw[:len(raw)-1]); err == nil {
			t.Fatalf("k=%d: a truncated sketch read", k)
		}
	}
}

func checkKll[T kllItem](t *testing.T, s *kllSketch[T], n int64) {
	t.Helper()
	var w int64
	for l := 0; l < s.numLevels; l++ {
		lvl := s.items[s.levels[l]:s.levels[l+1]]
		if l > 0 && !slices.IsSorted(lvl) {
			t.Fatalf("level %d not sorted", l)
		}
		w += int64(len(lvl)) << l
	}
	if w != n || s.n != n {
		t.Fatalf("weights %d, n %d, want %d", w, s.n, n)
	}
	if s.levels[s.numLevels] != kllTotalCapacity(s.k, s.m, s.numLevels) || len(s.items) != s.levels[s.numLevels] {
		t.Fatalf("capacity %d of %d items", s.levels[s.numLevels], len(s.items))
	}
}
