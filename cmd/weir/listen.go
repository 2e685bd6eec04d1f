package main

import (
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/weirhq/weir/conf"
)

// tokenList is the --token flag: repeatable, each value a comma-separated list of tokens.
type tokenList []string

func (l *tokenList) String() string { return strings.Repeat("*", len(*l)) }

// Set adds the comma-separated tokens in v (empty entries are ignored).
func (l *tokenList) Set(v string) error {
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" {
			*l = append(*l, t)
		}
	}
	return nil
}

// isLoopback reports whether a HOST:PORT listen address only accepts connections from this
// machine: a loopback IP or "localhost". An empty host (":15002") listens on every interface.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// checkExposure refuses a configuration that would let anyone on the network use the server,
// and warns about one PySpark cannot connect to.
func checkExposure(c config, logger *slog.Logger) error {
	if len(c.tokens) == 0 && !isLoopback(c.listen) && !c.insecure {
		return fmt.Errorf("refusing to listen on %s without --token: any client that can reach that address "+
			"could read, write and delete files as the server's user; set --token (or WEIR_TOKEN), "+
			"listen on a loopback address, or pass --insecure to accept the risk", c.listen)
	}
	if len(c.tokens) == 0 && !isLoopback(c.listen) {
		logger.Warn("listening on a non-loopback address without a token (--insecure): "+
			"any client that can reach it can read, write and delete files as this user", "address", c.listen)
	}
	if c.metricsListen != "" && len(c.tokens) == 0 && !isLoopback(c.metricsListen) {
		if !c.insecure {
			return fmt.Errorf("refusing to serve metrics on %s without --token: anyone who can reach that address "+
				"could read the server's queries, sessions and errors; set --token (scrapes then send it as a bearer "+
				"token), use a loopback address, or pass --insecure to accept the risk", c.metricsListen)
		}
		logger.Warn("serving metrics on a non-loopback address without a token (--insecure)", "address", c.metricsListen)
	}
	if c.uiListen != "" && len(c.tokens) == 0 && !isLoopback(c.uiListen) {
		if !c.insecure {
			return fmt.Errorf("refusing to serve the UI on %s without --token: anyone who can reach that address "+
				"could read the server's queries and sessions and cancel their operations; set --token (the page then "+
				"asks for one), use a loopback address, or pass --insecure to accept the risk", c.uiListen)
		}
		logger.Warn("serving the UI on a non-loopback address without a token (--insecure)", "address", c.uiListen)
	}
	if len(c.tokens) > 0 && c.tlsCert == "" {
		logger.Warn("--token is set but TLS is not: PySpark always uses TLS when a token is set " +
			"(sc://host:port/;token=...), so it will not connect; give --tls-cert and --tls-key, " +
			"or put a TLS-terminating proxy in front of Weir")
	}
	return nil
}

// parseMessageSize reads a --max-inbound-message-size: a Spark size ("128m", "134217728")
// between 1 byte and 2 GiB - 1 (gRPC's frame length).
func parseMessageSize(v string) (int, error) {
	n, err := conf.ParseBytes(v)
	if err != nil {
		return 0, err
	}
	if n < 1 || n > 1<<31-1 {
		return 0, fmt.Errorf("must be between 1 byte and 2g - 1, got %s", v)
	}
	return int(n), nil
}
