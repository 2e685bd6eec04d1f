// Package socket is the socket connector: the stream source "socket", reading text lines from
// a TCP server (host, port, includeTimestamp) as Spark's TextSocketSource does. It is not
// replayable, as in Spark; it has no batch read and no sink.
//
// Imports: connectors (its registration, register.go), the contracts and toolkit of sources,
// sqltypes, sparkerr; never another connector.
package socket
