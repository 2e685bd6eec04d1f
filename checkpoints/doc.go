// Package checkpoints is Weir's durable log of streaming progress, kept in Pebble on disk (the
// server opens one Store under its --state-dir).
//
// Per query (keyed by the query's persistent id) a Store holds, like Spark's checkpoint
// directory: the query metadata, the offsets of each epoch (written and synced before the epoch
// runs), the commit of each epoch (written and synced after its sinks committed), source metadata,
// and operator state snapshots per (operator, partition, epoch). Recovery reads the last commit
// C, restores state at C and re-runs epoch C+1 with exactly its logged offsets if they exist.
//
// A Store is safe for concurrent use. Durability points (offsets, commits) are synced writes;
// state snapshots are written unsynced and made durable by the commit that follows them.
package checkpoints
