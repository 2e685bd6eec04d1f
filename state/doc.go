// Package state holds the pieces of Weir's keyed operator state store that are not tied to one
// operator's data layout.
//
// A stateful streaming operator keeps its working set in memory (its own Arrow-backed
// structures) and, when the state outgrows the memory budget, spills cold entries to a Spill:
// a scratch Pebble instance of byte keys and values in a temporary directory of its own,
// removed when the operator closes. Spilled entries stay part of the state: lookups check the
// working set and then the spill, eviction scans both, and snapshots include both (the spill's
// part through a Pebble snapshot — View — which the background snapshot encoder reads while
// the operator goes on changing the store). A HashFilter of the spilled keys' hashes lets the
// owner skip the spill lookup for most keys that were never spilled (it stays in memory and
// counts in the operator's memoryUsedBytes; the budget bounds the rows kept in memory).
//
// The budget is the session conf MemoryBudgetConf
// (spark.sql.streaming.stateStore.weir.memoryBudgetBytes): the bytes of in-memory state one
// operator instance keeps before spilling. Unset, empty or ≤ 0 means unlimited: nothing spills
// and no scratch store is opened. SpillDirConf (spark.sql.streaming.stateStore.weir.spillDir)
// is the parent directory of the scratch stores (default: the system temporary directory).
//
// A process killed with its stores open (kill -9, OOM kill) leaves their directories behind;
// opening a store removes those of its siblings that no live process holds (their Pebble LOCK
// is free) and that have not changed for a minute.
package state
