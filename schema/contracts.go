package schema

// Contracts are checks on data that is valid cell by cell but wrong as a whole: a change that loses
// rows, deletes a key other data still refers to, or leaves nothing upcoming. `ctool validate` checks
// them; those marked Against need the previous build (validate --against). Their rule words join the
// other rule words in every report.
type Contract struct {
	Rule        string
	Against     bool // needs the previous build
	Warning     bool // reported as a warning (exit 0) unless validate --strict
	Description string
}

// DefaultMaxRemoved is the share of a dataset's rows a change may remove (validate --max-removed).
const DefaultMaxRemoved = 0.10

// Contract rule words.
const (
	ContractRemoved    = "removed"
	ContractReferenced = "still-referenced"
	ContractUpcoming   = "upcoming"
)

// Contracts lists every contract.
var Contracts = []Contract{
	{Rule: ContractRemoved, Against: true,
		Description: "a dataset may not lose more than a set share of its rows since the previous build (default 10%, validate --max-removed)"},
	{Rule: ContractReferenced, Against: true,
		Description: "a key that other data still refers to (a product's store_id, a profile's primary_store_id) may not disappear"},
	{Rule: ContractUpcoming, Warning: true,
		Description: "events must include one that ends today or later in Tokyo (a warning unless validate --strict)"},
}
