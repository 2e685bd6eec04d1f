package sources

import "testing"

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512m": 512 << 20, "2g": 2 << 30, "2G": 2 << 30,
		" 64KB ": 64 << 10, "3b": 3, "1t": 1 << 40, "1pb": 1 << 50, "-1": -1} {
		got, err := ParseByteSize("k", in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1.5g", "12 parsecs", "g", "9999999p", "1x"} {
		if _, err := ParseByteSize("k", in); err == nil {
			t.Errorf("ParseByteSize(%q) accepted", in)
		}
	}
}
