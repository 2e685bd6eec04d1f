package plan

// Generate is SQL's LATERAL VIEW [OUTER] generator(args) Alias AS ColumnNames: the input's
// columns followed by the generator's, which answer to the qualifier Alias and are named
// ColumnNames (the generator's default names when empty).
type Generate struct {
	RelCommon
	Input       Relation
	Generator   Call
	Outer       bool
	Alias       string
	ColumnNames []string
}
