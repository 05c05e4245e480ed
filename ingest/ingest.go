// Package ingest is the input directory's way into ctool, in three packages, one job each:
//
//   - ingest/validation reads and checks the input files and writes the reports (`ctool validate`);
//   - ingest/build makes a new build of the database files from input that passed (`ctool ingest`):
//     the one writer of the engine;
//   - ingest/changes compares the input or a build with a previous build, and a build with the input
//     it was made from (`ctool status`): it reads builds, never writes one.
//
// Validation comes first and knows neither of the others; the build and the comparisons each use it
// and not each other, so the read-only console links validation and changes and nothing that writes.
// The one place two of them meet is here: validate --against checks contracts that compare the input
// with the previous build, and validation takes that comparison from whoever opens the previous build
// (validation.Options.OpenPrevious). Validate wires ingest/changes in.
package ingest

import (
	"github.com/azabudai/ctool/ingest/changes"
	"github.com/azabudai/ctool/ingest/validation"
)

// Validate is validation.Run with the contracts that compare with the previous build: when
// opts.Contracts names one (Against), ingest/changes reads it beside validation.
func Validate(dir string, opts validation.Options) (*validation.Result, error) {
	if opts.Contracts != nil && opts.Contracts.Against != "" && opts.OpenPrevious == nil {
		opts.OpenPrevious = changes.Against
	}
	return validation.Run(dir, opts)
}
