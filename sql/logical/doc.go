// Package logical holds resolved logical plans: trees of typed nodes whose expressions are bound
// (package expr) and whose output schema is known. The analyzer builds them from package plan's
// unresolved relations; the planner (package planner) turns them into flow pipelines; explain
// prints them.
//
// Every Node reports its output Schema (user columns only; the flow-event columns _marker and
// _retracted are added by the planner), its Children, whether it reads an unbounded source
// (IsStreaming), and a one-line description for explain trees. Nodes are immutable once built.
//
// Event time: Watermark (withWatermark) marks a timestamp column as the watermarked event time;
// EventTimeColumns follows it (and windows over it) up through projections as Spark's
// watermark metadata does, and EventTimeKey finds an aggregate's event-time grouping key.
// ExpandWindow is the planner's expansion of a sliding window.
//
// Window appends one column per window function to its input's; its functions share one
// partition/order specification and each carries its frame (ROWS or RANGE, Spark's rendering).
//
// Generate (explode, posexplode, inline, stack, json_tuple) appends a generator's columns to its
// input's, one output row per generated row.
//
// Python functions: PythonEval appends the results of scalar Python functions of one eval type
// to its input's columns (always nullable, as Spark's PythonUDF); MapInPython,
// GroupMapInPython and CoGroupMapInPython output the fields of their function's struct type;
// AggregateInPython outputs its grouping values and one value per grouped-aggregate function;
// PythonUDTF appends a table function's rows to the input row each answers.
// PythonFunc carries a function's pickled command and bound arguments.
package logical
