package query

import (
	"testing"
	"time"
)

func TestPollingDelayConf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
		err  bool
	}{
		{"", 0, false, false},
		{"1ms", time.Millisecond, true, false},
		{"500us", 500 * time.Microsecond, true, false},
		{"10", 10 * time.Millisecond, true, false},
		{"2s", 2 * time.Second, true, false},
		{"fast", 0, false, true},
	} {
		conf := func(k string) (string, bool) {
			if k != PollingDelayConf || c.in == "" {
				return "", false
			}
			return c.in, true
		}
		got, ok, err := pollingDelay(conf)
		if got != c.want || ok != c.ok || (err != nil) != c.err {
			t.Errorf("pollingDelay(%q) = %v %v %v, want %v %v err=%v", c.in, got, ok, err, c.want, c.ok, c.err)
		}
	}
}
