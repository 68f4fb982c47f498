package settle

// The statuses a result can carry, in the order of CONTRACT 9 step D and
// CONTRACT 10: front-ends that tell a reader which statuses exist (the MCP
// tool descriptions) list these rather than spelling them out, and
// TestStatusLists keeps them equal to the Status constants.
var (
	SettlementStatuses = []Status{Supported, Partial, Conflict, Unknown}
	ClaimStatuses      = []Status{ExactStated, Unresolved}
)
