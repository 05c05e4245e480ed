package validation

import (
	"path/filepath"
	"slices"
	"sort"

	"github.com/azabudai/ctool/schema"
)

// count tallies a problem by file and rule, whether or not the report keeps it.
func (r *Report) count(p Problem) {
	if r.tally == nil {
		r.tally, r.errTally = map[string]map[string]int{}, map[string]map[string]int{}
	}
	if r.tally[p.File] == nil {
		r.tally[p.File], r.errTally[p.File] = map[string]int{}, map[string]int{}
	}
	r.tally[p.File][p.Rule]++
	if !p.Warning() {
		r.errTally[p.File][p.Rule]++
	}
}

// skip notes that rules that check file did not run, and why ("not run: …"); a reason noted first
// stands. The JUnit report shows them skipped rather than passed.
func (r *Report) skip(file, why string, rules ...string) {
	if r.skipped == nil {
		r.skipped = map[string]map[string]string{}
	}
	if r.skipped[file] == nil {
		r.skipped[file] = map[string]string{}
	}
	for _, rule := range rules {
		if _, noted := r.skipped[file][rule]; !noted {
			r.skipped[file][rule] = why
		}
	}
}

// recordRules are the rules that check a file's records, after its header: none runs when the header
// cannot be read.
var recordRules = []string{RuleRagged, RuleRequired, RuleType, RuleFormat, RuleEnum, RuleJSON, RuleDuplicateKey, RuleSchema,
	RuleHours, RuleInjection, RuleUnique, RuleReference, RuleVenue, schema.ContractUpcoming}

// skipAll notes every rule but the missing-file rule as not run for file.
func (r *Report) skipAll(file, why string) {
	for _, rule := range Rules() {
		if rule.Rule != RuleMissingFile {
			r.skip(file, why, rule.Rule)
		}
	}
}

// ByRule counts the problems of one file by rule word (every problem, also those past the cap).
func (r *Report) ByRule(file string) map[string]int { return r.tally[file] }

// FileSummary is one validated file as the reports name it.
type FileSummary struct {
	Path string `json:"path"`
	Rows int    `json:"rows"`
}

// problemFiles lists every file the report names: the files validated, then any other named by a
// problem (a missing file), in order.
func (r *Report) problemFiles() []string {
	var files []string
	for _, f := range r.Files {
		files = append(files, f.Path)
	}
	var extra []string
	for f := range r.tally {
		if !slices.Contains(files, f) {
			extra = append(extra, f)
		}
	}
	sort.Strings(extra)
	return append(files, extra...)
}

// isPlaceFile reports whether path names the place file.
func isPlaceFile(path string) bool { return filepath.Base(path) == PlaceFile }

// datasetOf names the dataset a file belongs to by its base name; "" for none.
func datasetOf(path string) *schema.Dataset {
	for _, d := range schema.All() {
		if d.MatchesFile(filepath.Base(path)) {
			return d
		}
	}
	return nil
}

// kept lists the problems the report kept of one file.
func (r *Report) kept(file string) []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.File == file {
			out = append(out, p)
		}
	}
	return out
}

// lostRows reports whether reading a file skipped records or whole parts of it, so that its rows
// cannot be compared with a previous build's.
func (r *Report) lostRows(file string) bool {
	for _, rule := range []string{RuleEncoding, RuleHeader, RuleRagged, RuleFormat} {
		if r.tally[file][rule] > 0 {
			return true
		}
	}
	return false
}

// addFirst adds problems ahead of those already kept: the contracts speak of the change as a whole,
// and must not be cut off by the cap behind a file's many problems.
func (r *Report) addFirst(ps []Problem) {
	kept := r.Problems
	r.Problems = nil
	for _, p := range ps {
		r.add(p)
	}
	for _, p := range kept {
		if r.Max != 0 && len(r.Problems) >= r.Max {
			break
		}
		r.Problems = append(r.Problems, p)
	}
}
