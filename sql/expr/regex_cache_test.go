package expr

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, p string) *regexp.Regexp {
	t.Helper()
	r, err := regexp.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRegexCacheIsBounded: patterns taken from data (one per row) cannot grow the cache past
// its two generations, long patterns are not kept, and a pattern used again stays cached.
func TestRegexCacheIsBounded(t *testing.T) {
	c := &regexCache{cur: map[string]*regexp.Regexp{}}
	hot := "^hot$"
	for i := 0; i < 10*regexCacheEntries; i++ {
		for _, p := range []string{fmt.Sprintf("row%d", i), hot} {
			if _, ok := c.get(p); !ok {
				c.put(p, mustCompile(t, p))
			}
		}
		if n := c.size(); n > 2*regexCacheEntries {
			t.Fatalf("after %d patterns the cache holds %d", i, n)
		}
	}
	if _, ok := c.get(hot); !ok {
		t.Fatal("a pattern in use was dropped")
	}
	long := strings.Repeat("a", regexCacheMaxPattern+1)
	c.put(long, mustCompile(t, long))
	if _, ok := c.get(long); ok {
		t.Fatal("a pattern longer than the bound was kept")
	}
	if r, err := compileJavaRegex("a+b"); err != nil || !r.MatchString("aab") {
		t.Fatalf("compileJavaRegex: %v", err)
	}
}
