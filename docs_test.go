package ctool_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is a front door: at most maxREADMELines lines, and every page under docs/ is reachable
// from it. Every relative link of the README and of the pages leads to a file that exists, and every
// #anchor to one of its headings.
const maxREADMELines = 200

func TestREADMEIsShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a page under docs/", n, maxREADMELines)
	}
	linked := map[string]bool{}
	for _, l := range links(string(b)) {
		linked[filepath.Clean(strings.SplitN(l.target, "#", 2)[0])] = true
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if !linked[p] {
			t.Errorf("README.md does not link %s", p)
		}
	}
}

func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "README.md", "bench/README.md", "bench/results/history.md")
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(b)) {
			path, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if path != "" {
				target = filepath.Join(filepath.Dir(page), path)
			}
			info, err := os.Stat(target)
			if err != nil {
				t.Errorf("%s:%d: %s: %v", page, l.line, l.target, err)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: %s: an anchor into what is not a page", page, l.line, l.target)
				continue
			}
			if !anchors(t, target)[anchor] {
				t.Errorf("%s:%d: %s: %s has no heading #%s", page, l.line, l.target, target, anchor)
			}
		}
	}
}

type link struct {
	target string
	line   int
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// links are a page's relative links, outside code blocks.
func links(page string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			if t := m[1]; !strings.Contains(t, "://") && !strings.HasPrefix(t, "mailto:") {
				out = append(out, link{t, i + 1})
			}
		}
	}
	return out
}

// anchors are the ids of a page's headings, as GitHub makes them: lower case, punctuation dropped,
// spaces as hyphens.
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var id strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				id.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				id.WriteRune(r)
			}
		}
		ids[id.String()] = true
	}
	return ids
}
