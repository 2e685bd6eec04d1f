package expr

import (
	"encoding/hex"
	"testing"
)

// Spark 4.2's tuple_sketch_agg_integer(id, 1, 4, 'max') FROM range(0, 100, 1, 1): 100 keys
// into 16 nominal entries, so the table grew and was rebuilt (theta < 1); Spark's final
// aggregation unions the partial sketch once more (tests/e2e/sketch_answers/tuple.json).
const sparkTuple100 = "03030901000acc9310000000000000006a918b0b0be72c0f40de2ee1c9db3d080100000002614ecd35427f6f0b0100000002e2dacf9fcdeabe04010000000263319a572b2de6070100000002e8a7bd68fe0b86040100000002698bb991b868570801000000026aa9cade240aed0501000000020a22dbb71c875f010100000002ed0b4d6d52ba0605010000000283b932ccf95b7f0d01000000020f5d1190dc88b1030100000002b21e8b1c4525480b010000000215f97dcbbd86a1050100000002f7ce79d2837fc9050100000002fb38798913248f010100000002b26f45601710360c0100000002"

func TestTupleMatchesSpark(t *testing.T) {
	q := newTupleQS[int32](16)
	for v := int64(0); v < 100; v++ {
		q.update(thetaHashLong(v), 1, tupleMax)
	}
	u := newTupleUnion[int32](16, tupleMax)
	u.add(q.compact())
	got := tupleInts.bytes(u.result())
	if hex.EncodeToString(got) != sparkTuple100 {
		t.Fatalf("bytes\n got %x\nwant %s", got, sparkTuple100)
	}
	back, err := tupleInts.read(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(tupleInts.bytes(back)) != string(got) || len(back.hashes) != 16 || !back.estimationMode() {
		t.Fatalf("read back %d entries", len(back.hashes))
	}
	for _, bad := range []string{"", "0103", "02030901000acc930500000000000000", "01030901000acc9315f97dcbbd86a1050100000009"} {
		raw, _ := hex.DecodeString(bad)
		if _, err := tupleInts.read(raw); err == nil {
			t.Errorf("%q read as a sketch", bad)
		}
	}
}

// TestTupleSetOperations checks the set operations' entries and summaries on small sketches.
func TestTupleSetOperations(t *testing.T) {
	build := func(keys ...int64) *tupleCompact[float64] {
		q := newTupleQS[float64](4096)
		for _, k := range keys {
			q.update(thetaHashLong(k), float64(k), tupleSum)
		}
		return q.compact()
	}
	a, b := build(1, 2, 3, 3), build(3, 4)
	in := newTupleIntersection[float64](tupleSum)
	in.add(a.hashes, a.sums, a.empty, a.thetaLong(), nil)
	in.add(b.hashes, b.sums, b.empty, b.thetaLong(), nil)
	x, err := in.result()
	if err != nil || len(x.hashes) != 1 || x.sums[0].v != 9 { // 3+3 from a, 3 from b
		t.Fatalf("intersection %v %v", x, err)
	}
	d, err := tupleANotB(a, b.hashes, b.empty, b.thetaLong())
	if err != nil || len(d.hashes) != 2 || tupleFold(d, tupleSum).(float64) != 3 {
		t.Fatalf("difference %v %v", d, err)
	}
	if _, err := newTupleIntersection[float64](tupleSum).result(); err == nil {
		t.Fatal("an intersection of nothing has a result")
	}
}
