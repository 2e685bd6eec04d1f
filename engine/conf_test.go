package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
)

// TestConfSet runs testdata/conf: "set" takes key=value lines (each on the same session
// conf) and answers, per line, whether the value was accepted and what the key holds after;
// "get" shows keys' values.
func TestConfSet(t *testing.T) {
	datadriven.Walk(t, "testdata/conf", func(t *testing.T, path string) {
		conf := NewConf()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				switch d.Cmd {
				case "set":
					key, value, ok := strings.Cut(line, "=")
					if !ok {
						d.Fatalf(t, "set needs key=value, got %q", line)
					}
					if err := conf.Set(key, value); err != nil {
						se, _ := sparkerr.As(err)
						fmt.Fprintf(&out, "refused: %s: %s\n", se.JavaClass, se.Error())
					} else {
						out.WriteString("accepted\n")
					}
					fmt.Fprintf(&out, "%s\n", show(conf, key))
				case "get":
					fmt.Fprintf(&out, "%s\n", show(conf, line))
				case "unset":
					conf.Unset(line)
					fmt.Fprintf(&out, "%s\n", show(conf, line))
				default:
					d.Fatalf(t, "unknown command %s", d.Cmd)
				}
			}
			return out.String()
		})
	})
}

func show(conf *Conf, key string) string {
	v, ok := conf.Get(key)
	if !ok {
		return key + " is unset"
	}
	return fmt.Sprintf("%s = %q", key, v)
}

// TestConfDefaultsAreValid checks every registered default against its own validation, so
// the registry cannot report a value it would refuse.
func TestConfDefaultsAreValid(t *testing.T) {
	for _, e := range ConfEntries() {
		if e.Doc == "" {
			t.Errorf("%s has no doc", e.Key)
		}
		if e.NoDefault {
			continue
		}
		if err := e.Validate(e.Default); err != nil {
			t.Errorf("%s: default %q refused: %v", e.Key, e.Default, err)
		}
	}
}
