package ctool_test

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/azabudai/ctool"

// packageRow is a row of docs/architecture.md's table of packages: | `pkg` | its job | `a`, `b` |.
var packageRow = regexp.MustCompile("^\\| `([^`]+)` \\| (.+) \\| (.*) \\|$")

// TestArchitectureMatchesTheCode: docs/architecture.md names every package of the module but bench's
// programs, each with its job, and the ctool packages each builds on are exactly those its non-test
// files import.
func TestArchitectureMatchesTheCode(t *testing.T) {
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		m := packageRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var on []string
		for _, f := range strings.Split(m[3], ",") {
			if f = strings.Trim(strings.TrimSpace(f), "`"); f != "" && f != "—" {
				on = append(on, f)
			}
		}
		sort.Strings(on)
		if _, dup := doc[m[1]]; dup {
			t.Errorf("docs/architecture.md names %s twice", m[1])
		}
		if strings.TrimSpace(m[2]) == "" {
			t.Errorf("docs/architecture.md gives %s no job", m[1])
		}
		doc[m[1]] = on
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	code := map[string][]string{}
	for _, p := range pkgs {
		name := short(p.PkgPath)
		if name == "bench" || strings.HasPrefix(name, "bench/") {
			continue
		}
		on := []string{}
		for path := range p.Imports {
			if path == module || strings.HasPrefix(path, module+"/") {
				on = append(on, short(path))
			}
		}
		sort.Strings(on)
		code[name] = on
	}
	var suggest []string
	for name, on := range code {
		want, ok := doc[name]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md does not name the package %s", name)
		case !slices.Equal(want, on):
			t.Errorf("docs/architecture.md says %s builds on %v; its code imports %v", name, want, on)
		default:
			continue
		}
		quoted := make([]string, len(on))
		for i, o := range on {
			quoted[i] = "`" + o + "`"
		}
		suggest = append(suggest, "| `"+name+"` | … | "+strings.Join(quoted, ", ")+" |")
	}
	for name := range doc {
		if _, ok := code[name]; !ok {
			t.Errorf("docs/architecture.md names %s, which is no package", name)
		}
	}
	if len(suggest) > 0 {
		sort.Strings(suggest)
		t.Logf("rows as the code has them:\n%s", strings.Join(suggest, "\n"))
	}
}

// short is a package's path in the module ("internal/guard"), "ctool" for the module's root.
func short(path string) string {
	if path == module {
		return "ctool"
	}
	return strings.TrimPrefix(path, module+"/")
}

// Sizes a reader can hold in mind: no non-test Go file over maxFileLines lines, no package over
// maxPackageLines lines of non-test Go (bench's programs aside, like the table above).
const (
	maxFileLines    = 450
	maxPackageLines = 3500
)

func TestFileAndPackageSizes(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if name := short(p.PkgPath); name == "bench" || strings.HasPrefix(name, "bench/") {
			continue
		}
		total := 0
		for _, f := range append(append([]string{}, p.GoFiles...), p.IgnoredFiles...) {
			if strings.HasSuffix(f, "_test.go") || !strings.HasSuffix(f, ".go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(string(b), "\n")
			total += n
			if n > maxFileLines {
				t.Errorf("%s has %d lines, more than %d: split it by what its parts do", f, n, maxFileLines)
			}
		}
		if total > maxPackageLines {
			t.Errorf("%s has %d lines of non-test Go, more than %d: it does more than one job", p.PkgPath, total, maxPackageLines)
		}
	}
}
