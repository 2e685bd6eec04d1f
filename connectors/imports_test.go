package connectors

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/weirhq/weir/"

// notConnectors are the packages under connectors/ that are no connector: this registry, the
// list of all connectors and the sink test harness.
var notConnectors = map[string]bool{"connectors": true, "connectors/all": true, "connectors/sinktest": true}

// TestConnectorImports enforces the import rules of the connector tree, over every Go file
// (tests included): a connector imports no other connector, and sources and sinks (the
// contracts and toolkit, their subpackages too) and this registry import no connector.
func TestConnectorImports(t *testing.T) {
	root := filepath.Join("..")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "tests") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		from := connectorOf(pkg)
		contract := pkg == "sources" || pkg == "sinks" || strings.HasPrefix(pkg, "sources/") ||
			strings.HasPrefix(pkg, "sinks/") || pkg == "connectors"
		if from == "" && !contract {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			to := connectorOf(strings.TrimPrefix(p, module))
			if !strings.HasPrefix(p, module) || to == "" || to == from {
				continue
			}
			if from != "" {
				t.Errorf("%s: connector %s imports connector %s", path, from, to)
			} else {
				t.Errorf("%s: %s imports connector %s", path, pkg, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked only %d files: is the walk rooted at the module?", checked)
	}
}

// connectorOf returns the connector a package (module-relative path) belongs to,
// "connectors/<system>", or "" for a package outside every connector.
func connectorOf(pkg string) string {
	parts := strings.Split(pkg, "/")
	if len(parts) < 2 || parts[0] != "connectors" {
		return ""
	}
	c := parts[0] + "/" + parts[1]
	if notConnectors[c] {
		return ""
	}
	return c
}

func TestConnectorOf(t *testing.T) {
	for pkg, want := range map[string]string{
		"connectors/kafka": "connectors/kafka", "connectors/files/x": "connectors/files", "connectors": "",
		"connectors/all": "", "connectors/sinktest": "", "sources": "", "engine": "",
	} {
		if got := connectorOf(pkg); got != want {
			t.Errorf("connectorOf(%q) = %q, want %q", pkg, got, want)
		}
	}
}
