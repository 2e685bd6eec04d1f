package sinks

// TableShape exposes the shape of a complete-mode changelog's result table to the external
// tests: its segments, dead rows and live rows.
func TableShape(c *Changelog) (segs, dead, live int) {
	return len(c.table.segs), c.table.dead, c.table.live
}

// CompactMaxSegments exposes compactMaxSegments to the external tests.
const CompactMaxSegments = compactMaxSegments
