package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/publish"
)

// A failed publish has the kind a script can act on: a lost race (publish again), builds and profiles
// mixed (the command line), a store that does not answer (its URL, network, credentials).
func TestPublishErrorKinds(t *testing.T) {
	own := fault.Errorf(fault.KindStale, "old build")
	for _, tc := range []struct {
		url  string
		err  error
		kind fault.Kind
		hint string
	}{
		{"s3://b/p", fmt.Errorf("s3://b/p: latest now names build x (sequence 2); y was uploaded but is not current: %w", publish.ErrLostRace), fault.KindConflict, "run the same ctool publish again"},
		{"s3://b/p", fmt.Errorf("profiles store s3://b/p overlaps builds store s3://b: %w", publish.ErrProfilesStore), fault.KindUsage, "give --profiles-to a store apart"},
		{"s3://b/p", errors.New("s3://b/p: get latest: dial tcp 127.0.0.1:9: connection refused"), fault.KindUnavailable, "AWS_ENDPOINT_URL"},
		{"file:///mnt/builds", errors.New("file:///mnt/builds: stat /mnt/builds: no such file or directory"), fault.KindUnavailable, "mkdir -p"},
		{"s3://b/p", own, fault.KindStale, ""},
	} {
		e := fault.Explain(storeError(tc.url, tc.err))
		if e.Kind != tc.kind || !strings.Contains(e.Hint, tc.hint) || e.Message != tc.err.Error() || !errors.Is(e, tc.err) {
			t.Errorf("%v: %s %q %q, want kind %s and a hint with %q", tc.err, e.Kind, e.Message, e.Hint, tc.kind, tc.hint)
		}
	}
	if fault.KindConflict.Status() != 1 || fault.KindUnavailable.Status() != 6 {
		t.Error("the documented exit statuses of conflict and unavailable changed")
	}
}
