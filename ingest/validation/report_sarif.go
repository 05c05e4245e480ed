package validation

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/azabudai/ctool/internal/escape"
	"github.com/azabudai/ctool/internal/textout"
)

// sarifData is the one place data passes on its way into SARIF; it stays exact, as in --format json:
// encoding/json and escape.JSON escape it.
func sarifData(s string) string { return s }

// SARIF 2.1.0, the parts code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool      `json:"tool"`
	Results    []sarifResult  `json:"results"`
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	FullDescription      sarifMessage `json:"fullDescription"`
	Help                 sarifHelp    `json:"help"`
	HelpURI              string       `json:"helpUri"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

// sarifHelp is a rule's help, as text and as Markdown (a multiformatMessageString).
type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId,omitempty"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// sarifInformationURI is the tool's page: ctool in CI, where every rule word has its section.
const sarifInformationURI = RulesDoc

// toolVersion is ctool's version as the reports name it: the one the command passed
// (Options.Version), else the one Go recorded in the binary (a go install of a tagged version), else
// "dev", as ctool --version says of a build without one.
func toolVersion(v string) string {
	if v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// sarifRuleOf describes a rule as code scanning shows it: a short and a full description, the help
// as text and Markdown, and the rule's section of the docs.
func sarifRuleOf(rule RuleInfo) sarifRule {
	sr := sarifRule{ID: rule.Rule, Name: rule.Rule, ShortDescription: sarifMessage{rule.Short},
		FullDescription: sarifMessage{rule.Description}, HelpURI: rule.HelpURI()}
	sr.Help.Text = rule.Help + " See " + rule.HelpURI()
	sr.Help.Markdown = fmt.Sprintf("%s\n\n%s\n\n[The rule %s in ctool's docs](%s)", markdownCell(rule.Description), markdownCell(rule.Help),
		markdownCell(rule.Rule), rule.HelpURI())
	sr.DefaultConfiguration.Level = "error"
	if rule.Warning {
		sr.DefaultConfiguration.Level = "warning"
	}
	return sr
}

// writeSARIF writes one result per problem kept, each located in its file relative to the
// repository root (the directory holding .git above the working directory; else the working
// directory), at the line of the cell (see Problem.Line) and column 1: the column's name leads the message.
func (r *Report) writeSARIF(w io.Writer) error {
	driver := sarifDriver{Name: "ctool validate", Version: toolVersion(r.Version), InformationURI: sarifInformationURI}
	index := map[string]int{}
	for i, rule := range Rules() {
		driver.Rules = append(driver.Rules, sarifRuleOf(rule))
		index[rule.Rule] = i
	}
	root, base := repoRoot()
	results := []sarifResult{}
	for _, p := range r.Problems {
		msg := p.described()
		if p.Column != "" {
			msg = p.Column + ": " + msg
		}
		res := sarifResult{RuleID: p.Rule, RuleIndex: index[p.Rule], Level: "error", Message: sarifMessage{sarifData(msg)}}
		if p.Warning() {
			res.Level = "warning"
		}
		var loc sarifLocation
		loc.PhysicalLocation.ArtifactLocation.URI = sarifURI(p.File, root)
		loc.PhysicalLocation.ArtifactLocation.URIBaseID = base
		loc.PhysicalLocation.Region.StartLine = max(p.Line, 1)
		loc.PhysicalLocation.Region.StartColumn = 1
		res.Locations = []sarifLocation{loc}
		results = append(results, res)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: results}
	if r.Comparison != nil {
		run.Properties = map[string]any{"comparison": r.Comparison}
	}
	var buf bytes.Buffer
	if err := textout.JSON(&buf, sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(buf.Bytes())) // exact JSON, the characters JSON allows raw as \u escapes
	return err
}

// repoRoot is the directory file locations are relative to, and its SARIF base id: the repository
// root (%SRCROOT%, which code scanning resolves to the checkout) or, outside a repository, the working
// directory (no base id).
func repoRoot() (string, string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, "%SRCROOT%"
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd, ""
		}
		dir = parent
	}
}

// relativeTo is a file's path relative to root ("" leaves it as it is), with slashes.
func relativeTo(file, root string) string {
	if root != "" {
		abs, err := filepath.Abs(file)
		if err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil {
				file = rel
			}
		}
	}
	return filepath.ToSlash(file)
}

// sarifURI is a file's path relative to root as a URI reference: slashes, each segment escaped.
func sarifURI(file, root string) string {
	segments := strings.Split(relativeTo(file, root), "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	return strings.Join(segments, "/")
}
