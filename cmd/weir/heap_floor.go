package main

import (
	"fmt"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/engine"
)

// Go's collector starts a cycle when the heap reaches twice its live size (GOGC=100), and a
// query server's live heap between queries is a few MiB: a scan that allocates its batches
// (64 KiB per column per 8192 rows, freed a moment later) then collects every few MiB, and
// on a 2e7-row aggregation over range() the collector took two thirds of the CPU (profile in
// bench/RESULTS.md). The heap floor is a ballast: one pointer-free allocation the collector
// counts as live but never scans, whose pages are never touched (the kernel maps them
// lazily, so it adds nothing to the resident set). It raises the heap the collector lets
// grow to at least twice the floor; above it GOGC rules as before, and GOMEMLIMIT is still
// the hard limit.

// defaultHeapFloor is the floor when --gc-heap-floor is not given: 256 MiB, or a sixteenth of
// the memory the process may use on a smaller machine.
func defaultHeapFloor() int64 {
	return min(256<<20, engine.ProcessMemoryLimit()/16)
}

// parseHeapFloor reads a --gc-heap-floor: a Spark size ("256m"), 0 for none, at most 16 GiB.
func parseHeapFloor(v string) (int64, error) {
	n, err := conf.ParseBytes(v)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > 16<<30 {
		return 0, fmt.Errorf("must be between 0 and 16g, got %s", v)
	}
	return n, nil
}

// heapBallast allocates the floor's ballast; the caller keeps it reachable while serving.
func heapBallast(floor int64) []byte {
	if floor <= 0 {
		return nil
	}
	return make([]byte, floor)
}
