package expr

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{1, "1.0"}, {0.001, "0.001"}, {1e-4, "1.0E-4"}, {1234567.5, "1234567.5"}, {1e7, "1.0E7"}, {-2.5e20, "-2.5E20"},
		{0.1, "0.1"}, {math.Inf(-1), "-Infinity"}} {
		if got := JavaDouble(c.f, 64); got != c.want {
			t.Errorf("%v: got %s want %s", c.f, got, c.want)
		}
	}
	if got := JavaDouble(float64(float32(0.1)), 32); got != "0.1" {
		t.Errorf("float32 0.1: %s", got)
	}
}
