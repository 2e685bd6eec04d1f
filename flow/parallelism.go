package flow

import "runtime"

// DefaultParallelism is Spark's spark.default.parallelism in local mode: the number of cores
// this process may use. It is the one place Weir decides parallelism: the default of
// spark.sql.shuffle.partitions (exchanges and streaming state) and the partitions of batch
// file and Kafka reads.
func DefaultParallelism() int { return runtime.NumCPU() }
