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
// A Store is safe for concurrent use. Durability points (offsets, commits) are synced writes;
// state snapshots are written unsynced and made durable by the commit that follows them.
package checkpoints
