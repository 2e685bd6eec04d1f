package expr

import (
	"slices"
	"testing"
)

func TestTimeWindowStarts(t *testing.T) {
	for _, c := range []struct {
		size, slide, start, ts int64
		want                   []int64
	}{
		{10, 10, 0, 7, []int64{0}},
		{10, 5, 0, 7, []int64{5, 0}},
		{10, 5, 0, 5, []int64{5, 0}},
		{10, 5, 0, 10, []int64{10, 5}},
		{10, 3, 0, 7, []int64{6, 3, 0}},
		{10, 5, 2, 7, []int64{7, 2}},
		{10, 5, 2, 1, []int64{-3, -8}},
		{10, 5, 0, -1, []int64{-5, -10}},
	} {
		w := &TimeWindow{Size: c.size, Slide: c.slide, Start: c.start}
		if got := w.Starts(c.ts); !slices.Equal(got, c.want) {
			t.Errorf("window(%d, %d, %d) of %d: got %v, want %v", c.size, c.slide, c.start, c.ts, got, c.want)
		}
	}
	if ms, ok := ParseInterval("1 minute 30 seconds"); !ok || ms != 90e6 {
		t.Errorf("ParseInterval: %d %v", ms, ok)
	}
}
