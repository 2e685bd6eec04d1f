package state

import (
	"fmt"
	"testing"
)

// TestCursorScansRangesAfterOneAnother reads several ranges through one cursor: each gives its
// keys in order, and changes made after the cursor opened do not show in it.
func TestCursorScansRangesAfterOneAnother(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a1", "a2", "b1", "c1", "c2", "c3"} {
		if err := s.Put([]byte(k), []byte("v"+k)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.Cursor()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]byte("b2"), []byte("late")); err != nil {
		t.Fatal(err)
	}
	read := func(lower, upper string) string {
		var out []string
		err := c.Scan([]byte(lower), []byte(upper), func(key, value []byte) error {
			out = append(out, string(key)+"="+string(value))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(out)
	}
	for _, tc := range []struct{ lower, upper, want string }{
		{"c", "d", "[c1=vc1 c2=vc2 c3=vc3]"},
		{"a", "b", "[a1=va1 a2=va2]"},
		{"b", "c", "[b1=vb1]"},
		{"x", "y", "[]"},
		{"a2", "c2", "[a2=va2 b1=vb1 c1=vc1]"},
	} {
		if got := read(tc.lower, tc.upper); got != tc.want {
			t.Errorf("[%s, %s): %s, want %s", tc.lower, tc.upper, got, tc.want)
		}
	}
	stop := fmt.Errorf("stop")
	n := 0
	if err := c.Scan([]byte("a"), nil, func([]byte, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Scan went on after fn's error: %v after %d keys", err, n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
