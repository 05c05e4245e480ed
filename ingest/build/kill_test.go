package build_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/azabudai/ctool/ingest/build"
	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
)

// The child process of TestKilledAtEveryStep: the test binary started again with these variables set.
const (
	killStepEnv  = "CTOOL_TEST_KILL_AT_STEP"
	killInputEnv = "CTOOL_TEST_KILL_INPUT"
	killDBEnv    = "CTOOL_TEST_KILL_DB"
	killedStatus = 137 // as a shell reports a process ended by SIGKILL
)

func TestMain(m *testing.M) {
	if step := os.Getenv(killStepEnv); step != "" {
		ingestUntilKilled(step, os.Getenv(killInputEnv), os.Getenv(killDBEnv))
	}
	os.Exit(m.Run())
}

// ingestUntilKilled runs an ingest that ends the process at the named step, as kill -9 would: at once,
// with no deferred function run and nothing cleaned up. Status 3 says the step was never reached.
func ingestUntilKilled(step, input, db string) {
	opts := build.Options{Step: func(name string) {
		if name == step {
			os.Exit(killedStatus)
		}
	}}
	_, err := build.Run(context.Background(), input, db, opts)
	fmt.Fprintf(os.Stderr, "the ingest ended without reaching step %q: %v\n", step, err)
	os.Exit(3)
}

// buildSteps are the steps of a build in order; stepCommitted is the first after which the new build
// is the one readers open.
var buildSteps = []string{
	build.StepCreated, build.StepLoaded, build.StepChecked, build.StepClosed,
	build.StepProfilesRenamed, build.StepProfilesSynced,
	build.StepCommitted, build.StepSynced, build.StepCleaned,
}

// buildState is what a build holds, as a reader finds it through the main file.
type buildState struct {
	id, profilesFile           string
	products, profiles         int64
	mainSum, profilesSum       [32]byte
	profilesBuildID, buildTime string
}

// readBuild opens the main file read-only, as a reader does, and the profiles file its build record
// names, and closes both before it returns.
func readBuild(t *testing.T, dbPath string) buildState {
	t.Helper()
	ctx := context.Background()
	var st buildState
	main, err := database.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	info := main.Build
	st.id, st.buildTime = info[database.BuildID], info[database.BuildTime]
	st.profilesFile = filepath.Join(filepath.Dir(dbPath), info[database.BuildProfiles])
	st.products = countOf(t, main.File, guard.Const(`SELECT count(*) FROM products`))
	profiles, err := main.Profiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.profiles = countOf(t, profiles, guard.Const(`SELECT count(*) FROM profiles`))
	st.profilesBuildID = profiles.Build[database.BuildID]
	if st.profilesBuildID != st.id {
		t.Errorf("the main file is build %s but its profiles file %s is build %s", st.id, st.profilesFile, st.profilesBuildID)
	}
	st.mainSum = fileSum(t, dbPath)
	st.profilesSum = fileSum(t, st.profilesFile)
	return st
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An ingest killed after any step of its build (a child process that ends itself there, like kill -9:
// no timing involved) leaves what a kill must: before the commit point the previous build byte for
// byte, still answering with its own profiles; from the commit point on, the new build whole. In
// every case the next ingest succeeds and leaves no temporary file and only its own and the previous
// build's profiles files.
func TestKilledAtEveryStep(t *testing.T) {
	oldInput := ingesttest.SampleInput(t)
	newInput := bigInput(t, 10) // ten more products
	if err := os.Remove(filepath.Join(newInput, "narrative_data_2.csv")); err != nil {
		t.Fatal(err) // and fewer profiles
	}

	// A normal build passes every step once, in order: a step added to the build must be added here.
	var seen []string
	scratch := filepath.Join(t.TempDir(), "ctool.duckdb")
	if _, err := build.Run(context.Background(), oldInput, scratch, build.Options{Step: func(name string) { seen = append(seen, name) }}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, buildSteps) {
		t.Fatalf("a build passes the steps %q, want %q", seen, buildSteps)
	}

	// The database every case starts from: two builds of the old input, so that a profiles file older
	// than the previous build's is there to be cleaned up.
	template := filepath.Dir(ingesttest.Build(t, oldInput))
	ingesttest.Rebuild(t, oldInput, filepath.Join(template, "ctool.duckdb"))
	if n := len(glob(t, filepath.Join(template, "ctool.profiles-*.duckdb"))); n != 2 {
		t.Fatalf("the template has %d profiles files, want 2", n)
	}

	for i, step := range buildSteps {
		committed := i >= slices.Index(buildSteps, build.StepCommitted)
		t.Run(step, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			ingesttest.CopyDir(t, template, dir, nil)
			db := filepath.Join(dir, "ctool.duckdb")
			old := readBuild(t, db)

			child := exec.Command(os.Args[0], "-test.run=^$")
			child.Env = append(os.Environ(), killStepEnv+"="+step, killInputEnv+"="+newInput, killDBEnv+"="+db)
			out, err := child.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != killedStatus {
				t.Fatalf("the child was not killed at %s: %v\n%s", step, err, out)
			}

			now := readBuild(t, db)
			if !committed {
				if now.mainSum != old.mainSum || now.profilesFile != old.profilesFile || now.profilesSum != old.profilesSum {
					t.Errorf("killed before the commit point, yet the old build changed: %+v, was %+v", now, old)
				}
				if now.products != old.products || now.profiles != old.profiles {
					t.Errorf("the old build answers %d products and %d profiles, was %d and %d", now.products, now.profiles, old.products, old.profiles)
				}
			} else {
				if now.id == old.id || now.profilesFile == old.profilesFile {
					t.Errorf("killed after the commit point, yet the main file is still the old build %s", old.id)
				}
				if now.products != old.products+10 || now.profiles >= old.profiles {
					t.Errorf("the new build answers %d products and %d profiles; the old had %d and %d", now.products, now.profiles, old.products, old.profiles)
				}
				if _, err := os.Stat(old.profilesFile); err != nil {
					t.Errorf("the old build's profiles file is gone, under a reader that may hold the old main file: %v", err)
				}
			}

			ingesttest.Rebuild(t, newInput, db)
			next := readBuild(t, db)
			if left := append(glob(t, filepath.Join(dir, "*.tmp-*")), glob(t, filepath.Join(dir, "*.wal"))...); len(left) > 0 {
				t.Errorf("the next ingest left temporary files: %v", left)
			}
			profiles := glob(t, filepath.Join(dir, "ctool.profiles-*.duckdb"))
			want := []string{next.profilesFile, now.profilesFile}
			slices.Sort(want)
			if !slices.Equal(profiles, want) {
				t.Errorf("after the next ingest the profiles files are %v, want the current and the previous build's %v", profiles, want)
			}
		})
	}
}
