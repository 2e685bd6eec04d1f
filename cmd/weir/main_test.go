package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	pb "github.com/weirhq/weir/connect/sparkconnectpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseConfig(t *testing.T) {
	c, err := parseConfig(nil, env(nil), &bytes.Buffer{})
	if err != nil || c.listen != "127.0.0.1:15002" || c.stateDir != "./weir-state" || len(c.tokens) != 0 || c.sparkVersion == "" {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	e := env(map[string]string{"WEIR_LISTEN": "0.0.0.0:1", "WEIR_STATE_DIR": "/s", "WEIR_TOKEN": "tok"})
	c, err = parseConfig([]string{"server"}, e, &bytes.Buffer{})
	if err != nil || c.listen != "0.0.0.0:1" || c.stateDir != "/s" || !slices.Equal(c.tokens, []string{"tok"}) {
		t.Fatalf("env: %+v %v", c, err)
	}
	c, err = parseConfig([]string{"server", "--listen", "127.0.0.1:2", "--token", "flag", "--spark-version", "4.0.0"}, e, &bytes.Buffer{})
	if err != nil || c.listen != "127.0.0.1:2" || !slices.Equal(c.tokens, []string{"flag"}) || c.stateDir != "/s" || c.sparkVersion != "4.0.0" {
		t.Fatalf("flags over env: %+v %v", c, err)
	}
	if c.python != "python3" {
		t.Errorf("default python = %q", c.python)
	}
	c, err = parseConfig(nil, env(map[string]string{"PYSPARK_PYTHON": "/env/python"}), &bytes.Buffer{})
	if err != nil || c.python != "/env/python" {
		t.Fatalf("PYSPARK_PYTHON: %q %v", c.python, err)
	}
	c, err = parseConfig([]string{"--python", "/flag/python"}, env(map[string]string{"PYSPARK_PYTHON": "/env/python"}), &bytes.Buffer{})
	if err != nil || c.python != "/flag/python" {
		t.Fatalf("--python over PYSPARK_PYTHON: %q %v", c.python, err)
	}
	if _, err := parseConfig([]string{"serve"}, e, &bytes.Buffer{}); err == nil {
		t.Fatal("unknown argument accepted")
	}
	c, err = parseConfig([]string{"--conf", "spark.sql.catalog.lake.uri=http://h:1/?a=b", "--conf", " k = v"}, e, &bytes.Buffer{})
	if err != nil || !slices.Equal(c.conf, [][2]string{{"spark.sql.catalog.lake.uri", "http://h:1/?a=b"}, {"k", " v"}}) {
		t.Fatalf("--conf: %v %v", c.conf, err)
	}
	if _, err := parseConfig([]string{"--conf", "novalue"}, e, &bytes.Buffer{}); err == nil {
		t.Fatal("--conf without = accepted")
	}
}

func TestParseDataRoots(t *testing.T) {
	e := env(map[string]string{"WEIR_DATA_ROOTS": "/a::/b"})
	c, err := parseConfig(nil, e, &bytes.Buffer{})
	if err != nil || strings.Join(c.dataRoots, ",") != "/a,/b" {
		t.Fatalf("env roots: %q %v", c.dataRoots, err)
	}
	c, err = parseConfig([]string{"--data-root", "/x", "--data-root=/y"}, e, &bytes.Buffer{})
	if err != nil || strings.Join(c.dataRoots, ",") != "/x,/y" {
		t.Fatalf("flag roots over env: %q %v", c.dataRoots, err)
	}
	if c, err = parseConfig(nil, env(nil), &bytes.Buffer{}); err != nil || len(c.dataRoots) != 0 {
		t.Fatalf("no roots: %q %v", c.dataRoots, err)
	}
	if _, err := parseConfig([]string{"--data-root", ""}, env(nil), &bytes.Buffer{}); err == nil {
		t.Fatal("empty --data-root accepted")
	}
}

// syncBuffer is a bytes.Buffer safe for the logger and the test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunServesAndStops(t *testing.T) {
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--state-dir", t.TempDir()}, env(nil), io.Discard, logs)
	}()
	addrRe := regexp.MustCompile(`msg=listening address=(\S+)`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no listening log: %s", logs.String())
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := pb.NewSparkConnectServiceClient(conn).AnalyzePlan(context.Background(), &pb.AnalyzePlanRequest{
		SessionId: "00112233-4455-4677-8899-aabbccddeeff", UserContext: &pb.UserContext{UserId: "u"},
		Analyze: &pb.AnalyzePlanRequest_SparkVersion_{SparkVersion: &pb.AnalyzePlanRequest_SparkVersion{}},
	})
	if err != nil || !strings.HasPrefix(resp.GetSparkVersion().GetVersion(), "4.") {
		t.Fatalf("spark version: %v %v", resp, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop")
	}
	if !strings.Contains(logs.String(), "msg=stopped") {
		t.Fatalf("logs: %s", logs.String())
	}
	// Without --data-root, a server running as root says so at start.
	if warned := strings.Contains(logs.String(), "running as root without --data-root"); warned != (os.Geteuid() == 0) {
		t.Fatalf("root warning %v as euid %d: %s", warned, os.Geteuid(), logs.String())
	}
}

// TestRunRefusesMissingDataRoot: a data root that is not a directory stops the start.
func TestRunRefusesMissingDataRoot(t *testing.T) {
	dir := t.TempDir()
	err := run(context.Background(), []string{"--listen", "127.0.0.1:0", "--state-dir", filepath.Join(dir, "state"),
		"--data-root", filepath.Join(dir, "missing")}, env(nil), io.Discard, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "data root") {
		t.Fatalf("want a data root error, got %v", err)
	}
}

func TestParseHeapFloor(t *testing.T) {
	c, err := parseConfig(nil, env(nil), &bytes.Buffer{})
	if err != nil || c.heapFloor != defaultHeapFloor() || c.heapFloor <= 0 || c.heapFloor > 256<<20 {
		t.Fatalf("default heap floor: %d %v", c.heapFloor, err)
	}
	for v, want := range map[string]int64{"0": 0, "64m": 64 << 20, "1g": 1 << 30} {
		c, err := parseConfig([]string{"--gc-heap-floor", v}, env(nil), &bytes.Buffer{})
		if err != nil || c.heapFloor != want {
			t.Errorf("--gc-heap-floor %s: %d %v, want %d", v, c.heapFloor, err, want)
		}
	}
	for _, v := range []string{"-1", "17g", "lots"} {
		if _, err := parseConfig([]string{"--gc-heap-floor", v}, env(nil), &bytes.Buffer{}); err == nil {
			t.Errorf("--gc-heap-floor %s accepted", v)
		}
	}
	if b := heapBallast(0); b != nil {
		t.Errorf("no floor allocated %d bytes", len(b))
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version", "--spark-version", "4.0.1"}, env(nil), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^weir \S+ \(go\S+ \w+/\w+; Spark Connect, reports Spark 4\.0\.1\)\n$`).MatchString(out.String()) {
		t.Fatalf("--version printed %q", out.String())
	}
}

// TestJSONLogs: --log-format json (or WEIR_LOG_FORMAT) writes one JSON object per line.
func TestJSONLogs(t *testing.T) {
	c, err := parseConfig([]string{"--log-format", "json"}, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	newLogger(c, &buf).Info("listening", "address", "127.0.0.1:1")
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "listening" || line["address"] != "127.0.0.1:1" {
		t.Fatalf("json log %q: %v", buf.String(), err)
	}
	if c, err := parseConfig(nil, env(map[string]string{"WEIR_LOG_FORMAT": "json"}), io.Discard); err != nil || c.logFormat != "json" {
		t.Fatalf("WEIR_LOG_FORMAT: %+v %v", c, err)
	}
	if c, err := parseConfig(nil, env(nil), io.Discard); err != nil || c.logFormat != "text" {
		t.Fatalf("default format: %q %v", c.logFormat, err)
	}
	if _, err := parseConfig([]string{"--log-format", "xml"}, env(nil), io.Discard); err == nil {
		t.Fatal("--log-format xml accepted")
	}
}
