package sources

import (
	"github.com/weirhq/weir/conf"
	"github.com/weirhq/weir/sparkerr"
)

// ParseByteSize reads a byte size as Spark's byte configs do (conf.ParseBytes: a whole number
// with an optional unit b, k/kb, m/mb, g/gb, t/tb, p/pb, powers of 1024, any case; a bare
// number is bytes), naming key in its error.
func ParseByteSize(key, v string) (int64, error) {
	n, err := conf.ParseBytes(v)
	if err != nil {
		return 0, sparkerr.IllegalArgument("%s should be a size in bytes such as 1048576, 512m or 2g, but was %s", key, v)
	}
	return n, nil
}
