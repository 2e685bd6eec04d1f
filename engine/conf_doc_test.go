package engine

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/weirhq/weir/conf"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the registry")

// TestConfigurationDoc fails when docs/configuration.md is not what the registry renders;
// `go generate ./engine` (this test with -update) rewrites it.
func TestConfigurationDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "configuration.md")
	want := ConfigurationDoc()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run `go generate ./engine`", path)
	}
}

// TestConfAllListsRegistry checks that getAll reports every registered key: its default, or
// Undefined for a key without one, and a set value over either.
func TestConfAllListsRegistry(t *testing.T) {
	c := NewConf()
	if err := c.Set(conf.ANSIKey, "false"); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{}
	for _, kv := range c.All("") {
		all[kv[0]] = kv[1]
	}
	for _, e := range confEntries {
		v, ok := all[e.Key]
		switch {
		case !ok:
			t.Errorf("getAll misses %s", e.Key)
		case e.Key == conf.ANSIKey:
			if v != "false" {
				t.Errorf("%s = %q after set, want false", e.Key, v)
			}
		case e.NoDefault && v != Undefined:
			t.Errorf("%s = %q, want %s", e.Key, v, Undefined)
		case !e.NoDefault && v != e.Default:
			t.Errorf("%s = %q, want its default %q", e.Key, v, e.Default)
		}
	}
}

// TestConfKeysShared checks that the key expr names in its memory errors is the registered one.
func TestConfKeysShared(t *testing.T) {
	if _, ok := LookupConf(conf.QueryMemoryBudgetKey); !ok {
		t.Fatalf("%s is not registered", conf.QueryMemoryBudgetKey)
	}
}
