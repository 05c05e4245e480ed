package console

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/console/changeview"
)

// The revised build: the sample input as a new scrape may revise it, built. Compared with the sample
// build it has a product's price changed in its description, a store's Sunday hours changed inside its
// long opening-hours JSON and its vegan text changed, and every event's extracted_at changed (more
// changed rows than the overview shows), one event no longer free.
var (
	revisedOnce sync.Once
	revisedDB   string
)

func revisedBuild(t *testing.T) string {
	t.Helper()
	f := builds(t)
	revisedOnce.Do(func() {
		in := filepath.Join(fixDir, "revised-input")
		ingesttest.CopyDir(t, f.input, in, func(name string, b []byte) []byte { return revise(t, name, b) })
		db := filepath.Join(fixDir, "revised", "ctool.duckdb")
		rebuild(t, in, db)
		revisedDB = db
	})
	if revisedDB == "" {
		t.Fatal("the revised build could not be made")
	}
	return revisedDB
}

// revise is the revised build's edit of one input file.
func revise(t *testing.T, name string, b []byte) []byte {
	switch {
	case name == "filtered_product_data.csv":
		if !bytes.Contains(b, []byte("15,120円")) {
			t.Fatal("the sample has no 15,120円")
		}
		return bytes.Replace(b, []byte("15,120円"), []byte("16,200円"), 1)
	case strings.HasPrefix(name, "filtered_store_data"):
		return editCSV(t, b, func(row map[string]*string) {
			if *row["store_id"] == "STR-0004" {
				*row["opening_hours"] = strings.Replace(*row["opening_hours"], `"sunday": [{"open": "09:00", "close": "19:00"}]`, `"sunday": [{"open": "09:00", "close": "20:00"}]`, 1)
				*row["vegan_info"] = "ヴィーガン対応なし"
			}
		})
	case name == "events.csv":
		return editCSV(t, b, func(row map[string]*string) {
			*row["extracted_at"] = "2025-10-01T09:00:00"
			if strings.HasPrefix(*row["event_name"], "BMW X5") {
				*row["cost"] = strings.Replace(*row["cost"], `"is_free": true`, `"is_free": false`, 1)
			}
		})
	}
	return b
}

// editCSV passes every record of a CSV file through edit, its cells by column name.
func editCSV(t *testing.T, b []byte, edit func(map[string]*string)) []byte {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		row := map[string]*string{}
		for i, name := range recs[0] {
			row[name] = &rec[i]
		}
		edit(row)
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The overview of the revised build's changes: the stores' and products' few changed rows inline,
// the changed part of each text marked, the derived price and hours beside them; the events' many
// changed rows only counted and linked. And a dataset's page of changed rows, the same way.
func TestChangesInline(t *testing.T) {
	f := builds(t)
	db := revisedBuild(t)
	s := newServer(t, Config{DB: db, Against: f.sample})
	overview := stable(t, db, body(t, get(t, s, "/changes", "Accept-Language", "ja")))
	golden(t, "changes-revised.html", overview)
	products := stable(t, db, body(t, get(t, s, "/changes/products?kind=changed", "Accept-Language", "en")))
	golden(t, "changes-revised-products.html", products)
	for _, want := range []string{
		// The price in the description, marked, and the price derived from it.
		`<del>15,120</del>`, `<ins>16,200</ins>`,
		`<code class="colname">price_yen</code> <span class="derived-from">商品説明から派生</span></th><td class="old" data-label="変更前"><div class="whole"><del>15120</del></div></td><td class="new" data-label="変更後"><div class="whole"><ins>16200</ins></div>`,
		// The long opening hours: the change with some context, the rest left out, the whole texts
		// a click away; and the hours as read.
		`<span class="gap" title="省略">…</span>`, `<del>19</del>`, `<ins>20</ins>`, `<summary>全文</summary>`,
		`<div class="whole">日曜 09:00-<del>19</del>:00</div>`, `<div class="whole">日曜 09:00-<ins>20</ins>:00</div>`,
		// The vegan offer derived from the text.
		`<code class="colname">vegan_available</code>`,
		// The events: more than 20 changed rows, linked.
		`イベント: 変更された行は 35 件で、20 件を超えるため一覧ページに表示します。 <a href="/changes/events?kind=changed">`,
	} {
		if !strings.Contains(overview, want) {
			t.Errorf("the overview has no %s", want)
		}
	}
	if strings.Contains(overview, `id="changed-events"`) {
		t.Error("the overview shows the events' 35 changed rows")
	}
	if !strings.Contains(products, `Price (yen) <code class="colname">price_yen</code>`) {
		t.Error("the products' page has no derived price")
	}
	// An event no longer free: is_free derived from cost.
	events := body(t, get(t, s, "/changes/events?kind=changed", "Accept-Language", "en"))
	if !regexp.MustCompile(`<code class="colname">is_free</code>[^\n]*<del>true</del>[^\n]*<ins>false</ins>`).MatchString(events) {
		t.Error("the events' page has no derived is_free change")
	}
}

// Against an input directory the changes are shown without derived values, and the page says why.
func TestChangesInlineAgainstDirectory(t *testing.T) {
	f := builds(t)
	db := revisedBuild(t)
	s := newServer(t, Config{DB: db, Against: f.input})
	page := body(t, get(t, s, "/changes", "Accept-Language", "en"))
	if !strings.Contains(page, "<ins>16,200</ins>") || strings.Contains(page, `class="derived"`) ||
		!strings.Contains(page, "Derived values are read from builds: against an input directory they are not shown.") {
		t.Errorf("against a directory:\n%s", page)
	}
}

// The rows of changes are one template, defined in both pages that show them: the two must not drift.
func TestDiffRowsTemplateShared(t *testing.T) {
	def := regexp.MustCompile(`(?s)\{\{define "diffrows"\}\}.*`)
	var got []string
	for _, name := range []string{"templates/changes.html", "templates/changeset.html"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, def.FindString(string(b)))
	}
	if got[0] == "" || got[0] != got[1] {
		t.Error(`the "diffrows" templates of changes.html and changeset.html differ: copy one to the other`)
	}
}

// Text from the data is escaped on the changes pages, the changed part too: the only markup in a
// field is the marks the template puts around the parts.
func TestChangesEscaped(t *testing.T) {
	pages, err := parseTemplates()
	if err != nil {
		t.Fatal(err)
	}
	p := &page{Lang: "en"}
	rows := changeview.Rows(p, "stores", changes.Changed, []changes.RowDiff{{
		Key: []string{`<k id="x">`}, Name: `"><script>alert(1)</script>`,
		Fields: []validation.FieldChange{{Column: "description", Old: `a <b>x</b> & "q"`, New: `a <i onclick="y">y</i> & "q"`}},
	}}, nil, func([]string) string { return `javascript:alert(1)` })
	p.Data = &changesetData{Dataset: "stores", Kind: changes.Changed, Kinds: changeKinds, Total: 1, Page: 1, Pages: 1,
		List: changeList{P: p, Dataset: "stores", Kind: changes.Changed, Start: 1, Rows: rows}}
	var b strings.Builder
	if err := pages["changeset"].Execute(&b, p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<b>", "<i ", `<k `, `href="javascript:`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %s unescaped", bad)
		}
	}
	for _, want := range []string{
		`a &lt;<del>b&gt;x&lt;/b</del>&gt; &amp;`, `a &lt;<ins>i onclick=&#34;y&#34;&gt;y&lt;/i</ins>&gt; &amp;`, ` &amp; &#34;q&#34;</div>`,
		`<code>&lt;k id=&#34;x&#34;&gt;</code>`, `&lt;script&gt;alert(1)&lt;/script&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
}
