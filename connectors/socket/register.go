package socket

import "github.com/weirhq/weir/connectors"

// The socket source is a stream source only.
func init() {
	connectors.Register(connectors.Format{Name: "socket", Stream: openSocket, StreamSchema: socketSchemaFunc})
}
