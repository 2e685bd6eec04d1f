// Package protoconv translates Spark Connect protobuf messages (package sparkconnectpb, generated
// from pyspark-client 4.2.0) into Weir's unresolved plan language (package plan), and converts
// data types both ways. It is pure: no gRPC, no I/O, no sessions, no catalog. The connect service
// calls it once per request; the analyzer resolves what it returns.
//
// Entry points:
//   - Relation, Command and Expression translate a plan message. Every relation carries the
//     client's plan id (RelationCommon.plan_id) in plan.RelCommon.PlanID, and column and star
//     references carry the plan id they are pinned to, all shifted by one: client id n is
//     stored as n+1 so that PySpark's first plan (id 0) differs from "no plan id" (see
//     PlanIDFromClient / ClientPlanID).
//   - DataTypeFromProto, DataTypeToProto and SchemaToProto convert types; ParseJSONType and
//     JSONType read and write Spark's JSON type strings (StructType.json(), which PySpark sends
//     as the schema of createDataFrame).
//   - Converter carries the Arrow allocator used to decode LocalRelation data; the package-level
//     functions use memory.DefaultAllocator.
//
// Ownership: a plan.LocalRelation returned by Relation owns its decoded Arrow records (each
// retained once); whoever consumes the plan last releases them. When a
// translation fails, records decoded so far are released before the error is returned.
//
// Errors are *sparkerr.Error: malformed or incomplete messages give an IllegalArgumentException
// whose message names the missing or invalid field (Spark's InvalidPlanInput), and messages Weir
// does not support give sparkerr.Unsupported naming the relation, expression, command or type.
// No input, however malformed, makes these functions panic. SQL text (SQL relations, SqlCommand)
// is passed through unparsed as plan.SQLQuery; expression strings, DDL schemas and unparsed
// type strings are handed to package sql.
package protoconv
