package plan

// Generate is SQL's LATERAL VIEW [OUTER] generator(args) Alias AS ColumnNames: the input's
// columns followed by the generator's, which answer to the qualifier Alias and are named
// ColumnNames (the generator's default names when empty). A generator called as a table-valued
// function in FROM (SELECT * FROM explode(array(1, 2))) is a Generate over one empty row with
// TableFunction set.
type Generate struct {
	RelCommon
	Input         Relation
	Generator     Call
	Outer         bool
	Alias         string
	ColumnNames   []string
	TableFunction bool
}
