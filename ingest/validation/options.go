package validation

import "github.com/azabudai/ctool/schema"

// Options tune Run. The zero value keeps every problem and reports no progress.
type Options struct {
	// MaxErrors is how many problems the report keeps (all are counted); 0 keeps all.
	MaxErrors int
	// MaxFileSize is the largest input file read, in bytes; a larger one is a problem, refused before
	// it is read. 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Progress, when set, is told how far validation has read the input: every progressRows rows or
	// progressBytes bytes, after each file, and a last time with Done set, also when the call fails.
	// Calls never overlap.
	Progress func(Progress)
	// Strict makes every warning an error: a value that cannot be typed refuses the build, as it did
	// before such values were kept unknown.
	Strict bool
	// Contracts, when set, also checks the contracts (contracts.go); ctool validate sets it.
	Contracts *Contracts
	// Version is ctool's version, which the SARIF report names as its tool's (Report.Version); empty
	// takes the version Go recorded in the binary, or "dev".
	Version string

	// The packages that build on validation watch its reading through these.

	// Observe, when set, sees every record as wide as its header, in file order, on validation's
	// goroutine: the build computes values of the new build with it (ingest/build), a comparison
	// fingerprints every row of an input directory (ingest/changes).
	Observe func(f *File, record []string)
	// Failed, when set, is called once, at the first error validation finds: the build stops its load
	// there.
	Failed func()
	// OpenPrevious opens Contracts.Against, the build the contracts compare with; ingest.Validate sets
	// it to ingest/changes' reading. Without it, Run refuses a Contracts.Against.
	OpenPrevious func(path string) Previous
}

// Previous is the other side of the contracts' comparison (Contracts.Against), read beside validation
// from the moment OpenPrevious returns it.
type Previous interface {
	// Record sees every complete record of the input, in file order, as validation reads it.
	Record(f *File, record []string)
	// Compare is called once, after the last record: what changed in each dataset since the previous
	// build (a broken dataset, one whose files lost rows, is not compared), and the keys the input no
	// longer has while its rows still refer to them. Its error is the previous build's, unreadable.
	Compare(broken map[*schema.Dataset]bool) (*Comparison, []Referenced, error)
	// Close releases the previous build, whether or not it was compared; validation calls it once.
	Close()
}

// Referenced is a key of the previous build that the input no longer has while rows of the input
// still refer to it.
type Referenced struct {
	Dataset *schema.Dataset // the dataset whose key it is
	Key     string
	By      []Referrer // in schema.All()'s order
}

// Referrer is a dataset that still refers to a removed key, and how many of its rows do.
type Referrer struct {
	Dataset string
	Rows    int
}
