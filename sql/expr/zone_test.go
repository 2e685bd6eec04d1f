package expr

import (
	"testing"
	"time"
)

func TestLoadZone(t *testing.T) {
	// Offsets in seconds east of UTC for the ids Spark's session time zone accepts.
	accepted := map[string]int{
		"UTC": 0, "Z": 0, "GMT": 0, "UT": 0, "+08:00": 8 * 3600, "-08": -8 * 3600, "+8": 8 * 3600,
		"+0530": 5*3600 + 30*60, "-13:33:33": -(13*3600 + 33*60 + 33), "+18:00": 18 * 3600,
		"GMT+8": 8 * 3600, "UTC-03:30": -(3*3600 + 30*60), "UT+1": 3600, "GMT+8:00": 8 * 3600,
		"+1:30": 3600 + 30*60, "+01:3": 3600 + 3*60, "EST": -5 * 3600,
	}
	for id, want := range accepted {
		loc, err := LoadZone(id)
		if err != nil {
			t.Errorf("LoadZone(%q): %v", id, err)
			continue
		}
		if _, off := time.Date(2024, 1, 1, 0, 0, 0, 0, loc).Zone(); off != want {
			t.Errorf("LoadZone(%q) offset %d, want %d", id, off, want)
		}
	}
	for _, id := range []string{"America/Los_Angeles", "Asia/Kolkata", "Etc/GMT+8", "US/Pacific", "PST", "CTT"} {
		if _, err := LoadZone(id); err != nil {
			t.Errorf("LoadZone(%q): %v", id, err)
		}
	}
	for _, id := range []string{"", "Mars/Olympus", "utc", "pst", "Asia/shanghai", "+19:00", "+18:01", "GMT+", "+123",
		"Local", "posix/UTC", "../etc/passwd", "/etc/localtime", "America/New_York ", "+08:60", "8", "UTC+Z", "Factory"} {
		if _, err := LoadZone(id); err == nil {
			t.Errorf("LoadZone(%q) accepted", id)
		}
	}
}
