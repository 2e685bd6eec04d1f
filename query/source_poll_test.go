package query

import (
	"testing"
	"time"
)

// spark.weir.streaming.continuous.sourcePollIntervalMs: unset means 5 ms; a positive time
// (Spark's timeConf syntax, a bare number counting milliseconds) sets it; anything else is
// refused.
func TestSourcePollInterval(t *testing.T) {
	for _, tc := range []struct {
		value string
		set   bool
		want  time.Duration
		fails bool
	}{
		{set: false, want: 5 * time.Millisecond},
		{value: "5", set: true, want: 5 * time.Millisecond},
		{value: " 20ms ", set: true, want: 20 * time.Millisecond},
		{value: "100MS", set: true, want: 100 * time.Millisecond},
		{value: "", set: true, want: 5 * time.Millisecond},
		{value: "1", set: true, want: time.Millisecond},
		{value: "0", set: true, fails: true},
		{value: "-3", set: true, fails: true},
		{value: "1s", set: true, want: time.Second},
		{value: "fast", set: true, fails: true},
	} {
		conf := func(key string) (string, bool) {
			if key != SourcePollIntervalConf {
				t.Fatalf("read %s", key)
			}
			return tc.value, tc.set
		}
		got, err := sourcePollInterval(conf)
		if tc.fails {
			if err == nil {
				t.Errorf("%q: got %v, want an error", tc.value, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %v, %v; want %v", tc.value, got, err, tc.want)
		}
	}
}
