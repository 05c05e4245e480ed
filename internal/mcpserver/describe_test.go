package mcpserver

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each session's instructions end with today in Tokyo, the day its build was made and the span of
// the build's event dates, read as the session starts: after an ingest of another place's data, the
// next session is told of the new build, while the server keeps running.
func TestInstructionsSayTheDates(t *testing.T) {
	input := filepath.Join(t.TempDir(), "in")
	ingesttest.CopyDir(t, ingesttest.SampleInput(t), input, nil)
	db := ingesttest.Build(t, input)
	built := builtAt(t, db)
	now := built.Add(3 * 24 * time.Hour)
	live := database.NewLive(db)
	t.Cleanup(live.Close)
	finder, err := profile.NewFinder(live, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(serverConfig{live: live, profiles: finder, timeout: 5 * time.Second, version: "test", now: func() time.Time { return now }})

	from, to := eventSpan(t, input)
	got := connect(t, srv).InitializeResult().Instructions
	want := "今日は " + day(now) + "（東京）。このデータは " + day(built) + " に作成（3日前）、イベントの日付は " + from + "〜" + to + "。\n"
	if !strings.HasSuffix(got, want) || !strings.HasPrefix(got, "麻布台ヒルズ周辺の店舗・イベント・商品のデータ") {
		t.Errorf("instructions:\n%s\nwant them to start with the place and end with\n%s", got, want)
	}
	if from == "" || to == "" {
		t.Fatal("the sample has no event dates")
	}

	other := filepath.Join(t.TempDir(), "other")
	ingesttest.CopyDir(t, input, other, func(name string, data []byte) []byte {
		switch name {
		case "place.json":
			return []byte(`{"name": "横浜ベイコート", "name_en": "Yokohama Bay Court"}`)
		case "events.csv":
			return []byte(strings.ReplaceAll(string(data), "2025-", "2031-"))
		}
		return data
	})
	ingesttest.Rebuild(t, other, db)
	rebuilt := builtAt(t, db)
	now = rebuilt
	from2, to2 := eventSpan(t, other)
	got = connect(t, srv).InitializeResult().Instructions
	want = "今日は " + day(now) + "（東京）。このデータは " + day(rebuilt) + " に作成（今日）、イベントの日付は " + from2 + "〜" + to2 + "。\n"
	if !strings.HasSuffix(got, want) || !strings.HasPrefix(got, "横浜ベイコート周辺の店舗") || strings.Contains(got, "麻布台") {
		t.Errorf("instructions after an ingest:\n%s\nwant them to name the new place and end with\n%s", got, want)
	}
	if from2+to2 == from+to {
		t.Errorf("the new build's events span %s〜%s as the old one's", from2, to2)
	}
}

// Without a build the instructions name no place and say today alone.
func TestInstructionsWithoutABuild(t *testing.T) {
	got := connect(t, newTestServer(t, "/nonexistent/ctool.duckdb")).InitializeResult().Instructions
	if !strings.HasPrefix(got, "店舗・イベント・商品のデータ") || !strings.HasSuffix(got, "\n\n今日は 2026-11-29（東京）。\n") {
		t.Errorf("instructions without a build:\n%s", got)
	}
	if want := Instructions(false, query.Facts{}, testNow()); got != want {
		t.Errorf("instructions %q, want %q", got, want)
	}
}

// The 2026-07-28 protocol's server/discover carries the instructions too; a build that cannot be read
// leaves its facts out, and the place of the build the tools describe stands in.
func TestDiscoverGetsTheSessionsInstructions(t *testing.T) {
	live := database.NewLive("/nonexistent/ctool.duckdb")
	t.Cleanup(live.Close)
	place := schema.Place{Name: "横浜ベイコート"}
	mw := sessionInstructions(serverConfig{timeout: time.Second, now: testNow}, query.NewEngine(live), place)
	discover := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.DiscoverResult{}, nil })
	res, err := discover(context.Background(), "server/discover", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.(*mcp.DiscoverResult).Instructions, Instructions(false, query.Facts{Place: place}, testNow()); got != want {
		t.Errorf("discover's instructions:\n%s\nwant\n%s", got, want)
	}
}

// builtAt is the build time the record of the build at db holds.
func builtAt(t *testing.T, db string) time.Time {
	t.Helper()
	b, err := database.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	at, err := time.Parse(time.RFC3339, b.Build[database.BuildTime])
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// eventSpan is the earliest and the latest date of the date_time cells of input's events.csv.
func eventSpan(t *testing.T, input string) (from, to string) {
	t.Helper()
	f, err := os.Open(filepath.Join(input, "events.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, name := range recs[0] {
		if strings.TrimPrefix(name, "\ufeff") == "date_time" {
			col = i
		}
	}
	for _, r := range recs[1:] {
		first, last, _ := strings.Cut(r[col], "/")
		if last == "" {
			last = first
		}
		if from == "" || first < from {
			from = first
		}
		if last > to {
			to = last
		}
	}
	return from, to
}

func day(t time.Time) string { return t.In(schema.Tokyo).Format(time.DateOnly) }
