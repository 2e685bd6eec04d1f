package metrics

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardNamesExist: every weir_ series docs/grafana-dashboard.json queries is one the
// registry exports (a histogram's _bucket, _sum and _count included).
func TestDashboardNamesExist(t *testing.T) {
	b, err := os.ReadFile("../docs/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	r := New("test", "4.1.0")
	r.SetServerStats(func() ServerStats { return ServerStats{} })
	// Give every vector a child so Gather lists it.
	r.QueryListener().OnEvent(progressEvent("q", "n", 0, 1, 1, "2026-01-01T00:00:00.000Z", 1, 0))
	r.QueryListener().OnEvent(mapsEvent(1, "10", "arrival", "100", "1", "2", "3"))
	r.RPC("m")
	r.Error("m", "C")
	r.server.queryFailures.WithLabelValues("C").Inc()
	mfs, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, mf := range mfs {
		have[mf.GetName()] = true
	}
	used := regexp.MustCompile(`\bweir_[a-z_]+`).FindAllString(string(b), -1)
	if len(used) == 0 {
		t.Fatal("the dashboard queries no weir_ series")
	}
	for _, name := range used {
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(name, suffix) && have[strings.TrimSuffix(name, suffix)] {
				base = strings.TrimSuffix(name, suffix)
			}
		}
		if !have[base] {
			t.Errorf("the dashboard queries %s, which the registry does not export", name)
		}
	}
}
