package connect

import (
	"fmt"

	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/engine"
	"github.com/weirhq/weir/sparkerr"
)

// resultBudget counts the Arrow IPC bytes of one result against spark.driver.maxResultSize.
type resultBudget struct {
	max     int64 // ≤ 0: unlimited
	total   int64
	batches int
}

func newResultBudget(c *engine.Conf) *resultBudget {
	return &resultBudget{max: c.Bytes(conf.MaxResultSizeKey, 1<<30)}
}

// add counts one more serialized batch of n bytes and fails, with Spark's error, once the
// total exceeds the limit; the caller then stops the job instead of producing more.
func (b *resultBudget) add(n int) error {
	b.total += int64(n)
	b.batches++
	if b.max > 0 && b.total > b.max {
		return sparkerr.Newf(sparkerr.SparkException, "", "",
			"Job aborted due to stage failure: Total size of serialized results of %d tasks (%s) is bigger than %s (%s)",
			b.batches, bytesToString(b.total), conf.MaxResultSizeKey, bytesToString(b.max))
	}
	return nil
}

// bytesToString renders a size as Spark's Utils.bytesToString: one decimal and the largest
// binary unit the size is at least twice of ("1024.0 MiB", "2.0 GiB", "512.0 B").
func bytesToString(n int64) string {
	units := []struct {
		name string
		size float64
	}{{"EiB", 1 << 60}, {"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if float64(n) >= 2*u.size {
			return fmt.Sprintf("%.1f %s", float64(n)/u.size, u.name)
		}
	}
	return fmt.Sprintf("%.1f B", float64(n))
}
