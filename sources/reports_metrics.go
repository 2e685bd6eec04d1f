package sources

// ReportsMetrics is an optional StreamSource extension, Spark's ReportsSourceMetrics: Metrics
// returns the source's metrics for an epoch that read up to end (its latest consumed offset),
// shown as the "metrics" map of the source's progress (string values, Spark's
// Map[String, String]). The query calls it once per epoch from its driver goroutine, after the
// epoch committed; it must not block on I/O (it reports what the source learned while
// fetching its latest offsets).
type ReportsMetrics interface {
	Metrics(end Offset) map[string]string
}
