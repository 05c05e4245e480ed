package changes_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/schema"
)

// A changed cell's derived values, read from both builds' typed relations: a product's price from its
// description, a store's hours as rows from its opening hours, an event's cost. Against an input
// directory there are none: only a build holds them.
func TestDerived(t *testing.T) {
	in := ingesttest.SampleInput(t)
	old := ingesttest.Build(t, in)
	edited := filepath.Join(t.TempDir(), "in")
	ingesttest.CopyDir(t, in, edited, func(name string, b []byte) []byte {
		var from, to string
		switch {
		case name == "filtered_product_data.csv":
			from, to = "15,120円", "16,200円"
		case strings.HasPrefix(name, "filtered_store_data"):
			// STR-0001's hours are the first row's: every day 10:00-20:00, Sunday until 19:00 now.
			from, to = `""sunday"": [{""open"": ""10:00"", ""close"": ""20:00""}]`, `""sunday"": [{""open"": ""10:00"", ""close"": ""19:00""}]`
		case name == "events.csv":
			from, to = `""is_free"": true, ""amount"": null, ""notes"": ""参加無料`, `""is_free"": false, ""amount"": null, ""notes"": ""参加無料`
		default:
			return b
		}
		if !bytes.Contains(b, []byte(from)) {
			t.Fatalf("%s holds no %s", name, from)
		}
		return bytes.Replace(b, []byte(from), []byte(to), 1)
	})
	cur := ingesttest.Build(t, edited)

	set, err := changes.Compare(t.Context(), cur, old)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	for dataset, want := range map[string]string{
		"products": "[{price_yen [product_description] 15120 16200}]",
		"stores": "[{store_hours [opening_hours] monday 10:00-20:00\ntuesday 10:00-20:00\nwednesday 10:00-20:00\nthursday 10:00-20:00\nfriday 10:00-20:00\nsaturday 10:00-20:00\nsunday 10:00-20:00 " +
			"monday 10:00-20:00\ntuesday 10:00-20:00\nwednesday 10:00-20:00\nthursday 10:00-20:00\nfriday 10:00-20:00\nsaturday 10:00-20:00\nsunday 10:00-19:00}]",
		"events": "[{is_free [cost] true false}]",
	} {
		if n := set.Count(dataset, changes.Changed); n != 1 {
			t.Fatalf("%s: %d changed rows", dataset, n)
		}
		got, err := set.Derived(dataset, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || fmt.Sprint(got[0]) != want {
			t.Errorf("%s: derived %q\nwant %q", dataset, got, want)
		}
	}
	diffs, err := set.Diffs("products", changes.Changed, 0, 10)
	if err != nil || len(diffs) != 1 || diffs[0].Name != "麻布台ヒルズマーケット" {
		t.Errorf("the product's row is named %+v (%v)", diffs, err)
	}

	dir, err := changes.Compare(t.Context(), cur, in)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if got, err := dir.Derived("products", 0, 10); got != nil || err != nil {
		t.Errorf("against a directory: %v, %v", got, err)
	}
}

// A row is named by its key, and by its name where the key does not hold it.
func TestNameColumn(t *testing.T) {
	for d, want := range map[*schema.Dataset]string{schema.Stores: "store_name", schema.Products: "store_name", schema.Events: ""} {
		if got := changes.NameColumn(d); got != want {
			t.Errorf("%s: %q, want %q", d.Name, got, want)
		}
	}
}
