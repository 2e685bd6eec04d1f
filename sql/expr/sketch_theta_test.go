package expr

import (
	"encoding/hex"
	"testing"
)

// Spark 4.2's theta_sketch_agg(id, 4) FROM range(0, 1000, 1, 1): an estimation-mode sketch
// of serial version 4 (tests/e2e/sketch_answers/theta.json holds more of Spark's answers).
const sparkTheta1000 = "02040337011acc9394ded6c8a0752a021054e975e5db13aaed949bb9f88c2446b9a35a3e40e04cdfd38ce4fcd46f63b88b2f4711ba2f7d098a148baec7d83eabfd11841b23da08998f9b5f27792f9643d34c4717096ca41da3fbe21bf0b6e1c2f9519f31f564c451973006deb9d849a1af946ec17c533edfa160ddec687277"

func TestThetaUpdateMatchesSpark(t *testing.T) {
	s := newThetaUpdate(4)
	for v := int64(0); v < 1000; v++ {
		s.update(thetaHashLong(v))
	}
	if got := hex.EncodeToString(s.compact().bytes()); got != sparkTheta1000 {
		t.Fatalf("sketch bytes\n got %s\nwant %s", got, sparkTheta1000)
	}
	if thetaSeedHash != 0x93cc {
		t.Fatalf("seed hash %x, want 93cc", thetaSeedHash)
	}
}

// TestThetaReadsVersion3 reads the uncompressed compact layout (serial version 3, preamble of
// 2 or 3 longs) that DataSketches' toByteArray writes, as other writers may send it.
func TestThetaReadsVersion3(t *testing.T) {
	b, _ := hex.DecodeString(sparkTheta1000)
	c, err := readThetaCompact(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.hashes) != 16 || int64(c.estimate()+0.5) != 946 {
		t.Fatalf("count %d estimate %v", len(c.hashes), c.estimate())
	}
	v3 := []byte{3, 3, 3, 0, 0, thetaFlagReadOnly | thetaFlagCompact, 0xcc, 0x93, 16, 0, 0, 0, 0, 0, 0x80, 0x3f}
	for _, x := range []uint64{c.theta} {
		v3 = append(v3, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
	}
	for i := len(c.hashes) - 1; i >= 0; i-- { // unordered
		x := c.hashes[i]
		v3 = append(v3, byte(x), byte(x>>8), byte(x>>16), byte(x>>24), byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56))
	}
	d, err := readThetaCompact(v3)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(d.bytes()); got != sparkTheta1000 {
		t.Fatalf("re-encoded %s", got)
	}
	for _, bad := range []string{"", "0102", "01040337011acc93", "0203030000", "01030300001acc9301"} {
		raw, _ := hex.DecodeString(bad)
		if _, err := readThetaCompact(raw); err == nil {
			t.Errorf("%q read as a sketch", bad)
		}
	}
}
