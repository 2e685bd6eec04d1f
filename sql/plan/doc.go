// Package plan is Weir's one internal plan language: plain Go structs for unresolved relations
// (Relation) and expressions (Expr) that every front door produces. Spark Connect protobuf
// (connect/) and Spark SQL text (sql/parser) both translate into these types; nothing here knows
// protobuf or SQL syntax.
//
// A plan here is unresolved: column references are names, functions are names, types of
// expressions are unknown. The analyzer (package analyzer) resolves a Relation against a session
// catalog into a typed logical plan (package logical), which the planner turns into a flow
// pipeline.
//
// Conventions:
//   - Operators and most builtins are Call{Name: ...} with Spark's function names, exactly as Spark
//     Connect sends them: "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "<=>", "and",
//     "or", "not", "negative", "isnull", "isnotnull", "in", "like", "rlike", "when" (CASE WHEN: args
//     are cond1, value1, cond2, value2, …, [else]), "between" is rewritten by front doors into
//     ">=" and "<=", "coalesce", "count", "sum", etc. The analyzer lower-cases names.
//   - Python functions are *plan.PythonUDF (always by pointer: the analyzer tells calls apart by
//     identity); mapInPandas and friends are MapInPython, GroupMapInPython and
//     CoGroupMapInPython; spark.udf.register is the RegisterPythonFunction command. A Python UDTF
//     call used as a relation (or lateral-joined to its Input) is PythonTableFunction,
//     spark.udtf.register the
//     RegisterPythonTableFunction command.
//   - Relations form a tree through their Input fields; PlanID is the client's plan id (Spark
//     Connect's RelationCommon.plan_id) or 0 when absent, used to resolve df["col"] references.
package plan
