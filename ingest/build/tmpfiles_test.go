package build

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A build that fails, or is cancelled (SIGINT), at any step before its commit leaves no temporary
// file, not even DuckDB's spill directory, and the previous build as it was.
func TestIngestLeavesNoTemporaryFiles(t *testing.T) {
	input := sampleCopy(t, nil)
	tests := []struct {
		name string
		at   string // the step where the build is cancelled; "" to make the load of products fail
		want string // the error
	}{
		{"cancelled when created", StepCreated, "ingest was interrupted; the database was not changed"},
		{"cancelled when loaded", StepLoaded, "ingest was interrupted; the database was not changed"},
		{"cancelled when checked", StepChecked, "ingest was interrupted; the database was not changed"},
		{"cancelled when closed", StepClosed, "ingest was interrupted; the database was not changed"},
		{"a load that fails", "", "ingest failed; the database was not changed: load "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			db := filepath.Join(dir, "ctool.duckdb")
			if _, err := Run(context.Background(), input, db, Options{}); err != nil {
				t.Fatal(err)
			}
			before := listDir(t, dir)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// DuckDB's spill directory, as a statement that outgrew its memory leaves it beside the file.
			spill := func() {
				tmp, _ := filepath.Glob(filepath.Join(dir, "ctool.duckdb.tmp-*"))
				if len(tmp) == 0 {
					t.Fatal("no temporary file while the build runs")
				}
				if err := os.MkdirAll(tmp[0]+".tmp", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(tmp[0]+".tmp", "duckdb_temp_storage_DEFAULT-0.tmp"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := Options{Step: func(step string) {
				if step == StepCreated {
					spill()
				}
				if step == tt.at {
					cancel()
				}
			}}
			if tt.at == "" {
				opts.loading = func(f *planned) {
					if f != nil && f.Dataset.Name == "products" {
						f.fh.Close() // DuckDB cannot read it: the load fails midway
					}
				}
			}
			_, err := Run(ctx, input, db, opts)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if after := listDir(t, dir); !slices.Equal(after, before) {
				t.Errorf("the directory holds %q, was %q", after, before)
			}
		})
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The next ingest removes the temporary files a killed build left, its spill directory too, once no
// running process can be the build that wrote them: its pid is gone, or the process under that pid
// (this one, say, in a container that runs each ingest as the same pid) started after they were last
// written. A live build's files, and another database's, stay.
func TestRemoveAbandoned(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	me, longAgo, now := os.Getpid(), time.Now().Add(-time.Hour), time.Now()
	tests := []struct {
		name    string
		pid     int
		written time.Time
		removed bool
	}{
		{"process gone", gone.Process.Pid, now, true},
		{"this process, files older than it", me, longAgo, true},
		{"this process, files of its own", me, now, false},
		{"pid 1, files older than the boot", 1, time.Unix(0, 0), true},
		{"pid 1, files newer than its start", 1, now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "ctool.duckdb")
			ours := []string{
				fmt.Sprintf("ctool.duckdb.tmp-%d-0123456789ab", tt.pid),
				fmt.Sprintf("ctool.duckdb.tmp-%d-0123456789ab.wal", tt.pid),
				fmt.Sprintf("ctool.profiles-0123456789ab.duckdb.tmp-%d-0123456789ab", tt.pid),
			}
			spill := fmt.Sprintf("ctool.duckdb.tmp-%d-0123456789ab.tmp", tt.pid)
			others := []string{
				fmt.Sprintf("other.duckdb.tmp-%d-0123456789ab", tt.pid),
				fmt.Sprintf("ctool.duckdb.tmp-%d-0123456789ab.old", tt.pid),
			}
			for _, name := range append(slices.Clone(ours), others...) {
				if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, spill), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, spill, "duckdb_temp_storage_DEFAULT-0.tmp"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, name := range append(append(slices.Clone(ours), others...), spill) {
				if err := os.Chtimes(filepath.Join(dir, name), tt.written, tt.written); err != nil {
					t.Fatal(err)
				}
			}
			removeAbandoned(db)
			want := others
			if !tt.removed {
				want = append(append(slices.Clone(ours), others...), spill)
			}
			slices.Sort(want)
			if got := listDir(t, dir); !slices.Equal(got, want) {
				t.Errorf("left %q, want %q", got, want)
			}
		})
	}
}
