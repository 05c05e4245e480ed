package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/console/words"
	"github.com/azabudai/ctool/schema/hours"
)

// templateWords are the words a template asks the page for: .T "…", .Tf "…" …, .Tn n "…" "…".
var templateWords = regexp.MustCompile(`\.T[fn]?\s+(?:\([^)]*\)\s+|[$.][\w.$]*\s+)?"([^"]*)"(?:\s+"([^"]*)")?`)

// Every sentence the console says has its words in both languages: what templates ask for, what
// the code asks p.T, p.Tf and p.Tn for, and every message of a failed request (badRequest, an
// httpError's msg). A missing one would show the English key on a Japanese page.
func TestMessagesInBothLanguages(t *testing.T) {
	keys := map[string]string{} // key: where
	tmpls, _ := filepath.Glob("templates/*.html")
	for _, name := range tmpls {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range templateWords.FindAllStringSubmatch(string(b), -1) {
			for _, k := range m[1:] {
				if k != "" {
					keys[k] = name
				}
			}
		}
	}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				fn := ""
				switch f := x.Fun.(type) {
				case *ast.Ident:
					fn = f.Name
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				}
				switch fn {
				case "badRequest", "T", "Tf", "Tn":
					for _, a := range x.Args {
						if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							keys[s] = fset.Position(lit.Pos()).String()
						}
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok && id.Name == "msg" {
					if lit, ok := x.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						keys[s] = fset.Position(lit.Pos()).String()
					}
				}
			}
			return true
		})
	}
	if len(keys) < 150 {
		t.Fatalf("only %d sentences found: the scan misses some", len(keys))
	}
	for k, where := range keys {
		ja, ok := words.Text("ja", k)
		en, _ := words.Text("en", k)
		if !ok {
			t.Errorf("%s: %q has no words in words/messages.go", where, k)
			continue
		}
		if en == "" && !strings.HasPrefix(k, "The messages are ctool validate's own") {
			t.Errorf("%q has no English", k)
		}
		if ja == "" && k != "did you mean (before)" {
			t.Errorf("%q has no Japanese", k)
		}
	}
}

// A Japanese page names a store's days and closures in Japanese, and the public holidays' hours have
// their row: the day names of store_hours and of an event's weekdays are messages.
func TestDayWords(t *testing.T) {
	ja, en := &page{Lang: "ja"}, &page{Lang: "en"}
	for _, d := range append(weekdays, holiday) {
		if _, ok := words.Text("ja", d); !ok || ja.T(d) == d {
			t.Errorf("the day %s has no Japanese", d)
		}
	}
	if ja.T(holiday) != "祝日" || en.Closure("holiday") != "closed" || ja.Closure("holiday") != "休業" || ja.Closure("maintenance") != "設備点検" || ja.Closure("other") != "other" {
		t.Errorf("holiday: %q, closures %q %q %q", ja.T(holiday), ja.Closure("holiday"), ja.Closure("maintenance"), ja.Closure("other"))
	}
	if len(weekdays) != hours.HolidayDay {
		t.Errorf("%d weekdays; the hours rule's holiday is day %d", len(weekdays), hours.HolidayDay)
	}
	events := tableNamed("events")
	c, _ := events.column("weekdays")
	if ce := makeCell(c, []any{"saturday", "sunday"}, ja); strings.Join(ce.List, ",") != "土曜,日曜" {
		t.Errorf("weekdays shown as %q", ce.List)
	}
	if ce := makeCell(c, []any{"saturday"}, en); strings.Join(ce.List, ",") != "Saturday" {
		t.Errorf("weekdays shown in English as %q", ce.List)
	}
}

// English counts are singular for one: "1 row", "Export all 1 row", "1 hour ago"; Japanese has one
// form.
func TestPlurals(t *testing.T) {
	en, ja := &page{Lang: "en"}, &page{Lang: "ja"}
	for _, c := range []struct {
		p    *page
		n    int64
		want string
	}{
		{en, 1, "1 row"}, {en, 2, "2 rows"}, {en, 0, "0 rows"}, {ja, 1, "1 行"}, {ja, 5, "5 行"},
	} {
		if got := c.p.Tn(c.n, "%s row", "%s rows", formatCount(c.n)); got != c.want {
			t.Errorf("%d in %s: %q, want %q", c.n, c.p.Lang, got, c.want)
		}
	}
	if got := en.Age(sunday.Add(-90*time.Minute), sunday); got != "1 hour ago" {
		t.Errorf("an hour and a half ago: %q", got)
	}
	f := builds(t)
	s := newServer(t, Config{DB: f.sample})
	page := body(t, get(t, s, "/stores?category=cafe&at=2025-10-05T19:00&open=open", "Accept-Language", "en"))
	if !strings.Contains(page, "1 row · showing 1–1") || !strings.Contains(page, "Export all 1 row:") {
		t.Errorf("one café open: %s", page[strings.Index(page, `<p id="count"`):][:300])
	}
	// No row: nothing to export, and no export links.
	page = body(t, get(t, s, "/stores?q=nothing-has-this", "Accept-Language", "en"))
	if !strings.Contains(page, "No rows match.") || strings.Contains(page, `class="exports"`) || strings.Contains(page, "/stores.csv") {
		t.Error("an empty list offers its export")
	}
}

// Every rule word validate reports is explained on a Japanese page, and every explanation is of a
// rule.
func TestRulesExplained(t *testing.T) {
	rules := map[string]bool{}
	for _, r := range validation.Rules() {
		rules[r.Rule] = true
		if rulesJa[r.Rule] == "" {
			t.Errorf("the rule %s is not explained in Japanese (rulesJa)", r.Rule)
		}
	}
	for r := range rulesJa {
		if !rules[r] {
			t.Errorf("rulesJa explains %s, which is no rule", r)
		}
	}
}

// A store that keeps other hours on public holidays has them as the last row of its week, named in
// the page's language; its closures are named so too.
func TestStoreHolidayHours(t *testing.T) {
	f := builds(t)
	dir := filepath.Join(t.TempDir(), "in")
	copyInput(t, f.input, dir, "filtered_store_data_カテゴリー情報あり.csv",
		`"{""monday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""tuesday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""wednesday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""thursday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""friday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""saturday"": [{""open"": ""10:00"", ""close"": ""20:00""}], ""sunday"": [{""open"": ""10:00"", ""close"": ""20:00""}]}"`,
		`{"monday": [{"open": "10:00", "close": "20:00"}], "tuesday": [{"open": "10:00", "close": "20:00"}], "wednesday": [{"open": "10:00", "close": "20:00"}], "thursday": [{"open": "10:00", "close": "20:00"}], "friday": [{"open": "10:00", "close": "20:00"}], "saturday": [{"open": "10:00", "close": "20:00"}], "sunday": [{"open": "10:00", "close": "20:00"}], "holiday": [{"open": "11:00", "close": "18:00"}]}`)
	db := filepath.Join(t.TempDir(), "ctool.duckdb")
	rebuild(t, dir, db)
	s := newServer(t, Config{DB: db})
	for lang, want := range map[string][]string{
		"ja": {`<th scope="row">日曜</th><td>10:00–20:00</td></tr><tr><th scope="row">祝日</th><td>11:00–18:00</td>`, "2025-10-04</time> 設備点検: ", "2026-01-01</time> 休業: 元日休業"},
		"en": {`<th scope="row">Holidays</th><td>11:00–18:00</td>`, "2026-01-01</time> closed: 元日休業"},
	} {
		page := body(t, get(t, s, "/stores/record?store_id=STR-0001", "Accept-Language", lang))
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the record has no %s", lang, w)
			}
		}
	}
}
