package engine

import (
	"bufio"
	"github.com/weirhq/weir/conf"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/weirhq/weir/flow"
	"github.com/weirhq/weir/sources"
	"github.com/weirhq/weir/sparkerr"
)

// The memory a query may hold at once (its Arrow buffers and the Go-side buffers operators
// and sources count) is its budget, spark.weir.query.memoryBudgetBytes: a byte size as Spark
// writes them ("512m", "2g", "1048576"). Past it the query fails with Spark's
// UNABLE_TO_ACQUIRE_MEMORY and the server goes on (flow.MemoryBudget).
//
// The default is a quarter of the memory the process may use: the smallest of the machine's
// physical memory (/proc/meminfo), the cgroup limit (/sys/fs/cgroup/memory.max, or cgroup v1's
// memory.limit_in_bytes) and the Go runtime's memory limit (GOMEMLIMIT), and at least 256 MiB.
// A quarter leaves room for a few queries at once, the server's own memory and Go's garbage
// collector headroom (a heap may reach about twice its live size between collections). A
// session may set any size up to that process limit; larger values are held to it, since a
// budget the machine cannot give would only move the failure to the kernel's OOM killer.

// minDefaultQueryMemory is the floor of the default budget on small machines.
const minDefaultQueryMemory = 256 << 20

var (
	processMemoryOnce sync.Once
	processMemory     int64
)

// ProcessMemoryLimit is the memory the process may use: the smallest of physical memory, the
// cgroup limit and GOMEMLIMIT (math.MaxInt64 when none is known).
func ProcessMemoryLimit() int64 {
	processMemoryOnce.Do(func() {
		processMemory = math.MaxInt64
		if n := meminfoTotal("/proc/meminfo"); n > 0 {
			processMemory = n
		}
		for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
			if n := cgroupLimit(p); n > 0 && n < processMemory {
				processMemory = n
			}
		}
		if n := debug.SetMemoryLimit(-1); n > 0 && n < processMemory {
			processMemory = n
		}
	})
	return processMemory
}

// DefaultQueryMemoryBudget is the budget of a query whose session did not set one.
func DefaultQueryMemoryBudget() int64 {
	limit := ProcessMemoryLimit()
	if limit == math.MaxInt64 {
		return 4 << 30 // no limit known: a fixed 4 GiB
	}
	return max(limit/4, minDefaultQueryMemory)
}

// QueryMemoryBudget returns the memory budget of the session's next query in bytes: the conf's
// size (held to ProcessMemoryLimit) or DefaultQueryMemoryBudget. A quarter of it bounds one
// value of a function sized by an argument (expr.Context.MaxValueBytes, expr.ValueBytesOfBudget).
func (s *Session) QueryMemoryBudget() (int64, error) {
	return queryMemoryBudget(s.conf.Get)
}

func queryMemoryBudget(lookup func(string) (string, bool)) (int64, error) {
	v, ok := lookup(conf.QueryMemoryBudgetKey)
	if !ok || strings.TrimSpace(v) == "" {
		return DefaultQueryMemoryBudget(), nil
	}
	n, err := sources.ParseByteSize(conf.QueryMemoryBudgetKey, v)
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, sparkerr.IllegalArgument("%s must be positive, but was %s", conf.QueryMemoryBudgetKey, v)
	}
	return min(n, ProcessMemoryLimit()), nil
}

// newMemoryBudget is a fresh budget for one query of the session.
func (s *Session) newMemoryBudget() (*flow.MemoryBudget, error) {
	n, err := s.QueryMemoryBudget()
	if err != nil {
		return nil, err
	}
	return flow.NewMemoryBudget(s.mem, n), nil
}

// meminfoTotal reads MemTotal from a /proc/meminfo file (0 when unknown).
func meminfoTotal(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			n, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return n << 10 // kB
		}
	}
	return 0
}

// cgroupLimit reads a cgroup memory limit file: a number of bytes, or "max" (0: no limit).
func cgroupLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= math.MaxInt64/2 { // cgroup v1 reports "no limit" as a huge number
		return 0
	}
	return n
}
