package validation

import (
	"fmt"

	"github.com/azabudai/ctool/schema"
)

// RuleInfo describes a rule word for reports that list their rules (SARIF, JUnit).
type RuleInfo struct {
	Rule        string
	Description string
	Warning     bool // reported as a warning unless validate --strict
	Against     bool // runs only with validate --against
}

// Rules lists every rule word, the checks first, then the contracts, in a fixed order.
func Rules() []RuleInfo {
	rules := []RuleInfo{
		{RuleMissingFile, "every dataset has its data file in the input directory", false, false},
		{RuleFile, "input entries are regular files within --max-file-size (no link, FIFO, device or socket)", false, false},
		{RuleEncoding, "files are UTF-8 (a byte order mark is allowed, UTF-16 is not)", false, false},
		{RuleHeader, "the header names each of the dataset's columns once and no other", false, false},
		{RuleRagged, "every record has as many fields as the header", false, false},
		{RuleRequired, "required columns have a value", false, false},
		{RuleType, "integer columns hold 32-bit integers (a warning unless --strict: the value is unknown)", true, false},
		{RuleFormat, "CSV syntax is well formed (an error); dates, periods and timestamps are (a warning unless --strict: the value is unknown)", false, false},
		{RuleEnum, "flags and enumerations hold one of their values (a warning unless --strict: the value is unknown)", true, false},
		{RuleJSON, "JSON columns hold valid JSON that DuckDB reads as written, no lone surrogate, no number beyond a double (a warning unless --strict: the value is unknown)", true, false},
		{RuleDuplicateKey, "no JSON object in a cell has a key twice", false, false},
		{RuleSchema, "JSON columns match their JSON Schema (a warning unless --strict: the value is unknown)", true, false},
		{RuleHours, "opening hours written as text are read by the hours rule (a warning unless --strict: the hours are unknown)", true, false},
		{RuleInjection, "no cell of stores, events or products addresses an AI agent rather than the visitor (a warning unless --strict: the cell is kept, and an answer that returns it tells the agent it is data)", true, false},
		{RuleUnique, "primary keys are unique in their file", false, false},
		{RuleReference, "a product's store_id and a profile's primary_store_id are store_ids of the stores file", false, false},
		{RuleVenue, "an event's venue that reads like a store names one store of the stores file (a warning unless validate --strict)", true, false},
		{RulePlace, fmt.Sprintf("place.json, where present, is one JSON object: \"name\" and an optional \"name_en\", each a line of text (at most %d characters, the file at most %d bytes)", maxPlaceName, maxPlaceBytes), false, false},
	}
	for _, c := range schema.Contracts {
		rules = append(rules, RuleInfo{c.Rule, c.Description, c.Warning, c.Against})
	}
	return rules
}
