package validation

// The GitHub example's shell: every run: script parses (bash -n), actionlint passes the file where it
// is installed, and the step that fetches the published build takes its fallback when gh fails, under
// the shell GitHub runs a step in (bash -e -o pipefail). cmd/ctool's TestCIExample runs its ctool lines.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const githubExample = "../../docs/examples/ci/github-actions.yml"

// exampleSteps reads the GitHub example's steps with a run: script, by name.
func exampleSteps(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(githubExample)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	steps := map[string]string{}
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			if s.Run != "" {
				steps[job+"/"+s.Name] = s.Run
			}
		}
	}
	return steps
}

func TestGitHubExampleParses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for name, script := range exampleSteps(t) {
		cmd := exec.Command(bash, "-n", "-c", script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("step %s does not parse: %v\n%s", name, err, out)
		}
	}
	if lint, err := exec.LookPath("actionlint"); err == nil {
		if out, err := exec.Command(lint, githubExample).CombinedOutput(); err != nil {
			t.Errorf("actionlint: %v\n%s", err, out)
		}
	} else {
		t.Log("actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@latest")
	}
}

// TestGitHubExampleFallsBack runs the step that fetches the published build with stand-ins for gh,
// git, tar and ctool: a gh that fails takes the fallback (a build of main's input/), as does a gh that
// finds no run; a gh that finds one downloads it.
func TestGitHubExampleFallsBack(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var script string
	for name, s := range exampleSteps(t) {
		if strings.Contains(s, "gh run list") {
			script = s
			t.Logf("step %s", name)
		}
	}
	if script == "" {
		t.Fatal("no step runs gh run list")
	}
	tests := []struct {
		name, gh string
		fallback bool
	}{
		{"gh fails", `echo "gh: HTTP 401: Bad credentials" >&2; exit 1`, true},
		{"no run yet", `exit 0`, true},
		{"a run", `[ "$2" = list ] && echo 4242; exit 0`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			bin := filepath.Join(work, "fake")
			calls := filepath.Join(work, "calls")
			for name, body := range map[string]string{
				"gh":  `echo "gh $*" >> "$CALLS"; ` + tt.gh,
				"git": `echo "git $*" >> "$CALLS"`,
				"tar": `cat > /dev/null`,
			} {
				writeScript(t, filepath.Join(bin, name), body)
			}
			writeScript(t, filepath.Join(work, "bin", "ctool"), `echo "ctool $*" >> "$CALLS"`)
			cmd := exec.Command(bash, "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CALLS="+calls, "GITHUB_WORKFLOW=data")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the step failed: %v\n%s", err, out)
			}
			log, _ := os.ReadFile(calls)
			built := strings.Contains(string(log), "ctool ingest --input base/input --db published/ctool.duckdb")
			if built != tt.fallback {
				t.Errorf("built from main's input/: %v, want %v\noutput:\n%s\ncalls:\n%s", built, tt.fallback, out, log)
			}
			if !tt.fallback && !strings.Contains(string(log), "gh run download 4242") {
				t.Errorf("the run found was not downloaded:\n%s", log)
			}
		})
	}
}

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
