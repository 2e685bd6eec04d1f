package protoconv

// Plan ids: package plan uses 0 for "no plan id", but PySpark numbers its plans from 0, so the
// first DataFrame of a session has plan_id 0. protoconv therefore stores client plan id n as
// n+1 everywhere (plan.RelCommon.PlanID, plan.ColumnRef.PlanID, plan.Star.PlanID); an absent
// plan_id is 0. PlanIDFromClient and ClientPlanID convert between the two.

// PlanIDFromClient maps a client plan id (nil when absent) to a plan package id.
func PlanIDFromClient(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id + 1
}

// ClientPlanID maps a plan package id back to the client's plan id; ok is false for 0 (none).
func ClientPlanID(id int64) (clientID int64, ok bool) {
	if id == 0 {
		return 0, false
	}
	return id - 1, true
}
