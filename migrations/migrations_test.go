package migrations

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// schemaHistory pins each set's schema version to the SQL that defines it: the sha256 of its files'
// names and contents, in order. A change to the SQL fails this test until it is recorded here: a
// change a reader of a build could tell gets the next version (and versions in migrations.go); one it
// could not (a comment, a reordering) replaces the hash of the current version, as does any change
// before that version is released.
var schemaHistory = map[Set][]struct {
	version int
	sha256  string
}{
	Main: {
		{7, "9d967b560a82939ffe139cf436748bf3e28e25a3ea77c22dd51bc3520ec10522"},
		{8, "6caea075229282ec0451fe8e5ba5f3f20dea0d18ac144b3aa25364369fef7eed"},
		{9, "08c22364ca0bf3b279c86069d30e80854930b1fa8eedb754c636b7548d1053b9"},
	},
	Profiles: {
		{1, "b94a18f84f61eb294efa1675f3ac829e199310a1a7507e3e3e266f1e7a69e7d4"},
		{2, "d1a4aecfac4f1f11d0e958ddf1ab5dd84bb3e55cd543f308c450e8661818405c"},
	},
}

func TestSchemaVersionFollowsTheSQL(t *testing.T) {
	for set, history := range schemaHistory {
		list, err := List(set)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		for _, m := range list {
			fmt.Fprintf(h, "%s\x00%s\x00", m.Name, m.SQL)
		}
		sum := hex.EncodeToString(h.Sum(nil))
		last := history[len(history)-1]
		if last.sha256 != sum {
			t.Errorf("%s: the SQL changed (sha256 %s, recorded %s for version %d): record it in schemaHistory, with a new version if builds differ", set, sum, last.sha256, last.version)
		}
		if Version(set) != last.version {
			t.Errorf("%s: Version = %d, schemaHistory ends at %d", set, Version(set), last.version)
		}
	}
}
