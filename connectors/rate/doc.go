// Package rate is the rate connector: the stream sources "rate" (rows per second since the
// query's first start, kept through sources.StreamEnv.Metadata; offsets are milliseconds, see
// DESIGN.md) and "rate-micro-batch" (a fixed number of rows per epoch, a
// sources.StartRelative source). Both are replayable: a range reads the same rows again.
// Neither has a batch read or a sink.
//
// Imports: connectors (its registration, register.go), the contracts and toolkit of sources,
// sqltypes, sparkerr; never another connector.
package rate
