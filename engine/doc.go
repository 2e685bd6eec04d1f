// Package engine is where a plan becomes rows: the server-side Spark session (configuration,
// temp views) and the one pipeline every query takes —
//
//	plan.Relation → analyzer.Resolve → logical.Node → planner.Build → flow.Graph → JobRunner → rows
//
// (see Session.Execute). Front doors (connect/) hand it package plan's types and get back a
// Result of Arrow record batches holding user columns only; they never see flow-event columns.
package engine
