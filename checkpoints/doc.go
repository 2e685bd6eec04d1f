// Package checkpoints is Weir's durable log of streaming progress, kept in Pebble on disk. A
// streaming query with a checkpoint location opens one Store in that location for as long as it
// runs (Pebble's lock keeps other processes out).
//
// Per query (keyed by the query's persistent id) a Store holds, like Spark's checkpoint
// directory: the query metadata, the offsets of each epoch (written and synced before the epoch
// runs), the commit of each epoch (written and synced after its sinks committed), source metadata,
// and operator state snapshots per (operator, partition, epoch). Recovery reads the last commit
// C, restores state at C and re-runs epoch C+1 with exactly its logged offsets if they exist.
//
// Purge drops old offsets and commits; PurgeState drops state snapshots older than the one
// recovery from a given commit needs.
//
// Small state snapshots are values in Pebble; large ones (past 256 KiB) are files in the
// store's state directory, written and synced before the Pebble record naming them (see
// state_files.go: Pebble's write path costs several times a plain file write for values of
// tens of megabytes, and reopening replays them from its WAL). Open deletes state files no
// record names; PurgeState deletes the files of the snapshots it drops.
//
// A Store is safe for concurrent use (state saves of several operator instances run in
// parallel). Durability points (offsets, commits) are synced writes; state records are written
// unsynced and made durable by the commit that follows them (the caller commits an epoch only
// after every PutState of it returned).
package checkpoints
