package expr

import sqltypes "github.com/weirhq/weir/sql/types"

// Functions of the row's place in the query's partitions (Context.ForPartition):
// spark_partition_id() is the partition index; monotonically_increasing_id() is the partition
// index in the upper 31 bits and the row's number within the partition (counted by each call
// expression) in the lower 33, as Spark's MonotonicallyIncreasingID.

func init() {
	registerScalar(0, 0, bindSparkPartitionID, "spark_partition_id")
	registerScalar(0, 0, bindMonotonicallyIncreasingID, "monotonically_increasing_id")
}

func bindSparkPartitionID(name string, args []Expr, opts Options) (Expr, error) {
	return &rowFunc{name: name, t: sqltypes.IntegerType, str: "SPARK_PARTITION_ID()",
		fn: func(ctx *Context, _ []any) (any, error) {
			return int32(ctx.partitionIndex()), nil
		}}, nil
}

// rowCounter is monotonically_increasing_id's state in one partition.
type rowCounter struct {
	base, next int64
}

func bindMonotonicallyIncreasingID(name string, args []Expr, opts Options) (Expr, error) {
	counters := newPerPartition(func(p int) *rowCounter { return &rowCounter{base: int64(p) << 33} })
	return &rowFunc{name: name, t: sqltypes.LongType, str: "monotonically_increasing_id()",
		fn: func(ctx *Context, _ []any) (any, error) {
			c := counters.get(ctx)
			id := c.base + c.next
			c.next++
			return id, nil
		}}, nil
}
