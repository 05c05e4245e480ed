package database_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
)

func count(t *testing.T, b *database.Build, table string) int {
	t.Helper()
	var n int
	if err := b.DB().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenIsLockedDown(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.ID == "" || b.Build[database.BuildProfiles] == "" {
		t.Fatalf("build record %v", b.Build)
	}
	var tz string
	// Every connection of the pool has Tokyo time, not only the one the lockdown ran on.
	conns := make([]interface{ Close() error }, 0, 3)
	for i := 0; i < 3; i++ {
		c, err := b.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if err := c.QueryRow(context.Background(), guard.Const("SELECT current_setting('TimeZone')")).Scan(&tz); err != nil || tz != "Asia/Tokyo" {
			t.Errorf("connection %d: TimeZone %q, %v", i, tz, err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	for _, stmt := range []string{
		"SET enable_external_access = true",
		"SET lock_configuration = false",
		"SELECT * FROM read_text('" + path + "')",
		"ATTACH '" + path + "' AS again (READ_ONLY)",
		"CREATE TABLE x (i INTEGER)",
	} {
		if _, err := b.DB().Exec(stmt); err == nil {
			t.Errorf("%s: ran on a locked-down build", stmt)
		}
	}
}

func TestOpenRefusesWhatIsNotACtoolDatabase(t *testing.T) {
	dir := t.TempDir()
	notDuckDB := filepath.Join(dir, "text.duckdb")
	os.WriteFile(notDuckDB, []byte("hello"), 0o644)
	for name, path := range map[string]string{"missing": filepath.Join(dir, "none.duckdb"), "directory": dir, "not duckdb": notDuckDB} {
		_, err := database.Open(context.Background(), path)
		var ce *fault.Error
		if !errors.As(err, &ce) || ce.Kind != fault.KindNoDatabase || !errors.Is(err, database.ErrNoDatabase) || !strings.HasSuffix(ce.Hint, database.NoDatabaseHint) {
			t.Errorf("%s: got %v, want a no_database error with a hint", name, err)
		}
	}
}

// A Live follows new builds without a restart, while a call that started on the old build finishes
// on it.
func TestLiveSwitchesBuilds(t *testing.T) {
	ctx := context.Background()
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	live := database.NewLive(path)
	defer live.Close()

	old, releaseOld, err := live.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, releaseAgain, _ := live.Acquire(ctx)
	if again != old {
		t.Fatal("an unchanged file was opened again")
	}
	releaseAgain()

	// A second build with one store fewer: drop the last record of the stores file.
	smaller := t.TempDir()
	entries, _ := os.ReadDir(input)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(input, e.Name()))
		if strings.HasPrefix(e.Name(), "filtered_store_data") {
			b = dropStore(t, b, "STR-0015")
		}
		os.WriteFile(filepath.Join(smaller, e.Name()), b, 0o644)
	}
	ingesttest.Rebuild(t, smaller, path)

	cur, releaseCur, err := live.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseCur()
	if cur == old || cur.ID == old.ID {
		t.Fatal("the new build was not picked up")
	}
	if n, m := count(t, old, "stores"), count(t, cur, "stores"); n != m+1 {
		t.Errorf("old build has %d stores, new %d; want one fewer", n, m)
	}
	releaseOld()
	if err := old.DB().Ping(); err == nil {
		t.Error("the old build stayed open after its last call released it")
	}
}

// dropStore removes the record of one store (a line starting with its id) from a stores file.
func dropStore(t *testing.T, csv []byte, id string) []byte {
	t.Helper()
	i := strings.Index(string(csv), "\n"+id+",")
	if i < 0 {
		t.Fatalf("no record of %s", id)
	}
	j := strings.Index(string(csv[i+1:]), "\nSTR-")
	if j < 0 {
		return csv[:i+1]
	}
	return append(csv[:i+1:i+1], csv[i+1+j+1:]...)
}

func TestLiveServesConcurrentCalls(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	live := database.NewLive(path)
	defer live.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, release, err := live.Acquire(context.Background())
			if err != nil {
				errs <- err
				return
			}
			defer release()
			var n int
			if err := b.DB().QueryRow("SELECT count(*) FROM products p JOIN stores s USING (store_id)").Scan(&n); err != nil || n == 0 {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestProfilesOpenOnlyOnRequest(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	b, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The main file holds no profiles, and cannot reach the profiles file.
	if _, err := b.DB().Exec("SELECT * FROM profiles"); err == nil {
		t.Error("the main file has a profiles table")
	}
	p, err := b.Profiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.DB().QueryRow("SELECT count(*) FROM profiles").Scan(&n); err != nil || n == 0 {
		t.Fatalf("profiles: %d, %v", n, err)
	}
}

// The no_database error keeps its cause for programs: a missing file is fs.ErrNotExist, an unreadable
// one fs.ErrPermission, beside ErrNoDatabase.
func TestOpenKeepsTheCause(t *testing.T) {
	dir := t.TempDir()
	_, err := database.Open(context.Background(), filepath.Join(dir, "none.duckdb"))
	if !errors.Is(err, database.ErrNoDatabase) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNoDatabase and fs.ErrNotExist", err)
	}
	if msg := err.Error(); strings.Contains(msg, "no such file") {
		t.Errorf("missing file: the cause is repeated in %q", msg)
	}

	locked := filepath.Join(dir, "locked.duckdb")
	if err := os.WriteFile(locked, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(locked); err == nil {
		f.Close()
		t.Skip("this user reads files whatever their mode (root)")
	}
	_, err = database.Open(context.Background(), locked)
	var ce *fault.Error
	if !errors.As(err, &ce) || ce.Kind != fault.KindNoDatabase || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("unreadable file: %v, want a no_database error that is fs.ErrPermission", err)
	}
}

func TestWithThreads(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	for _, tc := range []struct {
		name string
		opts []database.Option
		want func(int64) bool
	}{
		{"default", nil, func(n int64) bool { return n >= 1 }},
		{"one", []database.Option{database.WithThreads(1)}, func(n int64) bool { return n == 1 }},
		{"two", []database.Option{database.WithThreads(2)}, func(n int64) bool { return n == 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := database.NewLive(path, tc.opts...)
			defer live.Close()
			b, release, err := live.Acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			var n int64
			if err := b.DB().QueryRow("SELECT current_setting('threads')").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if !tc.want(n) {
				t.Errorf("threads = %d", n)
			}
		})
	}
}

func TestWithBackgroundPurge(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	live := database.NewLive(path, database.WithThreads(1), database.WithBackgroundPurge())
	defer live.Close()
	b, release, err := live.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var on bool
	var threads int64
	if err := b.DB().QueryRow("SELECT current_setting('allocator_background_threads'), current_setting('threads')").Scan(&on, &threads); err != nil {
		t.Fatal(err)
	}
	if !on || threads != 1 {
		t.Errorf("allocator_background_threads = %v, threads = %d; want true, 1", on, threads)
	}
	// Still locked down after the extra setting.
	if _, err := b.DB().Exec("SET allocator_background_threads = false"); err == nil {
		t.Error("a query changed a setting")
	}
}
