// Package metricview reads a metric view's definition: the YAML of Spark 4.2's CREATE VIEW …
// WITH METRICS LANGUAGE YAML AS $$…$$ (version 0.1: source, filter, dimensions, measures),
// parsed into the plan expressions the analyzer expands a query over the view with. A query
// over a metric view groups by its dimensions and names its measures with measure(m); the
// analyzer (sql/analyzer/metric_view.go) rewrites it into an aggregate over the source.
package metricview
