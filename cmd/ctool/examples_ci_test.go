package main

// The CI examples of docs/examples/ci run as written: each parses as its service reads it, has the steps
// docs/ci.md promises, and every ctool command line of its scripts runs on the sample data in a
// directory laid out as the job's checkout is, in the order the file gives.

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const ciExamples = "../../docs/examples/ci"

// ghWorkflow is what the test reads of a GitHub Actions workflow.
type ghWorkflow struct {
	On   map[string]any `yaml:"on"`
	Jobs yaml.Node      `yaml:"jobs"` // a node, to keep the jobs' order
}

type ghJob struct {
	If          string            `yaml:"if"`
	Needs       any               `yaml:"needs"`
	RunsOn      string            `yaml:"runs-on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Steps       []struct {
		Name string            `yaml:"name"`
		If   string            `yaml:"if"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	} `yaml:"steps"`
}

// glJob is what the test reads of a GitLab CI job.
type glJob struct {
	Stage     string   `yaml:"stage"`
	Script    []string `yaml:"script"`
	Artifacts struct {
		Paths   []string          `yaml:"paths"`
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

func TestCIExampleGitHubActions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(ciExamples, "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	for _, trigger := range []string{"pull_request", "push"} {
		if _, ok := wf.On[trigger]; !ok {
			t.Errorf("the workflow is not run on %s", trigger)
		}
	}
	uses := map[string]map[string]any{} // action (without its version) → its with:
	var scripts []string
	if wf.Jobs.Kind != yaml.MappingNode {
		t.Fatal("jobs: is not a mapping")
	}
	for i := 0; i+1 < len(wf.Jobs.Content); i += 2 {
		name := wf.Jobs.Content[i].Value
		var job ghJob
		if err := wf.Jobs.Content[i+1].Decode(&job); err != nil {
			t.Fatalf("job %s: %v", name, err)
		}
		if job.RunsOn == "" {
			t.Errorf("job %s has no runs-on", name)
		}
		for _, s := range job.Steps {
			if s.Uses != "" {
				action, _, _ := strings.Cut(s.Uses, "@")
				uses[action] = s.With
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("job %s, step %q: an expression inside run: (pass it through env:)", name, s.Name)
			}
			if s.Run != "" {
				scripts = append(scripts, s.Run)
			}
		}
		if name == "validate" && job.Permissions["security-events"] != "write" {
			t.Error("the validate job cannot upload SARIF: it needs permissions: security-events: write")
		}
	}
	for _, action := range []string{"actions/checkout", "actions/setup-go", "github/codeql-action/upload-sarif", "actions/upload-artifact"} {
		if _, ok := uses[action]; !ok {
			t.Errorf("no step uses %s", action)
		}
	}
	if uses["actions/setup-go"]["go-version-file"] != "go.mod" {
		t.Error("setup-go does not read the Go version from go.mod")
	}
	if uses["github/codeql-action/upload-sarif"]["sarif_file"] != "ctool.sarif" {
		t.Error("upload-sarif does not upload ctool.sarif")
	}
	work := ciWorkdir(t)
	summary := filepath.Join(work, "summary.md")
	runCtoolLines(t, work, scripts, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_WORKFLOW=data", "CTOOL_STORE=file://"+filepath.Join(work, "store"))
	wantPublished(t, work)

	var sarif struct {
		Version string
		Runs    []json.RawMessage
	}
	if b, err := os.ReadFile(filepath.Join(work, "ctool.sarif")); err != nil || json.Unmarshal(b, &sarif) != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 {
		t.Errorf("ctool.sarif is not one SARIF 2.1.0 run (%v): %.200s", err, b)
	}
	if b, err := os.ReadFile(summary); err != nil || len(b) == 0 {
		t.Errorf("the job summary is empty (%v)", err)
	}

	// A broken line of a pull request: the annotation names its file and physical line.
	line := appendBrokenLine(t, filepath.Join(work, "input", "events.csv"))
	out, code := bashLine(t, work, "bin/ctool validate --input input --against published/ctool.duckdb --format github", "GITHUB_STEP_SUMMARY="+summary)
	want := "::error file=input/events.csv,line=" + line + ","
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("on a broken line: exit %d, want 1 and an annotation starting %q:\n%s", code, want, out)
	}
}

func TestCIExampleGitLab(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(ciExamples, "gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	top := doc.Content[0]
	var scripts []string
	jobs := map[string]glJob{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		name := top.Content[i].Value
		switch name {
		case "workflow", "stages", "default", "variables", "include":
			continue
		}
		var job glJob
		if err := top.Content[i+1].Decode(&job); err != nil {
			t.Fatalf("job %s: %v", name, err)
		}
		if len(job.Script) == 0 {
			t.Errorf("job %s has no script", name)
		}
		jobs[name] = job
		scripts = append(scripts, strings.Join(job.Script, "\n"))
	}
	if r := jobs["validate-data"].Artifacts.Reports["junit"]; r != "ctool-junit.xml" {
		t.Errorf("validate-data reports %q as JUnit, want ctool-junit.xml", r)
	}
	if p := jobs["publish-data"].Artifacts.Paths; len(p) != 1 || p[0] != "ctool-build.tar.gz" {
		t.Errorf("publish-data publishes %q, want ctool-build.tar.gz", p)
	}
	work := ciWorkdir(t)
	runCtoolLines(t, work, scripts, "CI_DEFAULT_BRANCH=main", "CTOOL_STORE=file://"+filepath.Join(work, "store"))
	wantPublished(t, work)
	if b, err := os.ReadFile(filepath.Join(work, "ctool-junit.xml")); err != nil || !strings.Contains(string(b), "<testsuites") {
		t.Errorf("ctool-junit.xml is not a JUnit report (%v): %.200s", err, b)
	}

	line := appendBrokenLine(t, filepath.Join(work, "input", "events.csv"))
	out, code := bashLine(t, work, "bin/ctool validate --input input --against published/ctool.duckdb --format junit")
	want := "events.csv:" + line + ":"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("on a broken line: exit %d, want 1 and a failure naming %q:\n%s", code, want, out)
	}
}

// ciWorkdir lays out a job's checkout: input/ and, for a first run with nothing published, the main
// branch's input/ in base/, both the sample data; bin/ctool is the real command.
func ciWorkdir(t *testing.T) string {
	t.Helper()
	ctool, err := exec.LookPath("ctool")
	if err != nil {
		t.Fatalf("ctool is not on PATH (TestMain's testscript.Main puts it there): %v", err)
	}
	work := t.TempDir()
	for _, dir := range []string{"input", "base/input"} {
		if err := os.CopyFS(filepath.Join(work, dir), os.DirFS("../../input")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ctool, filepath.Join(work, "bin", "ctool")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"published", "store"} { // store: the job's CTOOL_STORE, a directory here
		if err := os.MkdirAll(filepath.Join(work, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// wantPublished checks that the example published the build to its CTOOL_STORE, and nothing of the
// profiles.
func wantPublished(t *testing.T, work string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(work, "store", "latest")); err != nil {
		t.Errorf("the example publishes no build to CTOOL_STORE: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "store", "PROFILES")); err == nil {
		t.Error("the example publishes profiles to the builds' store")
	}
}

// ctoolLine matches a script line that runs ctool.
var ctoolLine = regexp.MustCompile(`^(bin/)?ctool\s`)

// runCtoolLines runs every ctool command line of the scripts, each with bash in work, and fails on any
// exit status but 0: the sample data is valid.
func runCtoolLines(t *testing.T, work string, scripts []string, env ...string) {
	t.Helper()
	n := 0
	for _, script := range scripts {
		script = strings.ReplaceAll(script, "\\\n", " ")
		sc := bufio.NewScanner(strings.NewReader(script))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if !ctoolLine.MatchString(line) {
				continue
			}
			n++
			if out, code := bashLine(t, work, line, env...); code != 0 {
				t.Errorf("%s\nexit %d:\n%s", line, code, out)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d ctool command lines, want the ingest, the comparison and the reports", n)
	}
}

// bashLine runs one script line with bash in work and returns its output and exit status. The contracts'
// "today" is fixed, as in the scripts of testdata/script.
func bashLine(t *testing.T, work, line string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-c", line)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CTOOL_DB=", "CTOOL_TODAY=2025-09-01", "NARRATIVE_DATA_FILE=", "GITHUB_STEP_SUMMARY=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		t.Fatalf("%s: %v", line, err)
	}
	return string(out), 0
}

// appendBrokenLine adds a record with too few fields to a CSV file and returns its physical line number.
func appendBrokenLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	line := strings.Count(string(b), "\n") + 1
	if err := os.WriteFile(path, append(b, "broken,row\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(line)
}
