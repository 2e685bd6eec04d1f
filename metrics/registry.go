package metrics

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// DefaultRetention is how long a terminated query's series stay.
const DefaultRetention = 10 * time.Minute

// Registry is one server's metrics. Its methods are safe for concurrent use.
type Registry struct {
	reg *prometheus.Registry
	// now is the clock retention is measured with.
	now       func() time.Time
	retention time.Duration

	server  *serverMetrics
	queries *queryMetrics

	evictMu sync.Mutex // one eviction at a time
}

// Option configures a Registry.
type Option func(*Registry)

// WithRetention keeps a terminated query's series for d (DefaultRetention otherwise).
func WithRetention(d time.Duration) Option { return func(r *Registry) { r.retention = d } }

// WithClock measures retention with now (time.Now otherwise).
func WithClock(now func() time.Time) Option { return func(r *Registry) { r.now = now } }

// New returns a registry with the server, query, Go runtime and process metrics; version is
// the build reported by weir_build_info, sparkVersion the Spark version clients are told.
func New(version, sparkVersion string, opts ...Option) *Registry {
	r := &Registry{reg: prometheus.NewRegistry(), now: time.Now, retention: DefaultRetention}
	for _, o := range opts {
		o(r)
	}
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.server = newServerMetrics(r.reg, version, sparkVersion)
	r.queries = newQueryMetrics(r.reg, r.now, r.server.queryFailures)
	return r
}

// Gatherer is the registry as client_golang gathers it (tests, other exporters).
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// evict drops the series of queries terminated more than the retention ago.
func (r *Registry) evict() {
	r.evictMu.Lock()
	defer r.evictMu.Unlock()
	r.queries.evict(r.now().Add(-r.retention))
}

// Handler serves the metrics in Prometheus' exposition formats. With tokens, a request must
// carry "Authorization: Bearer <t>" for one of them.
func (r *Registry) Handler(tokens []string) http.Handler {
	prom := promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{Registry: r.reg})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if len(tokens) > 0 && !authorized(req, tokens) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="weir"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		r.evict()
		prom.ServeHTTP(w, req)
	})
}

// authorized reports whether req carries one of tokens, comparing with every token so the
// time taken says nothing about which one matched.
func authorized(req *http.Request, tokens []string) bool {
	got, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	match := 0
	for _, t := range tokens {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(t))
	}
	return match == 1
}
