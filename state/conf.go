package state

import (
	"strconv"
	"strings"

	"github.com/weirhq/weir/sparkerr"
)

// Confs read by Weir's state stores.
const (
	// MemoryBudgetConf is the in-memory state budget of one operator instance, in bytes.
	MemoryBudgetConf = "spark.sql.streaming.stateStore.weir.memoryBudgetBytes"
	// SpillDirConf is the parent directory of the scratch spill stores.
	SpillDirConf = "spark.sql.streaming.stateStore.weir.spillDir"
)

// Budget is where and when state spills: MemoryBytes ≤ 0 is unlimited (never spill); Dir is
// the parent of the scratch stores ("" = the system temporary directory).
type Budget struct {
	MemoryBytes int64
	Dir         string
}

// Limited reports whether the budget makes state spill.
func (b Budget) Limited() bool { return b.MemoryBytes > 0 }

// BudgetFromConf reads the budget from a session conf lookup (nil: unlimited).
func BudgetFromConf(conf func(key string) (string, bool)) (Budget, error) {
	var b Budget
	if conf == nil {
		return b, nil
	}
	if v, ok := conf(MemoryBudgetConf); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			// Spark's message for a conf of the wrong type (ConfigBuilder's converter).
			return b, sparkerr.IllegalArgument("%s should be long, but was %s", MemoryBudgetConf, v).Wrap(err)
		}
		b.MemoryBytes = n
	}
	if v, ok := conf(SpillDirConf); ok {
		b.Dir = strings.TrimSpace(v)
	}
	return b, nil
}
