// Package kafka is the Kafka connector: the stream source (stream.go, read.go: offsets
// {"topic":{"partition":offset}}, continuous reads planned from what the open readers fetched,
// local_latest.go; read limits and Trigger.AvailableNow, limits.go, available_now.go), batch
// reads (batch_read.go: KafkaBatch, KafkaBatchSchema), the streaming sink (sink.go: exactly
// once through transactions and a commit marker per epoch, redo.go and settle.go for commits
// whose outcome was lost) and batch writes, and the client options they share (options.go,
// client.go, tls.go, jaas.go: TLS/SASL settings; PEM store paths go through the file-access
// policy, CheckKafkaStoreFiles).
//
// Imports: connectors (its registration, register.go), the contracts and toolkit of sources and
// sinks, fileaccess, flow, expr, sqltypes, sparkerr and franz-go; never another connector.
package kafka
