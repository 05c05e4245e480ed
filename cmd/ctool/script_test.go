package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update the golden output in testdata/script")

func TestMain(m *testing.M) {
	cmds := map[string]func(){
		"ctool": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	}
	for name, f := range scriptCommands { // test-only helpers, in scriptcmds_test.go
		cmds[name] = f
	}
	testscript.Main(m, cmds)
}

// TestScripts runs the end-to-end scripts in testdata/script against the real command.
// $INPUT is the repository's sample data and $SEEDS the design documents, when present.
func TestScripts(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			env.Setenv("INPUT", filepath.Join(root, "input"))
			env.Setenv("REPO", root)
			env.Setenv("SEEDS", filepath.Join(root, "..", "shared", "seeds"))
			env.Setenv("NARRATIVE_DATA_FILE", "")
			env.Setenv("CTOOL_DB", "")
			// The contracts' "today": the sample events are from 2025; no script may depend on the real date.
			env.Setenv("CTOOL_TODAY", "2025-09-01")
			env.Setenv("GITHUB_STEP_SUMMARY", "")
			return nil
		},
	})
}
