package engine

import (
	"testing"

	"github.com/weirhq/weir/sql/expr"
)

// FuzzConfSet sets arbitrary values on every kind of key through the registry: Set never
// panics; an accepted value is what Get returns and what the typed getters and the zone
// resolver can read; a refused one leaves the previous value in place.
func FuzzConfSet(f *testing.F) {
	// Values from the datadriven cases, by the kind of key they exercise.
	byKind := map[ConfKind][]string{
		ConfString: {"", "anything", "5ms", "0"},
		ConfBool:   {"true", " FALSE", "maybe", "1"},
		ConfInt:    {"8", "0", "-3", "3000000000", "1e4", " 7 "},
		ConfLong:   {"3000000000", "3g", "-1", "9223372036854775808"},
		ConfBytes:  {"2g", "512K", "0", "1.5g", "-1m", "99999999999p", "8e"},
		ConfTime:   {"500us", "10", "1fortnight", "-5ms", "1d", "9223372036854775807h"},
		ConfEnum:   {"min", "MAX", "avg", "timestamp_ntz", "TIMESTAMP"},
		ConfTimeZone: {"UTC", "Z", "+08:00", "GMT+8", "-13:33:33", "+1:30", "UT+01:3", "PST", "pst", "Mars/Olympus",
			"America/Los_Angeles", "Asia/shanghai", "+19:00", "Local", "posix/UTC", "../../etc/passwd", "Etc/GMT+8", ""},
	}
	seeded := map[ConfKind]bool{}
	for _, e := range ConfEntries() {
		if !seeded[e.Kind] { // one key of each kind with that kind's values
			seeded[e.Kind] = true
			for _, v := range byKind[e.Kind] {
				f.Add(e.Key, v)
			}
		}
	}
	f.Add("spark.some.unknown.key", "anything")
	f.Fuzz(func(t *testing.T, key, value string) {
		conf := NewConf()
		before, hadBefore := conf.Get(key)
		err := conf.Set(key, value)
		got, ok := conf.Get(key)
		if err != nil {
			if got != before || ok != hadBefore {
				t.Fatalf("refused %q=%q (%v) but the value changed from %q to %q", key, value, err, before, got)
			}
			return
		}
		if !ok || got != value {
			t.Fatalf("accepted %q=%q but Get says %q, %v", key, value, got, ok)
		}
		e, known := LookupConf(key)
		if !known {
			return
		}
		switch e.Kind {
		case ConfBytes:
			if n := conf.Bytes(key, -1<<62); n == -1<<62 {
				t.Fatalf("accepted size %q unreadable", value)
			}
		case ConfTime:
			if d := conf.Duration(key, -1); d == -1 && value != "-1" {
				t.Fatalf("accepted duration %q unreadable", value)
			}
		case ConfTimeZone:
			if _, err := expr.LoadZone(value); err != nil {
				t.Fatalf("accepted zone %q does not load: %v", value, err)
			}
		}
		_ = conf.Bool(key, false)
		_ = conf.Int(key, 0)
	})
}
