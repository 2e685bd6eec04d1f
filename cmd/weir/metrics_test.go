package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weirhq/weir/connect"
)

func TestRunRefusesNetworkMetricsWithoutToken(t *testing.T) {
	_, err := runFor(t, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "refusing to serve metrics on 0.0.0.0:0 without --token") {
		t.Fatalf("want a refusal, got %v", err)
	}
	logs, err := runFor(t, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "0.0.0.0:0", "--insecure"})
	if err != nil || !strings.Contains(logs, "serving metrics on a non-loopback address without a token") {
		t.Fatalf("--insecure: %v\n%s", err, logs)
	}
}

// TestMetricsEndpoint: --metrics-listen serves /metrics, and with --token only to a scrape
// that sends one.
func TestMetricsEndpoint(t *testing.T) {
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--token", "sesame",
			"--state-dir", t.TempDir()}, env(nil), io.Discard, logs)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	addrRe := regexp.MustCompile(`msg="metrics listener" address=(\S+)`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no metrics listener log: %s", logs.String())
	}
	get := func(token string) (int, string) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := get("wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	code, body := get("sesame")
	if code != http.StatusOK || !strings.Contains(body, `weir_build_info{spark_version="`+connect.DefaultSparkVersion+`",version="devel"} 1`) ||
		!strings.Contains(body, "weir_sessions 0") || !strings.Contains(body, "go_goroutines") {
		t.Fatalf("scrape: %d\n%s", code, body)
	}
}
