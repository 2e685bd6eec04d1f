package query

// The query tests run queries over the real connectors.
import _ "github.com/weirhq/weir/connectors/all"
