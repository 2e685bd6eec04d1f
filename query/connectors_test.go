package query

// The query tests run queries over the real connectors, registered by their packages.
import _ "github.com/weirhq/weir/connectors/files"
