package fileaccess

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/weirhq/weir/sparkerr"
)

// TestPolicyScripts runs testdata/* scripts against a fake layout built in a temporary
// directory $T (every path in a script and in its answers is written with $T):
//
//	layout                          input lines: "dir P", "file P", "link P -> TARGET"
//	policy [roots=(P,…)] [state=P] [warehouse=P] [cwd=P] [home=P] [nil]   → ok | the New error
//	check read|write|replace PATH   → the resolved path | error [CLASS] message
//	resolve PATH                    → the resolved path | error
//	within DIR NAME                 → ResolveWithin's answer
//
// PATH "<empty>" is the empty path. A check does not create, read or delete anything: after
// every script the layout is compared with the one the layout commands built.
func TestPolicyScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		tmp := t.TempDir()
		// macOS's /var is a link: use the resolved temp dir so answers read the same.
		tmp, err := filepath.EvalSymlinks(tmp)
		if err != nil {
			t.Fatal(err)
		}
		expand := func(s string) string {
			if s == "<empty>" {
				return ""
			}
			return strings.ReplaceAll(s, "$T", tmp)
		}
		in := func(s string) string { return filepath.Join(tmp, s) }
		show := func(s string) string { return strings.ReplaceAll(s, tmp, "$T") }
		var p *Policy
		var before string
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "layout":
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					f := strings.Fields(line)
					switch {
					case len(f) == 2 && f[0] == "dir":
						must(t, os.MkdirAll(in(f[1]), 0o755))
					case len(f) == 2 && f[0] == "file":
						must(t, os.MkdirAll(filepath.Dir(in(f[1])), 0o755))
						must(t, os.WriteFile(in(f[1]), []byte("x"), 0o644))
					case len(f) == 4 && f[0] == "link" && f[2] == "->":
						must(t, os.MkdirAll(filepath.Dir(in(f[1])), 0o755))
						must(t, os.Symlink(expand(f[3]), in(f[1])))
					default:
						d.Fatalf(t, "bad layout line %q", line)
					}
				}
				before = tree(t, tmp)
				return "ok"
			case "policy":
				var c Config
				for _, a := range d.CmdArgs {
					switch a.Key {
					case "roots":
						for _, v := range a.Vals {
							c.Roots = append(c.Roots, in(v))
						}
					case "state":
						c.StateDir = in(a.Vals[0])
					case "warehouse":
						c.Warehouse = in(a.Vals[0])
					case "cwd":
						c.WorkDir = in(a.Vals[0])
					case "home":
						c.Home = in(a.Vals[0])
					case "nil":
						p = nil
						return "ok"
					default:
						d.Fatalf(t, "unknown argument %s", a.Key)
					}
				}
				var err error
				if p, err = New(c); err != nil {
					p = nil
					return show(err.Error())
				}
				return "ok"
			case "check", "resolve", "within":
				var r string
				var err error
				switch {
				case d.Cmd == "resolve" && len(d.CmdArgs) == 1:
					r, err = p.Resolve(expand(d.CmdArgs[0].Key))
				case d.Cmd == "within" && len(d.CmdArgs) == 2:
					r, err = ResolveWithin(in(d.CmdArgs[0].Key), d.CmdArgs[1].Key)
				case d.Cmd == "check" && len(d.CmdArgs) == 2:
					target := expand(d.CmdArgs[1].Key)
					switch d.CmdArgs[0].Key {
					case "read":
						r, err = p.CheckRead(target)
					case "write":
						r, err = p.CheckWrite(target)
					case "replace":
						r, err = p.CheckReplace(target)
					default:
						d.Fatalf(t, "unknown check %s", d.CmdArgs[0].Key)
					}
				default:
					d.Fatalf(t, "bad command %s", d.Pos)
				}
				if after := tree(t, tmp); after != before {
					t.Fatalf("%s: the layout changed:\nbefore:\n%s\nafter:\n%s", d.Pos, before, after)
				}
				if err != nil {
					if se, ok := sparkerr.As(err); ok {
						return "error " + show(se.Error()) + "\n"
					}
					return "error " + show(err.Error()) + "\n"
				}
				return show(r)
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree lists everything under dir (links with their targets).
func tree(t *testing.T, dir string) string {
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(path)
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			b.WriteString(" -> " + target)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestNilPolicy: a nil Policy refuses what is never allowed, with the process's directories.
func TestNilPolicy(t *testing.T) {
	var p *Policy
	wd, err := os.Getwd()
	must(t, err)
	for _, path := range []string{"/", "/etc", wd, filepath.Dir(wd)} {
		if _, err := p.CheckReplace(path); err == nil {
			t.Errorf("replace %s allowed", path)
		} else if se, ok := sparkerr.As(err); !ok || se.Class != ClassProtectedPath {
			t.Errorf("replace %s: %v", path, err)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if _, err := p.CheckReplace(home); err == nil {
			t.Errorf("replace of home %s allowed", home)
		}
	}
	dir := t.TempDir()
	if r, err := p.CheckReplace(filepath.Join(dir, "out")); err != nil || r != filepath.Join(mustEval(t, dir), "out") {
		t.Errorf("replace under a temp dir: %q %v", r, err)
	}
	if p.StateDir() != "" || p.Roots() != nil {
		t.Errorf("nil policy has a state dir or roots")
	}
	if _, err := p.Resolve(""); err == nil || !strings.Contains(err.Error(), "Can not create a Path from an empty string") {
		t.Errorf("empty path: %v", err)
	}
}

func mustEval(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	must(t, err)
	return r
}
