package bench

// The benchmarks run queries over the real connectors.
import _ "github.com/weirhq/weir/connectors/all"
