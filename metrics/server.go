package metrics

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// ServerStats is what a Spark Connect server reports at each scrape.
type ServerStats struct {
	// Sessions is the number of live sessions; Operations the executions they hold (running,
	// or finished and awaiting a reattach or release).
	Sessions, Operations int
}

// serverMetrics are the per-server series.
type serverMetrics struct {
	rpcs          *prometheus.CounterVec
	errors        *prometheus.CounterVec
	received      prometheus.Counter
	sent          prometheus.Counter
	queryFailures *prometheus.CounterVec

	// rpcByMethod caches rpcs' children so counting an RPC takes no lock once its method was seen.
	rpcByMethod sync.Map // string → prometheus.Counter

	stats                 atomic.Pointer[func() ServerStats]
	sessionsDesc, opsDesc *prometheus.Desc
}

func newServerMetrics(reg *prometheus.Registry, version, sparkVersion string) *serverMetrics {
	s := &serverMetrics{
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_rpcs_total",
			Help: "Spark Connect RPCs received, by method."}, []string{"method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_errors_total",
			Help: "Spark Connect RPCs that failed, by method and Spark error class (the gRPC code when the error has none)."},
			[]string{"method", "class"}),
		received: prometheus.NewCounter(prometheus.CounterOpts{Name: "weir_rpc_received_bytes_total",
			Help: "Bytes of Spark Connect request messages received (gRPC wire length)."}),
		sent: prometheus.NewCounter(prometheus.CounterOpts{Name: "weir_rpc_sent_bytes_total",
			Help: "Bytes of Spark Connect response messages sent (gRPC wire length)."}),
		queryFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weir_query_failures_total",
			Help: "Streaming queries that terminated with an exception, by its error class."}, []string{"class"}),
		sessionsDesc: prometheus.NewDesc("weir_sessions", "Live Spark Connect sessions.", nil, nil),
		opsDesc: prometheus.NewDesc("weir_operations",
			"Executions the sessions hold: running, or finished and awaiting a reattach or release.", nil, nil),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{Name: "weir_build_info",
		Help:        "Always 1: the server's build and the Spark version it reports to clients.",
		ConstLabels: prometheus.Labels{"version": version, "spark_version": sparkVersion}})
	build.Set(1)
	reg.MustRegister(s.rpcs, s.errors, s.received, s.sent, s.queryFailures, build, s)
	return s
}

// Describe implements prometheus.Collector (the sessions and operations gauges).
func (s *serverMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.sessionsDesc
	ch <- s.opsDesc
}

// Collect implements prometheus.Collector: it asks the server for its stats.
func (s *serverMetrics) Collect(ch chan<- prometheus.Metric) {
	f := s.stats.Load()
	if f == nil {
		return
	}
	st := (*f)()
	ch <- prometheus.MustNewConstMetric(s.sessionsDesc, prometheus.GaugeValue, float64(st.Sessions))
	ch <- prometheus.MustNewConstMetric(s.opsDesc, prometheus.GaugeValue, float64(st.Operations))
}

// SetServerStats makes scrapes report f's sessions and operations.
func (r *Registry) SetServerStats(f func() ServerStats) { r.server.stats.Store(&f) }

// RPC counts one RPC of method ("ExecutePlan").
func (r *Registry) RPC(method string) {
	c, ok := r.server.rpcByMethod.Load(method)
	if !ok {
		c, _ = r.server.rpcByMethod.LoadOrStore(method, r.server.rpcs.WithLabelValues(method))
	}
	c.(prometheus.Counter).Inc()
}

// Error counts one failed RPC of method with Spark error class (or gRPC code) class.
func (r *Registry) Error(method, class string) { r.server.errors.WithLabelValues(method, class).Inc() }

// Received counts n bytes of request messages; Sent n bytes of responses.
func (r *Registry) Received(n int) { r.server.received.Add(float64(n)) }

// Sent counts n bytes of response messages.
func (r *Registry) Sent(n int) { r.server.sent.Add(float64(n)) }
