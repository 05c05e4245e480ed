package main

import (
	"fmt"
	"regexp"

	"github.com/azabudai/ctool/schema"
)

// looksLikeSQL matches an argument that is a query rather than a dataset name.
var looksLikeSQL = regexp.MustCompile(`(?is)^\s*(SELECT|WITH|FROM|VALUES|TABLE|\()\b|\s`)

// relationWord finds the relation names a query reads, to guess its dataset.
var relationWord = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+["']?([^\s"',;()]+)`)

// unknownDataset explains `ctool query ARG …` when ARG is not a dataset: when it is SQL, the dataset
// was forgotten, and the hint is the command line with the dataset the query reads put in.
func unknownDataset(args []string) error {
	first := args[0]
	if !looksLikeSQL.MatchString(first) {
		return unknownWord(fmt.Sprintf("unknown dataset %q: use %s", first, orList(queryDatasets())), first, queryDatasets(),
			"ctool query stores \"SELECT store_name FROM stores WHERE category = 'cafe'\"")
	}
	dataset := "stores"
	if m := relationWord.FindStringSubmatch(first); m != nil {
		if r, ok := schema.RelationNamed(m[1]); ok {
			dataset = r.Dataset.Name
		}
	}
	return usageError("the dataset is missing: ctool query <%s> [flags] SQL", bar(queryDatasets())).
		WithHint("ctool query " + dataset + " " + shellQuote(first))
}
