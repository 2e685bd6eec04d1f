package kafka

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/weirhq/weir/fileaccess"
	"github.com/weirhq/weir/sparkerr"
)

// TestCheckKafkaStoreFiles: the PEM stores a Kafka source or sink names are files the client
// makes the server read: outside the data roots they are refused, inside they are resolved.
func TestCheckKafkaStoreFiles(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(tmp, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := fileaccess.New(fileaccess.Config{Roots: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]string{"kafka.bootstrap.servers": "h:1", "Kafka.SSL.Truststore.Location": filepath.Join(data, "x", "..", "ca.pem")}
	out, err := CheckKafkaStoreFiles(p, in)
	if err != nil || out["Kafka.SSL.Truststore.Location"] != filepath.Join(data, "ca.pem") || out["kafka.bootstrap.servers"] != "h:1" {
		t.Fatalf("inside the root: %v %v", out, err)
	}
	_, err = CheckKafkaStoreFiles(p, map[string]string{"kafka.ssl.keystore.location": "/etc/ssl/private/key.pem"})
	if se, ok := sparkerr.As(err); !ok || se.Class != fileaccess.ClassOutsideDataRoots {
		t.Fatalf("outside the root: %v", err)
	}
}
