// Package all is the list of Weir's connectors: importing it registers every format. The server
// (cmd/weir) and tests that run queries over real formats import it; it is the one package
// besides the registry's users that may import connector packages.
package all

import (
	_ "github.com/weirhq/weir/connectors/files"   // parquet, json, csv, text
	_ "github.com/weirhq/weir/connectors/iceberg" // iceberg
	_ "github.com/weirhq/weir/connectors/kafka"   // kafka
	_ "github.com/weirhq/weir/connectors/memory"  // memory, console, noop
	_ "github.com/weirhq/weir/connectors/rate"    // rate, rate-micro-batch
	_ "github.com/weirhq/weir/connectors/socket"  // socket
)
