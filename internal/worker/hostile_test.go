package worker

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/schema"
)

// The whole hostile corpus, in this process, through the guard and the engine as a worker of ctool
// mcp opens it (openEngine, one thread, shapes learned): every case is refused or fails as a query,
// says why, shows no profile, and leaves the build's files and directory as they were. The end-to-end
// tests send a sample of it through real processes (cmd/ctool's testHostile).
func TestHostileCorpusInProcess(t *testing.T) {
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	dir := filepath.Dir(path)
	profiles, _ := filepath.Glob(filepath.Join(dir, "ctool.profiles-*.duckdb"))
	if len(profiles) != 1 {
		t.Fatalf("profiles files beside the build: %v", profiles)
	}
	out := t.TempDir()
	cases := guardtest.Hostile(out, profiles[0])
	if len(cases) < 60 {
		t.Fatalf("only %d hostile cases", len(cases))
	}
	leaks := append(ingesttest.ProfileIDs(t, input), "root:x:0:0")
	before := dirDigest(t, dir)

	live, engine := openEngine(Options{DB: path, Threads: 1, LearnShapes: true})
	defer live.Close()
	datasets := []*schema.Dataset{schema.Events, schema.Stores, schema.Products}
	for i, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			res, err := engine.Query(context.Background(), datasets[i%3], tc.SQL)
			if err == nil {
				b, _ := json.Marshal(res)
				t.Fatalf("ran: %.300s", b)
			}
			var fe *fault.Error
			if !errors.As(fault.Explain(err), &fe) {
				t.Fatalf("not an error for people: %v", err)
			}
			switch fe.Kind {
			case fault.KindRefused, fault.KindSQL, fault.KindTimeout, fault.KindTooLarge:
			default:
				t.Fatalf("kind %s is not one of a failed query's: %v", fe.Kind, fe)
			}
			text := fe.Message + " " + fe.Hint
			if !strings.Contains(strings.ToLower(text), strings.ToLower(tc.Want)) {
				t.Errorf("the error does not mention %q: %s", tc.Want, text)
			}
			for _, leak := range leaks {
				if strings.Contains(text, leak) {
					t.Errorf("the error shows %q: %s", leak, text)
				}
			}
		})
	}
	if after := dirDigest(t, dir); after != before {
		t.Errorf("the build's directory changed during the corpus:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
		t.Errorf("a case wrote into %s: %v %v", out, entries, err)
	}
}

// dirDigest lists each file of dir with its size and sha256.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %x\n", e.Name(), len(data), sha256.Sum256(data))
	}
	return b.String()
}
