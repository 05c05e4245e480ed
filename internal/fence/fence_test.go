package fence

import (
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/azabudai/ctool"

// doors are the packages that may import the engine: the one reader and the build's writer.
var doors = map[string]bool{
	module + "/internal/database": true,
	module + "/ingest/build":      true,
}

// allow names each function (or type, or variable) of a door that may reference the engine, with why.
// A reference anywhere else in a door fails the fence like one outside it.
var allow = map[string]string{
	"build.openFile":               "writes a new build file: opens it read-write, never one a reader has open",
	"build.closeFile":              "writes a new build file: opens it read-write, never one a reader has open",
	"build.builder":                "writes a new build file: opens it read-write, never one a reader has open",
	"build.builder.dbFor":          "writes a new build file: opens it read-write, never one a reader has open",
	"build.builder.load":           "writes a new build file: opens it read-write, never one a reader has open",
	"build.builder.finish":         "writes a new build file: opens it read-write, never one a reader has open",
	"build.builder.abort":          "writes a new build file: opens it read-write, never one a reader has open",
	"build.migrate":                "the build's own statements from migrations/, in order",
	"build.applyOne":               "the build's own statements from migrations/, in order",
	"build.loadCSV":                "loads validated CSV files into the new build and checks their counts",
	"build.checkLoaded":            "loads validated CSV files into the new build and checks their counts",
	"build.fill":                   "stores the typed relations and the Go-computed values in the new build",
	"build.derived":                "stores the typed relations and the Go-computed values in the new build",
	"build.fillComputed":           "stores the typed relations and the Go-computed values in the new build",
	"build.fillUnknown":            "stores the typed relations and the Go-computed values in the new build",
	"build.appendRows":             "stores the typed relations and the Go-computed values in the new build",
	"build.appendRowsTo":           "stores the typed relations and the Go-computed values in the new build",
	"build.pricesOf":               "stores the typed relations and the Go-computed values in the new build",
	"build.hoursOf":                "stores the typed relations and the Go-computed values in the new build",
	"build.offersOf":               "stores the typed relations and the Go-computed values in the new build",
	"build.eventStoresOf":          "stores the typed relations and the Go-computed values in the new build",
	"build.eventWeekdaysOf":        "stores the typed relations and the Go-computed values in the new build",
	"build.verifyMain":             "checks the new build's relations against schema/ before it is renamed into place",
	"build.verifyProfiles":         "checks the new build's relations against schema/ before it is renamed into place",
	"build.macrosOf":               "checks the new build's relations against schema/ before it is renamed into place",
	"build.columnsOf":              "checks the new build's relations against schema/ before it is renamed into place",
	"build.buildFailed":            "tells DuckDB's I/O and permission failures from others, for the error's kind",
	"database.Conn":                "the one reader's connection of a call",
	"database.File.Conn":           "the one reader's connection of a call",
	"database.Conn.Close":          "the one reader's connection of a call",
	"database.Conn.Query":          "runs ctool's own SQL (a guard.SQL), arguments bound",
	"database.Conn.QueryRow":       "runs ctool's own SQL (a guard.SQL), arguments bound",
	"database.Conn.oneText":        "runs ctool's own SQL (a guard.SQL), arguments bound",
	"database.Conn.stream":         "runs a guard.Checked or ctool's own SQL, kept prepared",
	"database.queryPrepared":       "runs a guard.Checked or ctool's own SQL, kept prepared",
	"database.Rows":                "hands readers Go values, never the driver's",
	"database.Rows.Next":           "hands readers Go values, never the driver's",
	"database.Rows.Scan":           "hands readers Go values, never the driver's",
	"database.Rows.Err":            "hands readers Go values, never the driver's",
	"database.Rows.Close":          "hands readers Go values, never the driver's",
	"database.Rows.Columns":        "hands readers Go values, never the driver's",
	"database.Row":                 "hands readers Go values, never the driver's",
	"database.Row.Scan":            "hands readers Go values, never the driver's",
	"database.ErrNoRows":           "hands readers Go values, never the driver's",
	"database.NullString.Scan":     "hands readers Go values, never the driver's",
	"database.NullBool.Scan":       "hands readers Go values, never the driver's",
	"database.NullInt64.Scan":      "hands readers Go values, never the driver's",
	"database.Stream":              "hands readers Go values, never the driver's",
	"database.Stream.Columns":      "hands readers Go values, never the driver's",
	"database.Stream.Types":        "hands readers Go values, never the driver's",
	"database.Stream.Next":         "hands readers Go values, never the driver's",
	"database.Value":               "hands readers Go values, never the driver's",
	"database.mapOf":               "hands readers Go values, never the driver's",
	"database.File":                "opens a build read-only and locks it down: constant statements and the quoted path",
	"database.openFile":            "opens a build read-only and locks it down: constant statements and the quoted path",
	"database.readBuild":           "opens a build read-only and locks it down: constant statements and the quoted path",
	"database.File.Close":          "opens a build read-only and locks it down: constant statements and the quoted path",
	"database.Open":                "opens a build read-only and locks it down: constant statements and the quoted path",
	"database.File.StatementLog":   "reads DuckDB's statement log, for tests and audits (a constant)",
	"database.preparer":            "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn":                "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.Prepared":       "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.closeStmts":     "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.Close":          "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.PrepareContext": "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.QueryContext":   "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.ExecContext":    "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.conn.oneSelect":      "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.closingRows":         "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.closingRows.Close":   "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.connector":           "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.connector.Connect":   "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.preparedConnector":   "the pool's connections: prepared statements closed with them, one SELECT per statement",
	"database.Parquet":             "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
	"database.NewParquet":          "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
	"database.Parquet.open":        "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
	"database.Parquet.Append":      "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
	"database.Parquet.WriteTo":     "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
	"database.Parquet.Close":       "the console's Parquet export: an engine of its own fed Go values, confined to its directory",
}

func root(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// shipped are the module's packages that the ctool binary links.
func shipped(t *testing.T, dir string) map[string]bool {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps, Dir: dir}, "./cmd/ctool")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.PkgPath == module || strings.HasPrefix(p.PkgPath, module+"/") {
			out[p.PkgPath] = true
		}
	})
	return out
}

// TestFence: the engine is reached only by the two doors, and there only by the functions allow names.
func TestFence(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks every shipped package")
	}
	dir := root(t)
	ship := shipped(t, dir)
	for d := range doors {
		if !ship[d] {
			t.Errorf("door %s is not a package of ctool", d)
		}
	}
	tags, err := buildTags(dir)
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for p := range ship {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	pkgs, fset, err := load(dir, tags, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	found, used, err := check(pkgs, fset, policy{doors, allow}, func(p string) bool { return ship[p] })
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		t.Error(v)
	}
	for key := range allow {
		if !used[key] {
			t.Errorf("allow names %s, which reaches no engine: remove it", key)
		}
	}
	if len(ship) < 10 {
		t.Fatalf("only %d shipped packages found: the fence read too little", len(ship))
	}
}

// TestWalkAroundFailsTheFence: each way around the earlier fence (testdata/walkaround) fails this one,
// as a reader and as a door whose allow-list names one function.
func TestWalkAroundFailsTheFence(t *testing.T) {
	dir := root(t)
	const fixture = module + "/internal/fence/testdata/walkaround"
	pkgs, fset, err := load(dir, []string{"walkaround"}, fixture)
	if err != nil {
		t.Fatal(err)
	}
	ship := func(p string) bool { return p == fixture }
	want := map[string][]string{
		"reader": {
			"walkaround.go:.*imports database/sql",
			"walkaround.go:.*imports github.com/duckdb/duckdb-go/v2",
			"walkaround.OpenOwn reaches the engine (duckdb.NewConnector)",
			"walkaround.OpenOwn reaches the engine (sql.OpenDB)",
			"walkaround.OpenOwn reaches the engine (sql.ExecContext)",
			"walkaround.querier reaches the engine (sql.Rows)",
			"walkaround.querier uses an interface that the engine's types satisfy",
			"walkaround.rawer uses an interface that the engine's types satisfy",
			"walkaround.Sneaky reaches the engine (sql.ExecContext)",
			"walkaround.Allowed reaches the engine (sql.PingContext)",
			"tagged.go:.*imports github.com/duckdb/duckdb-go/v2",
			"walkaround.OnlyOnDarwin reaches the engine (duckdb.NewConnector)",
			"linkname.go:.*uses //go:linkname",
		},
		"door": {
			"walkaround.OpenOwn reaches the engine (duckdb.NewConnector)",
			"walkaround.Sneaky reaches the engine (sql.ExecContext)",
			"walkaround.OnlyOnDarwin reaches the engine (duckdb.NewConnector)",
			"walkaround.rawer uses an interface that the engine's types satisfy",
			"linkname.go:.*uses //go:linkname",
		},
	}
	pols := map[string]policy{
		"reader": {doors: map[string]bool{}, allow: allow},
		"door":   {doors: map[string]bool{fixture: true}, allow: map[string]string{"walkaround.Allowed": "the fixture's one allowed function"}},
	}
	for name, pol := range pols {
		t.Run(name, func(t *testing.T) {
			found, _, err := check(pkgs, fset, pol, ship)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, v := range found {
				lines = append(lines, v.String())
			}
			all := strings.Join(lines, "\n")
			for _, w := range want[name] {
				if !matches(all, w) {
					t.Errorf("the fence missed %q; it found:\n%s", w, all)
				}
			}
			if name == "door" && strings.Contains(all, "walkaround.Allowed reaches") {
				t.Errorf("the allowed function was refused:\n%s", all)
			}
		})
	}
}

// matches tells whether a line of text holds want, where ".*" in want stands for any text.
func matches(text, want string) bool {
	for _, line := range strings.Split(text, "\n") {
		parts := strings.Split(want, ".*")
		rest, ok := line, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}
