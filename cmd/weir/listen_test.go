package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTokensRepeatableAndCommaSeparated(t *testing.T) {
	c, err := parseConfig(nil, env(map[string]string{"WEIR_TOKEN": "a, b,,c"}), &bytes.Buffer{})
	if err != nil || !slices.Equal(c.tokens, []string{"a", "b", "c"}) {
		t.Fatalf("WEIR_TOKEN: %q %v", c.tokens, err)
	}
	c, err = parseConfig([]string{"--token", "x,y", "--token", "z"}, env(map[string]string{"WEIR_TOKEN": "a"}), &bytes.Buffer{})
	if err != nil || !slices.Equal(c.tokens, []string{"x", "y", "z"}) {
		t.Fatalf("flags replace WEIR_TOKEN: %q %v", c.tokens, err)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:15002": true, "127.3.4.5:1": true, "[::1]:15002": true, "localhost:15002": true,
		"0.0.0.0:15002": false, ":15002": false, "[::]:1": false, "10.0.0.7:1": false,
		"example.com:1": false, "no-port": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// runFor runs the server with args until it logs "listening" (then stops it) or returns.
func runFor(t *testing.T, args []string) (string, error) {
	t.Helper()
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, append(args, "--state-dir", t.TempDir()), env(nil), io.Discard, logs) }()
	for {
		select {
		case err := <-done:
			return logs.String(), err
		default:
		}
		if strings.Contains(logs.String(), "msg=listening") {
			cancel()
			return logs.String(), <-done
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRunRefusesNetworkListenWithoutToken(t *testing.T) {
	_, err := runFor(t, []string{"--listen", "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "without --token") ||
		!strings.Contains(err.Error(), "read, write and delete files as the server's user") ||
		!strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("want a refusal saying why, got %v", err)
	}
	logs, err := runFor(t, []string{"--listen", "0.0.0.0:0", "--insecure"})
	if err != nil || !strings.Contains(logs, "without a token (--insecure)") {
		t.Fatalf("--insecure: %v\n%s", err, logs)
	}
	logs, err = runFor(t, []string{"--listen", "0.0.0.0:0", "--token", "t"})
	if err != nil {
		t.Fatalf("with a token: %v\n%s", err, logs)
	}
}

func TestRunWarnsTokenWithoutTLS(t *testing.T) {
	logs, err := runFor(t, []string{"--listen", "127.0.0.1:0", "--token", "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"level=WARN", "PySpark always uses TLS when a token is set", "--tls-cert and --tls-key", "TLS-terminating proxy"} {
		if !strings.Contains(logs, want) {
			t.Errorf("warning lacks %q:\n%s", want, logs)
		}
	}
	logs, err = runFor(t, []string{"--listen", "127.0.0.1:0", "--data-root", t.TempDir()})
	if err != nil || strings.Contains(logs, "level=WARN") {
		t.Fatalf("loopback without a token warns or fails: %v\n%s", err, logs)
	}
}

func TestMaxInboundMessageSizeFlag(t *testing.T) {
	c, err := parseConfig([]string{"--max-inbound-message-size", "1m"}, env(nil), &bytes.Buffer{})
	if err != nil || c.maxInbound != 1<<20 {
		t.Fatalf("1m: %d %v", c.maxInbound, err)
	}
	for _, bad := range []string{"0", "3g", "lots", "-1k"} {
		if _, err := parseConfig([]string{"--max-inbound-message-size", bad}, env(nil), &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
