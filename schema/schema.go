// Package schema owns the dataset definitions: source files, tables, columns, types, descriptions,
// JSON Schemas and worked examples. Validation, the migrations' checks and the agent help all read it,
// so a column is described exactly once.
//
// The rules that read the data's free text into typed values are its sub-packages, each of one job:
// hours (opening hours, Japan's public holidays, an event's weekdays), price (a product's price),
// offers (a store's offers and their caveats), venuematch (the store an event's venue names),
// injection (text addressed to an AI) and fold (the form names are compared in, and the SQL macro
// fold()). They import this package; it imports none of them.
package schema

import (
	"embed"
	"fmt"
	"path"
	"strings"
)

//go:embed jsonschema/*.json
var jsonSchemas embed.FS

// Kind is how a CSV cell is checked.
type Kind string

const (
	Text      Kind = "text"      // any UTF-8 text
	Integer   Kind = "integer"   // a decimal integer
	DateRange Kind = "daterange" // YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD
	Timestamp Kind = "timestamp" // ISO 8601 date and time
	Flag      Kind = "flag"      // FlagValue or empty
	Enum      Kind = "enum"      // one of Values
	JSON      Kind = "json"      // JSON text checked against SchemaFile
)

// Column is one CSV column and the raw table column it becomes.
type Column struct {
	Name        string
	Kind        Kind
	Required    bool
	Description string // Japanese, for the agent; never a data count
	Example     string
	FlagValue   string   // Flag: the one non-empty value
	Values      []string // Enum: the allowed values
	SchemaFile  string   // JSON: file name under jsonschema/
	// Hidden columns may be used in joins and filters but never appear in results.
	Hidden bool
	// Label columns hold a small vocabulary of codes or words (category, tag): the database compares
	// them without case (COLLATE NOCASE), and the agent help and empty-result hints list their values.
	Label bool
}

// SQLType is the column's type in the table that holds it. Datasets kept as CSV text use VARCHAR
// for every column; profiles are stored typed.
func (c Column) SQLType(typed bool) string {
	if typed && c.Kind == Integer {
		return "INTEGER"
	}
	return "VARCHAR"
}

// Reference says that a column's values must exist in another dataset's key column.
type Reference struct {
	Column, Dataset, Key string
}

// ViewColumn is a column of a typed view.
type ViewColumn struct {
	Name, Type, Description string
	Label                   bool // as Column.Label
}

// View is a typed view over a dataset. When Extends is set the view carries every column of that table
// (those named in Columns with a new type, the rest as text) followed by the new ones.
type View struct {
	Name        string
	Description string
	Extends     string
	Columns     []ViewColumn
	Note        string // what a first attempt must know about the view, said in the brief too
}

// Example is a worked question and the SQL that answers it. Every example runs on the sample data.
type Example struct {
	Question string `json:"question"`
	SQL      string `json:"sql"`
}

// Dataset is one kind of data ctool ingests.
type Dataset struct {
	Name        string // events, stores, products, profiles
	Tool        string // the agent tool's name
	Table       string
	SourceFile  string // a file name, or a glob for profiles
	Aliases     []string
	PrimaryKey  string // unique per source file when set
	Summary     string // what the data is
	WhenToUse   string // when to use this tool rather than another
	Columns     []Column
	References  []Reference
	Views       []View
	Examples    []Example
	Private     bool   // personal data: never reachable from `ctool query`
	ZeroMessage string // said when a query matches nothing
	// Key identifies a row when two builds are compared (validate --against): the columns whose values
	// together name one row. PrimaryKey, when set, is the whole key.
	Key []string
	// Upcoming, when set, is the DateRange column of which at least one row must end today or later
	// in Tokyo (the upcoming contract).
	Upcoming string
}

// Column returns the named column.
func (d *Dataset) Column(name string) (Column, bool) {
	for _, c := range d.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// ColumnNames lists the columns in CSV order.
func (d *Dataset) ColumnNames() []string {
	names := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		names[i] = c.Name
	}
	return names
}

// MatchesFile reports whether a file name in the input directory belongs to this dataset.
func (d *Dataset) MatchesFile(name string) bool {
	ok, err := path.Match(d.SourceFile, name)
	return err == nil && ok
}

// Relations lists every name a query may use for this dataset: the table, its aliases and its views
// (the names of its relations, as Relations resolves them).
func (d *Dataset) Relations() []string {
	var names []string
	for _, r := range relationsOf(d) {
		names = append(names, r.Name)
	}
	return names
}

// All lists the datasets in load order: stores first, because products and profiles refer to them.
func All() []*Dataset { return []*Dataset{Stores, Events, Products, Profiles} }

// Public lists the datasets `ctool query` may read.
func Public() []*Dataset {
	var out []*Dataset
	for _, d := range All() {
		if !d.Private {
			out = append(out, d)
		}
	}
	return out
}

// ByName finds a dataset by its name.
func ByName(name string) (*Dataset, error) {
	for _, d := range All() {
		if d.Name == name {
			return d, nil
		}
	}
	var names []string
	for _, d := range All() {
		names = append(names, d.Name)
	}
	return nil, fmt.Errorf("unknown dataset %q (one of %s)", name, strings.Join(names, ", "))
}

// JSONSchema returns the text of an embedded JSON Schema.
func JSONSchema(file string) (string, error) {
	b, err := jsonSchemas.ReadFile("jsonschema/" + file)
	if err != nil {
		return "", fmt.Errorf("json schema %s: %w", file, err)
	}
	return string(b), nil
}

// HoursSchemaFile is opening_hours' JSON Schema: a cell of that column may be text instead, which
// hours.Read (schema/hours) reads by the same rule.
const HoursSchemaFile = "opening_hours.json"
