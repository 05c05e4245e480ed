package profile_test

import (
	"context"
	"errors"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/profile"
)

func TestFind(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	defer live.Close()
	tests := []struct {
		name, source, pinned, id string
		want                     string     // profile_id found
		kind                     fault.Kind // or the error's kind
		msg                      string
	}{
		{"found", "", "", "user_criollo_heavy", "user_criollo_heavy", "", ""},
		{"other source", "narrative_data_2.csv", "", "user_diverse_frequent", "user_diverse_frequent", "", ""},
		{"not in this source", "narrative_data_2.csv", "", "user_criollo_heavy", "", fault.KindNotFound, "ユーザーが見つかりません: user_criollo_heavy"},
		{"no id", "", "", "", "", fault.KindUsage, "profile_idを指定してください"},
		{"blank id", "", "", " \t", "", fault.KindUsage, "profile_idを指定してください"},
		{"unknown", "", "", "nobody", "", fault.KindNotFound, "ユーザーが見つかりません: nobody"},
		{"no pattern matching", "", "", "user_%", "", fault.KindNotFound, "ユーザーが見つかりません: user_%"},
		{"pinned", "", "user_criollo_heavy", "user_criollo_heavy", "user_criollo_heavy", "", ""},
		{"pinned to another", "", "user_criollo_heavy", "user_business", "", fault.KindNotFound, "ユーザーが見つかりません: user_business"},
		{"source not ingested", "narrative_data_9.csv", "", "user_criollo_heavy", "", fault.KindUsage,
			"no profiles were ingested from narrative_data_9.csv (NARRATIVE_DATA_FILE); run 'ctool ingest' with that file in the input directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pin []string
			if tt.pinned != "" {
				pin = append(pin, tt.pinned)
			}
			f, err := profile.NewFinder(live, tt.source, pin...)
			if err != nil {
				t.Fatal(err)
			}
			p, err := f.Find(context.Background(), tt.id)
			var ce *fault.Error
			switch {
			case tt.want != "" && (err != nil || p.ProfileID != tt.want):
				t.Fatalf("got %+v, %v; want %s", p, err, tt.want)
			case tt.want == "" && (!errors.As(err, &ce) || ce.Kind != tt.kind || ce.Message != tt.msg):
				t.Fatalf("got %+v, %v; want %s error %q", p, err, tt.kind, tt.msg)
			}
		})
	}
}

// A pin that is given is checked as an id is: empty or blank is a usage error, never "no pin" (which
// would serve every profile).
func TestNewFinderRefusesEmptyPin(t *testing.T) {
	for _, pin := range []string{"", " ", "\t\n"} {
		var ce *fault.Error
		if f, err := profile.NewFinder(nil, "", pin); !errors.As(err, &ce) || ce.Kind != fault.KindUsage || f != nil {
			t.Errorf("pin %q: got %v, %v; want a usage error", pin, f, err)
		}
	}
	if _, err := profile.NewFinder(nil, "", "a", "b"); err == nil {
		t.Error("two pins were accepted")
	}
}

func TestCheckSource(t *testing.T) {
	for _, ok := range []string{"", "narrative_data.csv", "narrative_data_2.csv"} {
		if _, err := profile.CheckSource(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"../input/narrative_data.csv", "/etc/passwd", "events.csv", "narrative_data*.csv", "./narrative_data.csv", "narrative_data?.csv"} {
		var ce *fault.Error
		if _, err := profile.CheckSource(bad); !errors.As(err, &ce) || ce.Kind != fault.KindUsage {
			t.Errorf("%q: got %v, want a usage error", bad, err)
		}
	}
}

// An id absent from the profiles file in use gets the same answer whether or not another ingested file
// has it: the file that was read and that NARRATIVE_DATA_FILE selects another, nothing of the others.
func TestFindNotFoundNamesTheFileOnly(t *testing.T) {
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	defer live.Close()
	f, err := profile.NewFinder(live, "narrative_data_2.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := "profiles are read from narrative_data_2.csv only (NARRATIVE_DATA_FILE); set NARRATIVE_DATA_FILE where ctool runs to read another ingested narrative_data*.csv"
	// user_criollo_heavy is in narrative_data.csv; nobody is in no file.
	for _, id := range []string{"user_criollo_heavy", "nobody"} {
		_, err := f.Find(context.Background(), id)
		var ce *fault.Error
		if !errors.As(err, &ce) || ce.Kind != fault.KindNotFound || ce.Message != profile.MsgNotFound+id || ce.Hint != want {
			t.Errorf("%s: %#v, want not_found with the hint %q", id, err, want)
		}
	}
	// Answering an agent, it says what the agent can do: check the id with the visitor.
	agent := *f
	agent.ForAgent = true
	for _, id := range []string{"user_criollo_heavy", "nobody"} {
		_, err := agent.Find(context.Background(), id)
		var ce *fault.Error
		if !errors.As(err, &ce) || ce.Kind != fault.KindNotFound || ce.Message != profile.MsgNotFound+id || ce.Hint != profile.HintCheckID {
			t.Errorf("for an agent, %s: %#v, want not_found with the hint %q", id, err, profile.HintCheckID)
		}
	}
	// Pinned to a signed-in user, who chooses no id, it has no hint, for an agent or not.
	pinned, err := profile.NewFinder(live, "narrative_data_2.csv", "user_criollo_heavy")
	if err != nil {
		t.Fatal(err)
	}
	for _, forAgent := range []bool{false, true} {
		pinned.ForAgent = forAgent
		for _, id := range []string{"user_criollo_heavy", "nobody"} {
			_, err := pinned.Find(context.Background(), id)
			var ce *fault.Error
			if !errors.As(err, &ce) || ce.Kind != fault.KindNotFound || ce.Hint != "" {
				t.Errorf("pinned (for an agent: %v), %s: %#v, want not_found without a hint", forAgent, id, err)
			}
		}
	}
}

// A server without profiles (a followed build) answers every lookup the same, and opens nothing: the
// build below has no profiles file at all.
func TestFindWithoutProfiles(t *testing.T) {
	live := database.NewLive(t.TempDir() + "/nowhere.duckdb")
	defer live.Close()
	f, err := profile.NewFinder(live, "")
	if err != nil {
		t.Fatal(err)
	}
	f.None = true
	for _, id := range []string{"user_criollo_heavy", "nobody"} {
		_, err := f.Find(context.Background(), id)
		var ce *fault.Error
		if !errors.As(err, &ce) || ce.Kind != fault.KindNotFound || ce.Message != profile.MsgNoProfiles || ce.Hint != profile.HintNoProfiles {
			t.Errorf("Find(%q) without profiles: %v", id, err)
		}
	}
}
