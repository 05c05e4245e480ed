package ctool_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/azabudai/ctool"
)

// The README's exit status table is the one generated from Kinds.
func TestREADMEExitStatuses(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- exit-statuses:begin -->\n", "<!-- exit-statuses:end -->"
	_, rest, ok := strings.Cut(string(b), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the %q and %q markers", begin, end)
	}
	if want := ctool.ExitStatusTable(); table != want {
		t.Errorf("README.md's exit status table is out of date; between the markers put:\n%s", want)
	}
}

func TestErrorJSON(t *testing.T) {
	tests := []struct {
		err  *ctool.Error
		want string
	}{
		{&ctool.Error{Kind: ctool.KindNotFound, Message: "ユーザーが見つかりません: <x>"}, `{"error":"ユーザーが見つかりません: <x>","kind":"not_found"}`},
		{&ctool.Error{Kind: ctool.KindNoDatabase, Message: "no usable ctool database", Hint: "ctool ingest"}, `{"error":"no usable ctool database","kind":"no_database","hint":"ctool ingest"}`},
	}
	for _, tt := range tests {
		b, err := tt.err.MarshalJSON()
		if err != nil || string(b) != tt.want {
			t.Errorf("got %s, %v; want %s", b, err, tt.want)
		}
		if !json.Valid(b) {
			t.Errorf("%s is not JSON", b)
		}
	}
}

func TestEveryKindHasOneStatus(t *testing.T) {
	seen := map[ctool.Kind]bool{}
	for _, k := range ctool.Kinds {
		if seen[k.Kind] || k.Status < 1 || k.Meaning == "" {
			t.Errorf("kind %q: listed twice, or without a status or meaning", k.Kind)
		}
		seen[k.Kind] = true
	}
	if ctool.KindUsage.Status() != 2 || ctool.KindNoDatabase.Status() != 3 || ctool.KindIO.Status() != 4 || ctool.KindRefused.Status() != 1 {
		t.Error("the documented statuses changed")
	}
}
