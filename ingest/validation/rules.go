package validation

import (
	"fmt"

	"github.com/azabudai/ctool/schema"
)

// RuleInfo describes a rule word for reports that list their rules (SARIF, JUnit).
type RuleInfo struct {
	Rule        string
	Short       string // what a problem of the rule is, in a few words
	Description string // what the rule checks, in full
	Help        string // how to fix a problem of the rule
	Warning     bool   // reported as a warning unless validate --strict
	Against     bool   // runs only with validate --against
}

// RulesDoc is the page that explains every rule word, a section each (RuleInfo.HelpURI).
const RulesDoc = "https://github.com/azabudai/ctool/blob/main/docs/ci.md"

// HelpURI is the rule's section of RulesDoc: docs/ci.md's heading "### Rule `WORD`".
func (r RuleInfo) HelpURI() string { return RulesDoc + "#rule-" + r.Rule }

// Rules lists every rule word, the checks first, then the contracts, in a fixed order.
func Rules() []RuleInfo {
	rules := []RuleInfo{
		{Rule: RuleMissingFile, Short: "a dataset's data file is missing",
			Description: "every dataset has its data file in the input directory",
			Help:        "Add the dataset's file to the input directory under the name the message gives (profiles: narrative_data*.csv), or rename the file that is there."},
		{Rule: RuleFile, Short: "an input entry is not a regular file within the size limit",
			Description: "input entries are regular files within --max-file-size (no link, FIFO, device or socket)",
			Help:        "Commit the file itself, not a link to it, and keep it under --max-file-size (or raise the limit)."},
		{Rule: RuleEncoding, Short: "a file, its name or a cell is not UTF-8",
			Description: "files are UTF-8 (a byte order mark is allowed, UTF-16 is not)",
			Help:        "Save the file as UTF-8 (Excel: CSV UTF-8), and name it in UTF-8."},
		{Rule: RuleHeader, Short: "the header does not name the dataset's columns",
			Description: "the header names each of the dataset's columns once and no other",
			Help:        "Make the first line name each of the dataset's columns once and no other; the message lists them, and says when a missing column looks renamed."},
		{Rule: RuleRagged, Short: "a record has more or fewer fields than the header",
			Description: "every record has as many fields as the header",
			Help:        "Give every record one field per column; quote a field that holds a comma or a line break."},
		{Rule: RuleRequired, Short: "a required cell is empty",
			Description: "required columns have a value",
			Help:        "Fill in the cell: the column needs a value in every row."},
		{Rule: RuleType, Short: "an integer cell is not a 32-bit integer", Warning: true,
			Description: "integer columns hold 32-bit integers (a warning unless --strict: the value is unknown)",
			Help:        "Write a whole number from -2147483648 to 2147483647, with no unit or separator."},
		{Rule: RuleFormat, Short: "the CSV syntax, or a date, period or timestamp, is malformed",
			Description: "CSV syntax is well formed (an error); dates, periods and timestamps are (a warning unless --strict: the value is unknown)",
			Help:        "Quote fields that contain quotes, commas or line breaks and double the quotes inside them; write dates as YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD, timestamps as ISO 8601."},
		{Rule: RuleEnum, Short: "a flag or enumeration holds another value", Warning: true,
			Description: "flags and enumerations hold one of their values (a warning unless --strict: the value is unknown)",
			Help:        "Write one of the values the message lists, or leave a flag's cell empty."},
		{Rule: RuleJSON, Short: "a JSON cell is not JSON both readers take alike", Warning: true,
			Description: "JSON columns hold valid JSON that DuckDB reads as written, no lone surrogate, no number beyond a double (a warning unless --strict: the value is unknown)",
			Help:        "Write valid JSON at the byte the message names: no lone surrogate escape, no number beyond a double's range or longer than 64 characters."},
		{Rule: RuleDuplicateKey, Short: "a JSON object has a key twice",
			Description: "no JSON object in a cell has a key twice",
			Help:        "Keep one of the two keys: encoding/json keeps the last value and DuckDB the first, so the two would disagree."},
		{Rule: RuleSchema, Short: "a JSON cell does not match its JSON Schema", Warning: true,
			Description: "JSON columns match their JSON Schema (a warning unless --strict: the value is unknown)",
			Help:        "Fix the value at the JSON path the message names; the column's schema is the file it names, under schema/jsonschema/."},
		{Rule: RuleHours, Short: "opening hours written as text cannot be read", Warning: true,
			Description: "opening hours written as text are read by the hours rule (a warning unless --strict: the hours are unknown)",
			Help:        `Write the hours as JSON ({"monday": [{"open": "10:00", "close": "20:00"}]}) or as text the hours rule reads (月〜金 10:00〜20:00).`},
		{Rule: RuleInjection, Short: "a public cell addresses an AI agent", Warning: true,
			Description: "no cell of stores, events or products addresses an AI agent rather than the visitor (a warning unless --strict: the cell is kept, and an answer that returns it tells the agent it is data)",
			Help:        "Rewrite the cell for visitors: an instruction to an assistant does not belong in the data."},
		{Rule: RuleUnique, Short: "a primary key repeats in its file",
			Description: "primary keys are unique in their file",
			Help:        "Give each row its own key, or remove the row that repeats one."},
		{Rule: RuleReference, Short: "a store_id names no store of the stores file",
			Description: "a product's store_id and a profile's primary_store_id are store_ids of the stores file",
			Help:        "Use a store_id of the stores file, or add the store to it."},
		{Rule: RuleVenue, Short: "an event's venue reads like a store but names none", Warning: true,
			Description: "an event's venue that reads like a store names one store of the stores file (a warning unless validate --strict)",
			Help:        "Write the store's name as the stores file has it, or give stores distinct names."},
		{Rule: RulePlace, Short: "place.json is not one object of name and name_en",
			Description: fmt.Sprintf("place.json, where present, is one JSON object: \"name\" and an optional \"name_en\", each a line of text (at most %d characters, the file at most %d bytes)", maxPlaceName, maxPlaceBytes),
			Help:        `Write {"name": "…", "name_en": "…"}: two strings, each one line, and no other key.`},
	}
	for _, c := range schema.Contracts {
		rules = append(rules, RuleInfo{Rule: c.Rule, Short: contractShort[c.Rule], Description: c.Description, Help: contractHelp[c.Rule],
			Warning: c.Warning, Against: c.Against})
	}
	return rules
}

// The contracts' short descriptions and help, beside their description in schema.Contracts.
var (
	contractShort = map[string]string{
		schema.ContractRemoved:    "a dataset lost too many rows since the previous build",
		schema.ContractReferenced: "a removed key is still referred to",
		schema.ContractUpcoming:   "no event ends today or later",
	}
	contractHelp = map[string]string{
		schema.ContractRemoved:    "Restore the rows if they went by mistake; if the removal is meant, raise --max-removed for this change.",
		schema.ContractReferenced: "Keep the store, or first change the products and profiles that still name it.",
		schema.ContractUpcoming:   "Add the coming events: nothing in the file ends today or later in Tokyo.",
	}
)

// appliesTo reports whether a rule checks the files of dataset d; nil d is a file of no dataset:
// place.json, or none at all.
func appliesTo(rule string, d *schema.Dataset, file string) bool {
	if d == nil {
		switch rule {
		case RuleFile, RuleEncoding, RulePlace:
			return isPlaceFile(file)
		}
		return false
	}
	has := func(ok func(c schema.Column) bool) bool {
		for _, c := range d.Columns {
			if ok(c) {
				return true
			}
		}
		return false
	}
	switch rule {
	case RuleMissingFile, RuleFile, RuleEncoding, RuleHeader, RuleRagged, RuleFormat, schema.ContractRemoved:
		return true
	case RuleRequired:
		return has(func(c schema.Column) bool { return c.Required })
	case RuleType:
		return has(func(c schema.Column) bool { return c.Kind == schema.Integer })
	case RuleEnum:
		return has(func(c schema.Column) bool { return c.Kind == schema.Flag || c.Kind == schema.Enum })
	case RuleJSON, RuleDuplicateKey, RuleSchema:
		return has(func(c schema.Column) bool { return c.Kind == schema.JSON })
	case RuleHours:
		return has(func(c schema.Column) bool { return c.SchemaFile == schema.HoursSchemaFile })
	case RuleInjection:
		return !d.Private
	case RuleUnique:
		return d.PrimaryKey != ""
	case RuleReference:
		return len(d.References) > 0
	case RuleVenue:
		return d == schema.Events
	case schema.ContractReferenced:
		for _, o := range schema.All() {
			for _, ref := range o.References {
				if ref.Dataset == d.Name {
					return true
				}
			}
		}
		return false
	case schema.ContractUpcoming:
		return d.Upcoming != ""
	}
	return false
}
