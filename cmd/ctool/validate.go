package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azabudai/ctool/ingest"
	"github.com/azabudai/ctool/ingest/validation"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/schema"
	"github.com/urfave/cli/v2"
)

// testToday, set only in test builds (today_test.go), fixes the contracts' "today": a test's result
// must not depend on the real date. A shipped ctool always uses the date in Tokyo.
var testToday func(c *cli.Context, getenv func(string) string) string

// testFlags are the validate flags only test builds have (today_test.go).
var testFlags []cli.Flag

func newValidateCommand(e *env) *cli.Command {
	cmd := &cli.Command{
		Name:  "validate",
		Usage: "check the CSV files in the input directory without building anything (for CI)",
		UsageText: "ctool validate [--input DIR] [--format " + bar(validation.Formats) + "] [--max-errors N]\n" +
			"               [--max-file-size SIZE] [--against DB|DIR [--max-removed PCT]] [--strict]",
		Description: "Checks every data file and reports every problem with its file, the line of the offending cell,\n" +
			"the column, a rule word and what was expected. Rule words: " + ruleWords() + ".\n" +
			"Only regular files are read: a link, FIFO, device or socket, or a file over --max-file-size, is a\n" +
			"'file' problem and nothing of it is read.\n" +
			"Contracts (rule words too): with --against, a dataset may not lose more than --max-removed of its\n" +
			"rows (removed), and a store_id that products or profiles still name may not disappear\n" +
			"(still-referenced); events must include one that ends today or later in Tokyo (upcoming: a\n" +
			"warning, an error with --strict). An event's venue that reads like a store must name one of the\n" +
			"stores file (venue: a warning, an error with --strict). A cell that cannot be typed (type, format\n" +
			"of a date, enum, json, schema, hours) is a warning, an error with --strict: ingest keeps it as\n" +
			"written and its typed value unknown. Warnings are reported and exit 0.\n" +
			"--against names the previous build, a built database or another input directory; the report then\n" +
			"also says, per dataset by its key, which rows were added, removed or changed (with the columns that\n" +
			"changed) and which columns were added or removed. Profiles are personal data: counts only.\n" +
			"Formats: text (FILE:LINE: COLUMN: RULE: message), json ({\"valid\",\"error_count\",\"shown\",\"truncated\",\"errors\"}),\n" +
			"github (workflow annotations for the first 10, plain lines for the rest; with GITHUB_STEP_SUMMARY\n" +
			"set, the markdown summary is appended to that file too), junit (a testsuite per file, a testcase\n" +
			"per rule that applies to it), sarif (SARIF 2.1.0 for code scanning), markdown (a summary for people). Every format\n" +
			"escapes what it quotes: no control character from the data is printed raw." +
			exitStatus("the data is valid (warnings allowed)", fault.KindInvalidData, fault.KindUsage, fault.KindNoDatabase, fault.KindIO),
		Flags: []cli.Flag{
			inputFlag(),
			formatFlag("report", validation.FormatText, validation.Formats...),
			&cli.IntFlag{Name: "max-errors", Value: 100, Usage: "report at most `N` problems (all are counted; 0 for no cap)"},
			maxFileSizeFlag(),
			&cli.StringFlag{Name: "against", Usage: "compare with the previous build: a built database or an input `PATH`"},
			&cli.StringFlag{Name: "max-removed", Value: fmt.Sprintf("%g%%", schema.DefaultMaxRemoved*100), Usage: "with --against, the share of a dataset's rows that may be removed (`PCT`, e.g. 25%)"},
			strictFlag(),
		},
		Action: func(c *cli.Context) error {
			input, maxErrors := c.String("input"), c.Int("max-errors")
			format, err := choiceValue(c, "format")
			if err != nil {
				return err
			}
			if maxErrors < 0 {
				return usageError("--max-errors must be 0 or more")
			}
			if err = noArgs(c); err != nil {
				return err
			}
			maxRemoved, err := parsePercent(c.String("max-removed"))
			if err != nil {
				return err
			}
			var today string
			if testToday != nil {
				today = testToday(c, e.getenv)
			}
			if today != "" {
				if _, err := time.Parse(time.DateOnly, today); err != nil {
					return usageError("--today must be YYYY-MM-DD, not %q", today)
				}
			}
			opts := &validateOptions{out: e.stdout, errOut: e.stderr, input: input, format: format,
				summary: e.getenv("GITHUB_STEP_SUMMARY"), check: validation.Options{Version: version, MaxErrors: maxErrors, Strict: c.Bool("strict"), Contracts: &validation.Contracts{
					Against: c.String("against"), MaxRemoved: maxRemoved, Strict: c.Bool("strict"), Today: today}}}
			if opts.check.MaxFileSize, err = maxFileSize(c); err != nil {
				return err
			}
			if textout.IsTerminal(e.stderr) {
				opts.check.Progress = validation.ProgressBar(e.stderr)
			}
			return missingInput(c, runValidate(opts))
		},
	}
	cmd.Flags = append(cmd.Flags, testFlags...)
	return cmd
}

// validateOptions is a `ctool validate` command line, checked.
type validateOptions struct {
	out, errOut io.Writer // the report; the one-line verdict
	input       string
	format      string
	summary     string // GITHUB_STEP_SUMMARY: the file the github format appends the markdown summary to
	check       validation.Options
}

func runValidate(opts *validateOptions) error {
	res, err := ingest.Validate(opts.input, opts.check)
	if err != nil {
		return err
	}
	if err := res.Report.Write(opts.out, opts.format); err != nil {
		return err
	}
	if opts.summary != "" && opts.format == validation.FormatGitHub {
		if err := appendSummary(opts.summary, res.Report); err != nil {
			return err
		}
	}
	if !res.Report.Valid() {
		return answered{fault.Errorf(fault.KindInvalidData, "%s in %s", validation.Problems(res.Report.Count), opts.input)}
	}
	rows := 0
	for _, f := range res.Files {
		rows += f.Rows
	}
	warnings := ""
	if n := res.Report.Warnings; n > 0 {
		warnings = fmt.Sprintf(", %d %s", n, textout.Plural(n, "warning", "warnings"))
	}
	fmt.Fprintf(opts.errOut, "ctool validate: %s is valid (%d files, %d rows%s)\n", opts.input, len(res.Files), rows, warnings)
	return nil
}

// parsePercent reads --max-removed: a percentage from 0 to 100, with or without the % sign.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v > 100 {
		return 0, usageError("--max-removed must be a percentage from 0%% to 100%%, not %q", s)
	}
	return v / 100, nil
}

// appendSummary appends the markdown summary to GitHub's job summary file.
func appendSummary(path string, r *validation.Report) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fault.Errorf(fault.KindIO, "GITHUB_STEP_SUMMARY: %v", err)
	}
	if err := r.WriteMarkdown(f); err != nil {
		f.Close()
		return fault.Errorf(fault.KindIO, "GITHUB_STEP_SUMMARY: %v", err)
	}
	if err := f.Close(); err != nil {
		return fault.Errorf(fault.KindIO, "GITHUB_STEP_SUMMARY: %v", err)
	}
	return nil
}

// ruleWords lists the checks' rule words (ingest's own list, less the contracts help gives apart) for
// help, wrapped as the description is.
func ruleWords() string {
	var words []string
	for _, r := range validation.Rules() {
		if !slices.ContainsFunc(schema.Contracts, func(c schema.Contract) bool { return c.Rule == r.Rule }) {
			words = append(words, r.Rule)
		}
	}
	var b strings.Builder
	width := len("the column, a rule word and what was expected. Rule words: ")
	for i, w := range words {
		if i < len(words)-1 {
			w += ","
		}
		if i > 0 {
			if width+1+len(w) > 104 {
				b.WriteString("\n")
				width = 0
			} else {
				b.WriteString(" ")
				width++
			}
		}
		b.WriteString(w)
		width += len(w)
	}
	return b.String()
}

// strictFlag is validate's and ingest's --strict: they agree on what is a warning.
func strictFlag() cli.Flag {
	return &cli.BoolFlag{Name: "strict", Usage: "make warnings errors (cells that cannot be typed, no upcoming events, a venue that names no store)"}
}
