package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRunRefusesNetworkUIWithoutToken(t *testing.T) {
	_, err := runFor(t, []string{"--listen", "127.0.0.1:0", "--ui-listen", "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "refusing to serve the UI on 0.0.0.0:0 without --token") {
		t.Fatalf("want a refusal, got %v", err)
	}
	logs, err := runFor(t, []string{"--listen", "127.0.0.1:0", "--ui-listen", "0.0.0.0:0", "--insecure"})
	if err != nil || !strings.Contains(logs, "serving the UI on a non-loopback address without a token") {
		t.Fatalf("--insecure: %v\n%s", err, logs)
	}
}

// TestUIEndpoint: --ui-listen serves the page to anyone and its API only with a token.
func TestUIEndpoint(t *testing.T) {
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", "127.0.0.1:0", "--ui-listen", "127.0.0.1:0", "--token", "sesame",
			"--state-dir", t.TempDir()}, env(nil), io.Discard, logs)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	addrRe := regexp.MustCompile(`msg="ui listener" address=(\S+)`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("no ui listener log: %s", logs.String())
	}
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
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
	if code, body := get("/", ""); code != http.StatusOK || !strings.Contains(body, "<title>Weir</title>") {
		t.Errorf("page: %d %s", code, body)
	}
	if code, _ := get("/api/overview", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code, body := get("/api/overview", "sesame"); code != http.StatusOK || body != `{"sessions":[],"queries":[]}`+"\n" {
		t.Errorf("overview: %d %s", code, body)
	}
}
