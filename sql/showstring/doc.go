// Package showstring renders rows of already-stringified cells the way Spark's
// Dataset.showString does: the boxed table (cells right-aligned when truncating, left-aligned
// otherwise), the vertical "-RECORD n" layout, cell truncation to a width with "...", and the
// "only showing top N rows" footer. Both DataFrame.show (engine) and the console streaming sink
// use it, so the two print identically.
package showstring
