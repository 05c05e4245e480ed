package sites

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/internal/publish"
	"github.com/azabudai/ctool/migrations"
	"github.com/azabudai/ctool/schema"
	_ "github.com/duckdb/duckdb-go/v2" // to make a build of another schema version
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// publishBuild publishes the build at path to the store at url, its manifest read as ctool publish
// reads it.
func publishBuild(t *testing.T, url, path string) publish.Manifest {
	t.Helper()
	ctx := context.Background()
	l, err := ReadLocal(ctx, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	st, err := publish.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	m, err := publish.Publish(ctx, st, path, l.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A local build's manifest is read from the build: its record and its rows, counted.
func TestReadLocal(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	l, err := ReadLocal(context.Background(), path, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := database.ReadRecord(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	m := l.Manifest
	if m.BuildID != rec[database.BuildID] || m.SchemaVersion != migrations.Version(migrations.Main) || m.CtoolVersion != "v1.2.3" ||
		m.Place != rec[database.BuildPlace] || m.CreatedAt.Format(time.RFC3339) != rec[database.BuildTime] {
		t.Errorf("manifest %+v, record %v", m, rec)
	}
	for _, d := range schema.Public() {
		if m.RowCounts[d.Name] < 1 {
			t.Errorf("row count of %s: %d", d.Name, m.RowCounts[d.Name])
		}
	}
	if _, ok := m.RowCounts["profiles"]; ok || len(m.RowCounts) != len(schema.Public()) {
		t.Errorf("row counts %v: want the public datasets only", m.RowCounts)
	}
	if l.ProfilesErr != nil || filepath.Dir(l.ProfilesPath) != filepath.Dir(path) || l.Profiles.RowCounts["profiles"] < 1 ||
		l.Profiles.SchemaVersion != migrations.Version(migrations.Profiles) {
		t.Errorf("profiles: %s %+v %v", l.ProfilesPath, l.Profiles, l.ProfilesErr)
	}

	setSchemaVersion(t, path, 1)
	_, err = ReadLocal(context.Background(), path, "v1.2.3")
	if e := fault.Explain(err); e.Kind != fault.KindStale || !strings.Contains(e.Hint, "ctool ingest --db") {
		t.Errorf("a build of schema version 1: %v", err)
	}
	if _, err := ReadLocal(context.Background(), filepath.Join(t.TempDir(), "none.duckdb"), "v"); !errors.Is(err, database.ErrNoDatabase) {
		t.Errorf("no build: %v", err)
	}
}

// setSchemaVersion rewrites the schema version a build records, as an older ctool would have written it.
func setSchemaVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE ctool_meta.build SET value = ? WHERE key = 'schema_version'`, fmt.Sprint(v)); err != nil {
		t.Fatal(err)
	}
}

// count reads a build through one call's connection, as a reader in flight does.
func count(t *testing.T, b *database.Build) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := b.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow(ctx, guard.Const("SELECT count(*) FROM stores")).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A followed site: the first build at Open, a new one swapped in at a check while a call still reads
// the old one, a build of another schema version refused with the last one kept, and what the log,
// /healthz and the metrics say of each.
func TestFollow(t *testing.T) {
	ctx := context.Background()
	input := ingesttest.SampleInput(t)
	a, b, old := ingesttest.Build(t, input), ingesttest.Build(t, input), ingesttest.Build(t, input)
	setSchemaVersion(t, old, migrations.Version(migrations.Main)-1)
	url := "file://" + t.TempDir()
	ma := publishBuild(t, url, a)
	var log bytes.Buffer
	set, err := Open(ctx, Config{Sources: []Source{{Follow: url}}, Cache: t.TempDir(), Interval: time.Hour,
		Log: slog.New(slog.NewJSONHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	site := set.Sites[0]
	if !site.Followed || filepath.Base(site.DB) != CurrentName {
		t.Fatalf("site %+v", site)
	}
	live := database.NewLive(site.DB)
	defer live.Close()
	inFlight, release, err := live.Acquire(ctx)
	if err != nil || inFlight.ID != ma.BuildID {
		t.Fatalf("first build: %v %v, want %s", inFlight, err, ma.BuildID)
	}

	mb := publishBuild(t, url, b)
	if err := site.fw.f.CheckOnce(ctx); err != nil {
		t.Fatal(err)
	}
	next, release2, err := live.Acquire(ctx)
	if err != nil || next.ID != mb.BuildID {
		t.Fatalf("after the swap: %v %v, want %s", next, err, mb.BuildID)
	}
	if count(t, inFlight) < 1 || count(t, next) < 1 { // the call in flight still reads the old build
		t.Error("a build has no stores")
	}
	release()
	release2()

	// A build this ctool cannot serve: refused, the last one kept, counted, shown.
	l, err := ReadLocal(ctx, b, "test") // the manifest of a good build, over the old one's bytes
	if err != nil {
		t.Fatal(err)
	}
	st, _ := publish.Open(ctx, url)
	oldRec, _ := database.ReadRecord(ctx, old)
	l.Manifest.BuildID = oldRec[database.BuildID]
	if _, err := publish.Publish(ctx, st, old, l.Manifest); err != nil {
		t.Fatal(err)
	}
	var fe *publish.FollowError
	if err := site.fw.f.CheckOnce(ctx); !errors.As(err, &fe) || fe.Kind != publish.FailVerify || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("check of a build of an older schema: %v", err)
	}
	if cur, release, err := live.Acquire(ctx); err != nil || cur.ID != mb.BuildID {
		t.Fatalf("after the refusal: %v %v, want %s", cur, err, mb.BuildID)
	} else {
		release()
	}
	h := set.Health(ctx)
	sh := h.Sites[0]
	if h.Status != "failing" || sh.Build != mb.BuildID || sh.State != "failing" || sh.LastErrorKind != "verify" || sh.AgeSeconds == nil || sh.Source != url {
		t.Errorf("health %+v", h)
	}
	c := set.Collector()
	if n := testutil.CollectAndCount(c, "ctool_follow_failures_total"); n != len(FailureKinds) {
		t.Errorf("%d failure series, want one per kind", n)
	}
	want := `
# HELP ctool_follow_swaps_total Builds a follower swapped in while the server ran (the first build, at start, is not counted).
# TYPE ctool_follow_swaps_total counter
ctool_follow_swaps_total 1
# HELP ctool_follow_failing 1 while the follower's last check failed (the previous build is still served), else 0.
# TYPE ctool_follow_failing gauge
ctool_follow_failing 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "ctool_follow_swaps_total", "ctool_follow_failing"); err != nil {
		t.Error(err)
	}
	if v := failures(t, c, "verify"); v != 1 {
		t.Errorf("verify failures %v, want 1", v)
	}

	// The log: one line per change of state, the same failure not repeated.
	site.fw.f.CheckOnce(ctx)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	got := []string{}
	for _, l := range lines {
		got = append(got, fmt.Sprintf("%v %v %v", l["follow"], l["build"], l["kind"]))
	}
	wantLines := []string{"current " + ma.BuildID + " <nil>", "current " + mb.BuildID + " <nil>", "failing " + mb.BuildID + " verify"}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("log lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
}

func failures(t *testing.T, c prometheus.Collector, kind string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "ctool_follow_failures_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no ctool_follow_failures_total{kind=%q}", kind)
	return 0
}

// The store down at start: the last cached build serves; with none, no database (exit 3).
func TestStoreDownAtStart(t *testing.T) {
	ctx := context.Background()
	a := ingesttest.Build(t, ingesttest.SampleInput(t))
	dir := t.TempDir()
	url := "file://" + dir
	m := publishBuild(t, url, a)
	cache := t.TempDir()
	set, err := Open(ctx, Config{Sources: []Source{{Follow: url}}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Config{Sources: []Source{{Follow: url}}, Cache: cache}); fault.Explain(err).Kind != fault.KindUsage {
		t.Errorf("a second server on the same cache: %v, want a usage error", err)
	}
	set.Close()

	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(dir+".away", dir)
	_, err = Open(ctx, Config{Sources: []Source{{Follow: url}}, Cache: t.TempDir()})
	if e := fault.Explain(err); e.Kind != fault.KindNoDatabase || !strings.Contains(e.Hint, "ctool publish "+url) || !errors.Is(err, database.ErrNoDatabase) {
		t.Errorf("store down, no cache: %v (%+v)", err, e)
	}
	set, err = Open(ctx, Config{Sources: []Source{{Follow: url}}, Cache: cache})
	if err != nil {
		t.Fatalf("store down, a cached build: %v", err)
	}
	defer set.Close()
	rec, err := database.ReadRecord(ctx, set.Sites[0].DB)
	if err != nil || rec[database.BuildID] != m.BuildID {
		t.Errorf("served %v %v, want the cached %s", rec, err, m.BuildID)
	}
	if h := set.Health(ctx); h.Status != "failing" || h.Sites[0].LastErrorKind != "unreachable" {
		t.Errorf("health %+v", h)
	}
}

// Several sites: each its own build, local or followed; a profiles store is never followed.
func TestSites(t *testing.T) {
	ctx := context.Background()
	input := ingesttest.SampleInput(t)
	a, b := ingesttest.Build(t, input), ingesttest.Build(t, input)
	url := "file://" + t.TempDir()
	mb := publishBuild(t, url, b)
	var srcs []Source
	for _, arg := range []string{"azabu=" + a, "shiba=" + url} {
		s, err := ParseSite(arg)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, s)
	}
	cache := t.TempDir()
	set, err := Open(ctx, Config{Sources: srcs, Cache: cache, BuildMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if set.Sites[0].DB != a || set.Sites[0].Followed || set.Sites[1].DB != filepath.Join(cache, "shiba", CurrentName) {
		t.Errorf("sites %+v %+v", set.Sites[0], set.Sites[1])
	}
	ra, _ := database.ReadRecord(ctx, a)
	h := set.Health(ctx)
	if h.Status != "ok" || len(h.Sites) != 2 || h.Sites[0].Site != "azabu" || h.Sites[0].Build != ra[database.BuildID] ||
		h.Sites[1].Site != "shiba" || h.Sites[1].Build != mb.BuildID || h.Sites[1].State != "current" {
		t.Errorf("health %+v", h)
	}
	want := fmt.Sprintf(`
# HELP ctool_build_info The build the next call reads (the id of its ingest), always 1.
# TYPE ctool_build_info gauge
ctool_build_info{build=%q,site="azabu"} 1
ctool_build_info{build=%q,site="shiba"} 1
`, ra[database.BuildID], mb.BuildID)
	if err := testutil.CollectAndCompare(set.Collector(), strings.NewReader(want), "ctool_build_info"); err != nil {
		t.Error(err)
	}

	for _, bad := range []string{"azabu", "=x", "Azabu=x", "metrics=x", "a=s3://", "a=http://x/y", "a="} {
		if _, err := ParseSite(bad); fault.Explain(err).Kind != fault.KindUsage {
			t.Errorf("ParseSite(%q) = %v, want a usage error", bad, err)
		}
	}
	if _, err := Open(ctx, Config{Sources: []Source{srcs[0], srcs[0]}}); fault.Explain(err).Kind != fault.KindUsage {
		t.Errorf("a site given twice: %v", err)
	}

	// A store of profiles is refused as a build store.
	l, err := ReadLocal(ctx, a, "test")
	if err != nil {
		t.Fatal(err)
	}
	pdir := t.TempDir()
	pst, _ := publish.Open(ctx, "file://"+pdir)
	if _, err := publish.PublishProfiles(ctx, pst, url, l.ProfilesPath, l.Profiles); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, Config{Sources: []Source{{Follow: "file://" + pdir}}, Cache: t.TempDir()})
	if e := fault.Explain(err); e.Kind != fault.KindUsage || !errors.Is(err, publish.ErrProfilesStore) {
		t.Errorf("following a profiles store: %v", err)
	}
}
