// Package memory holds the sinks that write to the server process itself: "memory" (the result
// table, registered as a session temp view through sinks.Env.Tables, readable while the query
// runs), "console" (rows printed as Spark's console sink does, to sinks.Env.Stdout) and "noop"
// (rows counted and dropped; also df.write.format("noop")). They share the epoch operator of
// commit.go, which feeds a sinks.Changelog and writes each epoch once. None has a source.
//
// Imports: connectors (its registration, register.go), the contracts and toolkit of sinks,
// flow, expr, plan, showstring, sqltypes, sparkerr; never another connector.
package memory
