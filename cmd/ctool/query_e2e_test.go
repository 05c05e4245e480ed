package main

// End-to-end tests of `ctool query`, the command an agent's SQL reaches. They run the real CLI
// in-process through run() against a database that `ctool ingest` (also through run()) builds once
// from the repository's sample data, and check what the agent sees: exit status, stdout, stderr.
//
// Groups (go test ./cmd/ctool -run 'TestQueryE2E/<group>'):
//
//	seeds     every example SELECT of the design documents in ../../../shared/seeds runs and returns rows
//	hostile   file, metadata, settings, write and profile access attempts are refused and change nothing
//	harmless  LIMIT/OFFSET tricks run but never return more than 10 rows
//	bombs     expensive queries are stopped by --timeout or the memory limits within a bounded time
//	legit     ordinary queries that merely contain dangerous words are accepted
//	hidden    products never show store_id
//	formats   json/jsonl/csv/table/markdown output, zero rows, stdin, exit statuses 2 and 3
//

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/fault"
	"github.com/azabudai/ctool/internal/guard/guardtest"
	"github.com/azabudai/ctool/query/querytest"
	"github.com/azabudai/ctool/schema"
)

// ---------------------------------------------------------------------------------------------
// Running the CLI in-process

// syncBuffer is an io.Writer safe for the hard-deadline goroutine of `ctool query`, which may write
// an error while the query goroutine still writes its own output, and for a child process's stderr
// that a test reads as it comes (waitFor).
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed at the next write, when someone waits for it
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// waitFor returns what has been written once cond holds of it, looking again after each write. The
// bound (mcpWait) only keeps a broken build from hanging the test.
func (b *syncBuffer) waitFor(t *testing.T, what string, cond func(written string) bool) string {
	t.Helper()
	timeout := time.After(mcpWait)
	for {
		b.mu.Lock()
		s := b.buf.String()
		if b.written == nil {
			b.written = make(chan struct{})
		}
		written := b.written
		b.mu.Unlock()
		if cond(s) {
			return s
		}
		select {
		case <-written:
		case <-timeout:
			t.Fatalf("%s: not within %s; written:\n%s", what, mcpWait, s)
		}
	}
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type cliResult struct {
	args     []string
	code     int
	stdout   string
	stderr   string
	elapsed  time.Duration
	finished bool // false when the command did not return within the wall-time limit
}

func (r cliResult) String() string {
	return fmt.Sprintf("ctool %q\nexit %d after %s\n--- stdout\n%s\n--- stderr\n%s", r.args[1:], r.code,
		r.elapsed.Round(time.Millisecond), clip(r.stdout, 3000), clip(r.stderr, 3000))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// runCtool runs `ctool args...` in-process with stdin and waits for it.
func runCtool(stdin string, args ...string) cliResult {
	return runCtoolWithin(0, stdin, args...)
}

// runCtoolWithin runs ctool and gives up waiting after limit (0: wait forever); a command that has
// not returned by then is reported with finished=false and left running.
func runCtoolWithin(limit time.Duration, stdin string, args ...string) cliResult {
	argv := append([]string{"ctool"}, args...)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	start := time.Now()
	e := &env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	go func() { done <- runWith(e, argv) }()
	res := cliResult{args: argv}
	if limit <= 0 {
		res.code, res.finished = <-done, true
	} else {
		select {
		case res.code = <-done:
			res.finished = true
		case <-time.After(limit):
			res.code = -1
		}
	}
	res.elapsed = time.Since(start)
	res.stdout, res.stderr = stdout.String(), stderr.String()
	return res
}

// e2eDB is the database the tests query: ingested once from ../../input into a temporary directory.
type e2eDB struct {
	dir      string // the directory holding the database files
	path     string // data/ctool.duckdb
	profiles string // data/ctool.profiles-<build>.duckdb, found after the ingest
	input    string // absolute path of the sample input directory
}

func ingestE2EDB(t *testing.T) e2eDB {
	t.Helper()
	input := ingesttest.SampleInput(t)
	path := ingesttest.Build(t, input)
	db := e2eDB{dir: filepath.Dir(path), path: path, input: input}
	matches, err := filepath.Glob(filepath.Join(db.dir, "ctool.profiles-*.duckdb"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("want exactly one profiles file beside the database, got %v (%v)", matches, err)
	}
	db.profiles = matches[0]
	return db
}

// runCtoolProcess runs `ctool args...` as a child process (testscript.Main puts the command on PATH)
// and kills it after limit.
func runCtoolProcess(t *testing.T, limit time.Duration, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "ctool", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := cliResult{args: append([]string{"ctool"}, args...), elapsed: time.Since(start), finished: ctx.Err() == nil,
		stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		t.Fatalf("run ctool: %v", err)
	}
	return res
}

// query runs `ctool query DATASET --db DB --format FORMAT [extra...] SQL`, the way the tool manifest
// passes an agent's SQL (one argument after the flags).
func (db e2eDB) query(dataset, format, sql string, extra ...string) cliResult {
	args := append([]string{"query", dataset, "--db", db.path, "--format", format}, extra...)
	if strings.HasPrefix(sql, "-") && sql != "-" {
		// A leading '-' would be read as a flag (see TestQueryE2E/formats/exit_2_bogus_flag).
		args = append(args, "--")
	}
	return runCtool("", append(args, sql)...)
}

// ---------------------------------------------------------------------------------------------
// Reading the JSON output

func decodeStrict(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// wantRows checks a successful JSON result: exit 0, results/count/truncated present, count rows.
func wantRows(t *testing.T, res cliResult) querytest.Doc {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("want exit 0:\n%s", res)
	}
	var doc querytest.Doc
	if err := decodeStrict(res.stdout, &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, res)
	}
	if doc.Results == nil || doc.Count == nil || doc.Truncated == nil || doc.Error != nil {
		t.Fatalf("want results, count and truncated (and no error):\n%s", res)
	}
	if *doc.Count != len(doc.Results) {
		t.Fatalf("count %d but %d results:\n%s", *doc.Count, len(doc.Results), res)
	}
	if *doc.Count > 10 {
		t.Fatalf("count %d is over the 10-row cap:\n%s", *doc.Count, res)
	}
	// A hint says how to page a truncated result, or why an empty one is empty; rows found need none.
	if *doc.Truncated == (doc.Hint == "") && (*doc.Truncated || *doc.Count > 0) {
		t.Fatalf("truncated=%v but hint %q:\n%s", *doc.Truncated, doc.Hint, res)
	}
	return doc
}

// jsonError reads the error document a command writes on stdout in JSON mode: exactly one object
// {"error": message, "kind": kind} with an optional "hint", and nothing else.
func jsonError(stdout string) (msg, kind string, err error) {
	var doc map[string]any
	if err := decodeStrict(stdout, &doc); err != nil {
		return "", "", fmt.Errorf("stdout is not one JSON document: %v", err)
	}
	msg, _ = doc["error"].(string)
	kind, _ = doc["kind"].(string)
	_, hasHint := doc["hint"]
	if msg == "" || kind == "" || len(doc) != 2 && !(len(doc) == 3 && hasHint) {
		return "", "", fmt.Errorf(`want exactly {"error": "...", "kind": "..."} and maybe "hint" on stdout`)
	}
	return msg, kind, nil
}

// wantRefusal checks a refused or failed query in JSON: exit 1 and the error document on stdout,
// whose text contains want (case-insensitively); it returns the message.
func wantRefusal(t *testing.T, res cliResult, want string) string {
	t.Helper()
	if res.code != 1 {
		t.Fatalf("want exit 1:\n%s", res)
	}
	msg, kind, err := jsonError(res.stdout)
	if err != nil {
		t.Fatalf("%v:\n%s", err, res)
	}
	if kind != "refused" && kind != "sql_error" && kind != "timeout" && kind != "too_large" {
		t.Fatalf("kind %q is not one of a failed query's:\n%s", kind, res)
	}
	if !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) {
		t.Fatalf("the error does not mention %q:\n%s", want, res)
	}
	return msg
}

// resultKeys returns the keys of each object of "results" in the order they appear in the raw JSON.
func resultKeys(raw string) ([][]string, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	expect := func(want json.Delim) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if tok != want {
			return fmt.Errorf("want %v, got %v", want, tok)
		}
		return nil
	}
	if err := expect('{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if tok != "results" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if err := expect('['); err != nil {
			return nil, err
		}
		var rows [][]string
		for dec.More() {
			if err := expect('{'); err != nil {
				return nil, err
			}
			var keys []string
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				keys = append(keys, k.(string))
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return nil, err
				}
			}
			if err := expect('}'); err != nil {
				return nil, err
			}
			rows = append(rows, keys)
		}
		return rows, nil
	}
	return nil, fmt.Errorf("no results array")
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// dirListing names the files of dir with their sizes, to notice a file added or grown.
func dirListing(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d", e.Name(), info.Size()))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// ---------------------------------------------------------------------------------------------
// The test

func TestQueryE2E(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end: builds a database")
	}
	start := time.Now()
	db := ingestE2EDB(t)
	t.Logf("ingest: %s", time.Since(start).Round(time.Millisecond))

	t.Run("seeds", func(t *testing.T) { testSeedQueries(t, db) })
	t.Run("seed_limits", func(t *testing.T) { testSeedLimits(t, db) })
	t.Run("hostile", func(t *testing.T) { testHostile(t, db) })
	t.Run("harmless", func(t *testing.T) { testHarmlessLimits(t, db) })
	t.Run("length", func(t *testing.T) { testQueryLength(t, db) })
	t.Run("bombs", func(t *testing.T) { testBombs(t, db) })
	t.Run("legit", func(t *testing.T) { testLegit(t, db) })
	t.Run("hidden", func(t *testing.T) { testHiddenStoreID(t, db) })
	t.Run("formats", func(t *testing.T) { testFormats(t, db) })
}

// ---------------------------------------------------------------------------------------------
// a. The design documents' example queries

// seedSQL is one SQL text found in a seed document.
type seedSQL struct {
	file    string // seed file base name
	line    int    // 1-based line where the SQL starts
	sql     string
	dataset string // events, stores or products (by the file the SQL names)
	refuse  bool   // not a single SELECT: the seed expects it to be blocked
}

func (s seedSQL) name() string {
	return fmt.Sprintf("%s:%d", strings.SplitN(s.file, "_", 2)[0], s.line)
}

var (
	// seedFromRe finds the file a seed query reads; it decides the dataset.
	seedFromRe = regexp.MustCompile(`(?i)\bFROM\s+'(input/events\.csv|events\.csv|stores\.csv|filtered_product_data\.csv)'`)
	// seedBacktickRe finds `SELECT ...` in markdown tables and prose.
	seedBacktickRe = regexp.MustCompile("`((?i:SELECT)\\s[^`]*)`")
	// seedContinuationRe continues a SQL block on the next line of a code block.
	seedContinuationRe = regexp.MustCompile(`^(?i:WHERE|AND|OR|ORDER\s+BY|GROUP\s+BY|HAVING|LIMIT|OFFSET|JOIN|UNION)\b`)
	// seedStatementRe says whether a quoted python string is SQL at all.
	seedStatementRe = regexp.MustCompile(`^(?i:SELECT|WITH|INSERT|UPDATE|DELETE|DROP|CREATE|ALTER|TRUNCATE|PRAGMA|ATTACH)\b`)
	// seedMultiRe finds a second statement after a ';'.
	seedMultiRe = regexp.MustCompile(`;\s*\S`)
)

// pythonEscapedStrings returns the contents of the \"...\" strings of a line of a `python -c "..."`
// snippet, with the inner \\\" unescaped to ".
func pythonEscapedStrings(line string) []string {
	var out []string
	for {
		i := strings.Index(line, `\"`)
		if i < 0 {
			return out
		}
		rest := line[i+2:]
		var b strings.Builder
		closed := false
		for len(rest) > 0 {
			if strings.HasPrefix(rest, `\\\"`) {
				b.WriteByte('"')
				rest = rest[4:]
				continue
			}
			if strings.HasPrefix(rest, `\"`) {
				rest = rest[2:]
				closed = true
				break
			}
			b.WriteByte(rest[0])
			rest = rest[1:]
		}
		if !closed {
			return out
		}
		out = append(out, b.String())
		line = rest
	}
}

// extractSeedSQL finds every example SQL statement of one seed document: multi-line blocks in code
// blocks and prose, `...` in tables, "..." in mermaid diagrams and SQL comments (<br/> is a line
// break) and \"...\" in python snippets. Placeholders ("WHERE ...") are returned in skipped.
func extractSeedSQL(file, text string) (found []seedSQL, skipped []string) {
	lines := strings.Split(text, "\n")
	add := func(lineNo int, sql string) {
		sql = strings.TrimSpace(sql)
		if sql == "" || !seedStatementRe.MatchString(sql) {
			return
		}
		if strings.Contains(sql, "...") || strings.Contains(sql, "…") {
			skipped = append(skipped, fmt.Sprintf("%s:%d %s", file, lineNo, sql))
			return
		}
		s := seedSQL{file: file, line: lineNo, sql: sql}
		m := seedFromRe.FindStringSubmatch(sql)
		isSelect := strings.HasPrefix(strings.ToUpper(sql), "SELECT")
		switch {
		case m != nil && isSelect && !seedMultiRe.MatchString(sql):
			s.dataset = datasetOfSeedFile(m[1])
		case m != nil:
			s.dataset, s.refuse = datasetOfSeedFile(m[1]), true
		default:
			// DROP TABLE stores, UPDATE 'stores.csv' ...: the validation examples.
			s.refuse = true
			s.dataset = "products"
			for _, d := range []string{"events", "stores"} {
				if strings.Contains(sql, d) {
					s.dataset = d
				}
			}
		}
		found = append(found, s)
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strs := pythonEscapedStrings(line); len(strs) > 0 {
			for _, s := range strs {
				add(i+1, s)
			}
			continue
		}
		if j := strings.Index(line, `"SELECT`); j >= 0 {
			if k := strings.LastIndex(line, `"`); k > j {
				add(i+1, strings.ReplaceAll(line[j+1:k], "<br/>", "\n"))
				continue
			}
		}
		if ms := seedBacktickRe.FindAllStringSubmatch(line, -1); ms != nil {
			for _, m := range ms {
				add(i+1, m[1])
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "SELECT ") {
			start := i + 1
			block := []string{trimmed}
			for i+1 < len(lines) && seedContinuationRe.MatchString(strings.TrimSpace(lines[i+1])) {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			if seedFromRe.MatchString(strings.Join(block, "\n")) {
				add(start, strings.Join(block, "\n"))
			}
		}
	}
	return found, skipped
}

func datasetOfSeedFile(f string) string {
	switch strings.ToLower(f) {
	case "events.csv", "input/events.csv":
		return "events"
	case "stores.csv":
		return "stores"
	}
	return "products"
}

func seedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "seeds")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no seed documents at %s: %v", dir, err)
	}
	return dir
}

// loadSeedSQL extracts the SQL of every seed document, deduplicated by dataset and text.
func loadSeedSQL(t *testing.T) []seedSQL {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(seedDir(t), "*.txt"))
	if err != nil || len(files) == 0 {
		t.Skipf("no seed documents: %v", err)
	}
	var all []seedSQL
	seen := map[string]bool{}
	total := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		found, skipped := extractSeedSQL(filepath.Base(f), string(b))
		for _, s := range skipped {
			t.Logf("placeholder, not a query: %s", s)
		}
		for _, s := range found {
			total++
			key := s.dataset + "\x00" + s.sql
			if !seen[key] {
				seen[key] = true
				all = append(all, s)
			}
		}
	}
	t.Logf("seed SQL: %d occurrences, %d distinct", total, len(all))
	return all
}

// seedZeroRows are seed queries that legitimately match nothing, with why.
var seedZeroRows = map[string]string{
	// The zero-result check of the stores design document.
	"SELECT * FROM 'stores.csv' WHERE store_name = '存在しない店舗'": "検索条件に一致する店舗が見つかりませんでした",
	// The events sequence diagram drops the JSON quotes (a mermaid label cannot hold them), so the
	// pattern cannot match the data's "is_free": true; the same query with quotes is checked too.
	"SELECT * FROM 'events.csv'\nWHERE cost LIKE '%is_free: true%'": "検索条件に一致するイベントが見つかりませんでした",
}

func testSeedQueries(t *testing.T, db e2eDB) {
	all := loadSeedSQL(t)
	var selects, refusals int
	for _, s := range all {
		if s.refuse {
			refusals++
		} else {
			selects++
		}
	}
	t.Logf("seed SELECTs: %d distinct; seed statements that must be refused: %d", selects, refusals)
	if selects < 30 {
		for _, s := range all {
			t.Logf("found %s [%s] %q", s.name(), s.dataset, s.sql)
		}
		t.Fatalf("found only %d distinct seed SELECT queries, want at least 30: the extractor is broken", selects)
	}
	if refusals < 3 {
		t.Fatalf("found only %d seed statements to refuse (DROP, UPDATE, SELECT ...; DROP ...), want at least 3", refusals)
	}
	for _, s := range all {
		t.Run(s.name(), func(t *testing.T) {
			t.Logf("[%s] %s", s.dataset, s.sql)
			res := db.query(s.dataset, "json", s.sql)
			if s.refuse {
				wantRefusal(t, res, "refused")
				return
			}
			doc := wantRows(t, res)
			if msg, ok := seedZeroRows[s.sql]; ok {
				if *doc.Count != 0 || doc.Message != msg || doc.Hint == "" {
					t.Fatalf("want count 0, message %q and a hint:\n%s", msg, res)
				}
				return
			}
			if *doc.Count < 1 {
				t.Fatalf("the seed query %q matched nothing in the sample data:\n%s", s.sql, res)
			}
		})
	}
}

// testSeedLimits are the LIMIT checks of the design documents (events: 35 rows, stores: 20 rows).
func testSeedLimits(t *testing.T, db e2eDB) {
	cases := []struct {
		dataset, sql string
		count        int
		truncated    bool
	}{
		{"events", "SELECT * FROM 'input/events.csv'", 10, true},
		{"events", "SELECT * FROM 'input/events.csv' LIMIT 5", 5, true},
		{"events", "SELECT * FROM 'input/events.csv' LIMIT 5 OFFSET 30", 5, false},
		{"events", "SELECT * FROM 'input/events.csv' LIMIT 100", 10, true},
		{"events", "SELECT event_name FROM 'input/events.csv' LIMIT 3", 3, true},
		{"events", "SELECT event_name FROM 'events.csv' LIMIT 3", 3, true},
		{"events", "SELECT event_name FROM 'events.csv' LIMIT 3 OFFSET 33", 2, false},
		{"stores", "SELECT * FROM 'stores.csv'", 10, true},
		{"stores", "SELECT * FROM 'stores.csv' LIMIT 3", 3, true},
		{"stores", "SELECT * FROM 'stores.csv' LIMIT 5", 5, true},
		{"stores", "SELECT * FROM 'stores.csv' LIMIT 100", 10, true},
		{"stores", "SELECT store_name, category FROM 'stores.csv' LIMIT 3", 3, true},
		{"products", "SELECT * FROM 'filtered_product_data.csv' LIMIT 3", 3, true},
		{"products", "SELECT * FROM 'filtered_product_data.csv' WHERE tag = 'ギフト' LIMIT 5", 5, true},
	}
	for _, tc := range cases {
		t.Run(tc.dataset+"/"+tc.sql, func(t *testing.T) {
			res := db.query(tc.dataset, "json", tc.sql)
			doc := wantRows(t, res)
			if *doc.Count != tc.count || *doc.Truncated != tc.truncated {
				t.Fatalf("want count %d truncated %v:\n%s", tc.count, tc.truncated, res)
			}
		})
	}
	// The events total the LIMIT checks rely on.
	doc := wantRows(t, db.query("events", "json", "SELECT count(*) AS n FROM events"))
	if n := fmt.Sprint(doc.Results[0]["n"]); n != "35" {
		t.Fatalf("the sample data has %s events, the checks above assume 35", n)
	}
}

// ---------------------------------------------------------------------------------------------
// b. Hostile input

// hostileSample is one in how many hostile cases run through the binary.
const hostileSample = 8

func testHostile(t *testing.T, db e2eDB) {
	outDir := t.TempDir()
	// The one hostile corpus, with this database's profiles file and an empty directory to write to.
	cases := guardtest.Hostile(outDir, db.profiles)
	if len(cases) < 60 {
		t.Fatalf("only %d hostile cases, want at least 60", len(cases))
	}
	// The whole corpus runs in process through the guard and a worker's engine
	// (internal/worker's TestHostileCorpusInProcess); through real processes, a sample of it: every
	// hostileSample-th case and the three that cannot be written in a text file, which come last.
	var sample []guardtest.Case
	for i, tc := range cases {
		if i%hostileSample == 0 || i >= len(cases)-3 {
			sample = append(sample, tc)
		}
	}
	cases = sample
	t.Logf("hostile cases through real processes: %d", len(cases))
	leaks := append(ingesttest.ProfileIDs(t, db.input), "root:x:0:0")
	beforeMain, beforeProfiles := fileSHA256(t, db.path), fileSHA256(t, db.profiles)
	beforeDir := dirListing(t, db.dir)

	t.Run("cases", func(t *testing.T) {
		names := map[string]bool{}
		for i, tc := range cases {
			if names[tc.Name] {
				t.Fatalf("duplicate case name %s", tc.Name)
			}
			names[tc.Name] = true
			t.Run(tc.Name, func(t *testing.T) {
				t.Parallel() // each in a worker process of its own; the checks of the files follow them all
				// Every dataset's query reads through the same guard; take turns.
				dataset := []string{"events", "stores", "products"}[i%3]
				res := db.query(dataset, "json", tc.SQL)
				t.Logf("refused: %s", clip(wantRefusal(t, res, tc.Want), 160))
				for _, leak := range leaks {
					if strings.Contains(res.stdout+res.stderr, leak) {
						t.Fatalf("the output contains %q:\n%s", leak, res)
					}
				}
			})
		}
	})

	if got := fileSHA256(t, db.path); got != beforeMain {
		t.Errorf("the database file changed during the hostile corpus: sha256 %s -> %s", beforeMain, got)
	}
	if got := fileSHA256(t, db.profiles); got != beforeProfiles {
		t.Errorf("the profiles file changed during the hostile corpus: sha256 %s -> %s", beforeProfiles, got)
	}
	if got := dirListing(t, db.dir); got != beforeDir {
		t.Errorf("the database directory changed:\nbefore:\n%s\nafter:\n%s", beforeDir, got)
	}
	if entries, err := os.ReadDir(outDir); err != nil || len(entries) != 0 {
		t.Errorf("COPY/EXPORT wrote into %s: %v %v", outDir, entries, err)
	}
}

// ---------------------------------------------------------------------------------------------
// Harmless LIMIT tricks: they run, or are refused when no answer could say whether more rows matched;
// they never return more than 10 rows, and truncated says whether more matched than came back.

func testHarmlessLimits(t *testing.T, db e2eDB) {
	cases := []struct {
		name, dataset, sql string
		count              int    // -1: any count up to 10
		truncated          *bool  // nil: either
		wantErr            string // non-empty: DuckDB refuses it (exit 1) with this text
	}{
		{"limit_percent", "events", "SELECT * FROM events LIMIT 10%", 0, nil, "LIMIT in percent"},
		{"limit_percent_100", "events", "SELECT * FROM events LIMIT 100%", 0, nil, "LIMIT in percent"},
		{"limit_subquery", "events", "SELECT * FROM events LIMIT (SELECT 100)", 0, nil, "a LIMIT that is an expression"},
		{"limit_million", "events", "SELECT * FROM events LIMIT 1000000", 10, ptr(true), ""},
		{"limit_bigint_max", "events", "SELECT * FROM events LIMIT 9223372036854775807", 10, ptr(true), ""},
		{"limit_all", "events", "SELECT * FROM events LIMIT ALL", 10, ptr(true), ""},
		{"limit_null", "events", "SELECT * FROM events LIMIT NULL", 10, ptr(true), ""},
		{"fetch_first", "events", "SELECT * FROM events FETCH FIRST 100 ROWS ONLY", 10, ptr(true), ""},
		{"limit_11", "events", "SELECT * FROM events LIMIT 11", 10, ptr(true), ""},
		{"limit_10", "events", "SELECT * FROM events LIMIT 10", 10, ptr(true), ""},
		{"limit_3", "events", "SELECT * FROM events LIMIT 3", 3, ptr(true), ""},
		{"limit_3_offset_32", "events", "SELECT * FROM events LIMIT 3 OFFSET 32", 3, ptr(false), ""},
		{"offset_30", "events", "SELECT * FROM events OFFSET 30", 5, ptr(false), ""},
		{"limit_100_offset_20", "events", "SELECT * FROM events ORDER BY event_name LIMIT 100 OFFSET 20", 10, ptr(true), ""},
		{"limit_10_offset_30", "events", "SELECT * FROM events LIMIT 10 OFFSET 30", 5, ptr(false), ""},
		{"offset_past_end", "events", "SELECT * FROM events OFFSET 1000", 0, ptr(false), ""},
		{"limit_negative", "events", "SELECT * FROM events LIMIT -1", 0, nil, "LIMIT/OFFSET cannot be negative"},
		{"nested_limits", "events", "SELECT * FROM (SELECT * FROM (SELECT * FROM events LIMIT 100) LIMIT 50)", 10, ptr(true), ""},
		{"cte_limit", "events", "WITH x AS (SELECT * FROM events LIMIT 1000) SELECT * FROM x", 10, ptr(true), ""},
		{"union_all_two_tens", "events", "(SELECT event_name FROM events LIMIT 10) UNION ALL (SELECT event_name FROM events LIMIT 10)", 10, ptr(true), ""},
		{"union_all_plain", "stores", "SELECT store_name FROM stores UNION ALL SELECT store_name FROM stores", 10, ptr(true), ""},
		{"order_by_limit_big", "products", "SELECT product_name FROM products ORDER BY product_name LIMIT 5000", 10, ptr(true), ""},
		{"range_million", "events", "SELECT * FROM range(1000000)", 10, ptr(true), ""},
		{"range_10", "events", "SELECT * FROM range(10)", 10, ptr(false), ""},
		{"generate_series_big", "events", "SELECT * FROM generate_series(1, 100000000)", 10, ptr(true), ""},
		{"cross_join_small", "stores", "SELECT a.store_name, b.store_name FROM stores a, stores b", 10, ptr(true), ""},
		{"profiles_cte_shadow", "events", "WITH profiles AS (SELECT 1 AS x) SELECT * FROM profiles", 1, ptr(false), ""},
	}
	t.Logf("harmless cases: %d", len(cases))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := db.query(tc.dataset, "json", tc.sql)
			if tc.wantErr != "" {
				wantRefusal(t, res, tc.wantErr)
				return
			}
			doc := wantRows(t, res)
			if tc.count >= 0 && *doc.Count != tc.count {
				t.Fatalf("want count %d:\n%s", tc.count, res)
			}
			if tc.truncated != nil && *doc.Truncated != *tc.truncated {
				t.Fatalf("want truncated %v:\n%s", *tc.truncated, res)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// testQueryLength: the limit is schema.MaxQueryChars characters, as the tools' maxLength counts, so a
// Japanese query of 300 KB at the limit runs and one character more is refused (read from stdin, as
// a query too long for one argument is sent).
func testQueryLength(t *testing.T, db e2eDB) {
	head := "SELECT 1 AS one -- "
	atLimit := head + strings.Repeat("あ", schema.MaxQueryChars-utf8.RuneCountInString(head))
	res := runCtool(atLimit, "query", "events", "--db", db.path, "--format", "json", "-")
	if doc := wantRows(t, res); *doc.Count != 1 {
		t.Fatalf("want one row:\n%s", res)
	}
	res = runCtool(atLimit+"あ", "query", "events", "--db", db.path, "--format", "json", "-")
	wantRefusal(t, res, "query too long. The text has 100001 characters; the limit is 100000.")
}

// ---------------------------------------------------------------------------------------------
// Resource bombs: each is stopped, and the test checks what stopped it (the error's kind and message),
// never how long that took: a loaded machine may reach a limit later, or reach another limit first.

// bombStop is one limit that may stop a bomb, as the error reports it.
type bombStop struct {
	kind fault.Kind
	msg  *regexp.Regexp
}

func (s bombStop) String() string { return string(s.kind) + " " + s.msg.String() }

var (
	byTimeout    = bombStop{fault.KindTimeout, regexp.MustCompile(`^the query ran past its time limit and was stopped; make it cheaper`)}
	byMemory     = bombStop{fault.KindSQL, regexp.MustCompile(`^Out of Memory Error: `)} // DuckDB's memory_limit
	byAddrSpace  = bombStop{fault.KindTooLarge, regexp.MustCompile(`^the query needed more memory than a query may use and was stopped$`)}
	byResultSize = bombStop{fault.KindTooLarge, regexp.MustCompile(`^the result is too large \(over \d+ KiB in \d+ rows\)`)}
	byStringSize = bombStop{fault.KindSQL, regexp.MustCompile(`^Out of Range Error: Cannot create a string of size`)}
)

func testBombs(t *testing.T, db e2eDB) {
	// Only a guard against a hang: a bomb that is not stopped at all is killed after this.
	const hangGuard = 2 * time.Minute
	memory := []bombStop{byMemory, byAddrSpace}
	cases := []struct {
		name  string
		sql   string
		stops []bombStop // what may stop it, on a fast or a slow machine
	}{
		{"range_1e12_filter", "SELECT count(*) FROM range(CAST(1e12 AS BIGINT)) t(x) WHERE x % 7 = 3", []bombStop{byTimeout}},
		{"range_literal_filter", "SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3", []bombStop{byTimeout}},
		{"repeat_300MB_x11", "SELECT repeat('x', 300000000) FROM range(11)", append([]bombStop{byTimeout, byResultSize}, memory...)},
		{"string_agg_huge", "SELECT length(string_agg(repeat('x', 1000000), ',')) FROM range(100000)", append([]bombStop{byTimeout}, memory...)},
		{"string_agg_result_too_large", "SELECT string_agg(repeat('x', 1000), ',') AS s FROM range(2000)", []bombStop{byResultSize}},
		{"recursive_cte_forever", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t", append([]bombStop{byTimeout}, memory...)},
		{"cross_join_7", "SELECT count(*) FROM events a, events b, events c, events d, events e, events f, events g", []bombStop{byTimeout}},
		{"list_100M", "SELECT list(x) FROM range(100000000) t(x)", append([]bombStop{byTimeout}, memory...)},
		{"string_over_4GB", "SELECT max(length(repeat(event_name, 100000000))) FROM events", []bombStop{byStringSize}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A real process, with the memory cap a query process has; the test process keeps its own.
			// A bomb the timeout may stop burns a core until it does: one second is enough to show it.
			timeout := "2s"
			if slices.Contains(tc.stops, byTimeout) {
				timeout = "1s"
			}
			res := runCtoolProcess(t, hangGuard, "query", "events", "--db", db.path, "--format", "json", "--timeout", timeout, tc.sql)
			if !res.finished {
				t.Fatalf("not stopped by any limit (killed after %s):\n%s", hangGuard, res)
			}
			msg, kind, err := jsonError(res.stdout)
			if err != nil {
				t.Fatalf("%v:\n%s", err, res)
			}
			stoppedBy := false
			for _, s := range tc.stops {
				stoppedBy = stoppedBy || (fault.Kind(kind) == s.kind && s.msg.MatchString(msg))
			}
			if !stoppedBy {
				t.Fatalf("stopped by something other than %v:\n%s", tc.stops, res)
			}
			if res.code != fault.Kind(kind).Status() {
				t.Fatalf("exit %d, want %d for kind %s:\n%s", res.code, fault.Kind(kind).Status(), kind, res)
			}
			t.Logf("%s: %s", kind, clip(msg, 120))
		})
	}
	// The database still answers after the bombs.
	wantRows(t, db.query("events", "json", "SELECT count(*) FROM events"))
}

// ---------------------------------------------------------------------------------------------
// c. Legitimate queries with dangerous words

func testLegit(t *testing.T, db e2eDB) {
	cases := []struct {
		name, dataset, sql string
		minCount           int
		check              func(t *testing.T, doc querytest.Doc) // optional
	}{
		{"like_delete", "events", "SELECT event_name FROM events WHERE description LIKE '%DELETE%'", 0, nil},
		{"like_drop_table", "events", "SELECT event_name FROM events WHERE description LIKE '%DROP TABLE%'", 0, nil},
		{"like_semicolon_select", "events", "SELECT event_name FROM events WHERE description LIKE '%; SELECT%'", 0, nil},
		{"ilike_insert", "products", "SELECT product_name FROM products WHERE product_name ILIKE '%insert%' OR tag = 'update'", 0, nil},
		{"alias_select", "events", `SELECT event_name AS "select" FROM events LIMIT 1`, 1, func(t *testing.T, doc querytest.Doc) {
			if _, ok := doc.Results[0]["select"]; !ok {
				t.Fatalf("no column \"select\": %v", doc.Results[0])
			}
		}},
		{"alias_keywords", "events", `SELECT 1 AS "drop", 2 AS "update", 3 AS "attach"`, 1, nil},
		{"string_read_csv", "events", "SELECT 'read_csv(''x'')' AS s", 1, func(t *testing.T, doc querytest.Doc) {
			if doc.Results[0]["s"] != "read_csv('x')" {
				t.Fatalf("want the string read_csv('x'), got %v", doc.Results[0]["s"])
			}
		}},
		{"string_drop_statement", "events", "SELECT 'SELECT 1; DROP TABLE events' AS s", 1, nil},
		{"dollar_string", "events", "SELECT $$; DROP TABLE events$$ AS s", 1, func(t *testing.T, doc querytest.Doc) {
			if doc.Results[0]["s"] != "; DROP TABLE events" {
				t.Fatalf("got %v", doc.Results[0]["s"])
			}
		}},
		{"comment_with_drop", "events", "SELECT count(*) AS n FROM events /* DROP TABLE events; */", 1, nil},
		{"events_typed", "events", "SELECT event_name, start_date, end_date, is_free, target_audience FROM events_typed ORDER BY start_date LIMIT 5", 5, nil},
		{"stores_typed", "stores", "SELECT store_name, parking_available, parking_capacity, kids_menu, target_audience FROM stores_typed LIMIT 5", 5, nil},
		{"store_hours", "stores", "SELECT store_name, day, opens, closes, overnight FROM store_hours WHERE store_name LIKE '%マーケット%'", 1, nil},
		{"store_closures", "stores", "SELECT store_name, date, type, reason FROM store_closures ORDER BY date", 1, nil},
		{"products_typed", "products", "SELECT product_name, price_yen FROM products_typed WHERE price_yen IS NOT NULL ORDER BY price_yen LIMIT 5", 5, nil},
		{"is_open_fixed_time", "stores", "SELECT store_name, category FROM stores WHERE is_open(store_id, TIMESTAMP '2025-10-03 20:00')", 1, nil},
		{"is_open_cafe", "stores", "SELECT store_name, address FROM stores\nWHERE category = 'cafe' AND is_open(store_id, TIMESTAMP '2025-10-03 20:00')", 0, nil},
		{"tokyo_now", "events", "SELECT tokyo_now() AS now, CAST(tokyo_now() AS DATE) AS today", 1, nil},
		{"is_open_now", "stores", "SELECT store_name FROM stores WHERE is_open(store_id, tokyo_now())", 0, nil},
		{"join_products_stores", "products", "SELECT p.store_name, p.product_name, s.category FROM products p JOIN stores s ON s.store_id = p.store_id WHERE s.category = 'retail'", 1, nil},
		{"join_events_stores", "events", "SELECT e.event_name, s.store_name FROM events_typed e JOIN stores s ON e.venue = s.store_name", 0, nil},
		{"window_row_number", "stores", "SELECT store_name, category, row_number() OVER (PARTITION BY category ORDER BY store_name) AS rn FROM stores", 10, nil},
		{"window_count", "products", "SELECT DISTINCT tag, count(*) OVER (PARTITION BY tag) AS n FROM products", 1, nil},
		{"qualify", "stores", "SELECT category, store_name FROM stores QUALIFY row_number() OVER (PARTITION BY category ORDER BY store_name) = 1", 1, nil},
		{"union", "events", "SELECT 'a' AS x UNION SELECT 'b' ORDER BY x", 2, nil},
		{"union_tables", "stores", "SELECT store_name AS name FROM stores WHERE category = 'cafe' UNION SELECT event_name FROM events WHERE event_name LIKE '%カフェ%'", 1, nil},
		{"values_from", "events", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(n, s)", 2, nil},
		{"values_bare", "events", "VALUES (1, 'a'), (2, 'b')", 2, nil},
		{"trailing_semicolon", "events", "SELECT count(*) AS n FROM events;", 1, nil},
		{"trailing_semicolons_space", "events", "SELECT count(*) AS n FROM events ;  \n", 1, nil},
		{"trailing_line_comment", "events", "SELECT count(*) AS n FROM events -- the total", 1, nil},
		{"semicolon_then_comment", "events", "SELECT count(*) AS n FROM events; -- done", 1, nil},
		{"leading_comment", "events", "/* count them */ SELECT count(*) AS n FROM events", 1, nil},
		{"leading_line_comment", "events", "-- count them\nSELECT count(*) AS n FROM events", 1, nil},
		{"cte", "stores", "WITH s AS (SELECT * FROM stores WHERE category = 'retail') SELECT store_name FROM s", 1, nil},
		{"recursive_cte_finite", "events", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t", 5, nil},
		{"from_first", "events", "FROM events SELECT event_name LIMIT 3", 3, nil},
		{"json_functions", "events", "SELECT json_extract_string(location, '$.venue') AS venue FROM events WHERE json_valid(location) LIMIT 3", 3, nil},
		{"unnest_list", "events", "SELECT DISTINCT unnest(target_audience) AS who FROM events_typed", 1, nil},
		{"list_contains", "events", "SELECT event_name FROM events_typed WHERE list_contains(target_audience, '家族')", 1, nil},
		{"pivot_in_list", "events", "SELECT * FROM (PIVOT events ON registration_required IN ('True') USING count(*))", 1, nil},
		{"regexp", "products", "SELECT product_name, regexp_extract(product_description, '([0-9,]+)円', 1) AS yen FROM products LIMIT 3", 3, nil},
		{"lowercase", "events", "select event_name from events where event_name like '%BMW%'", 1, nil},
		{"file_name_views", "stores", "SELECT count(*) AS n FROM 'filtered_store_data_カテゴリー情報あり.csv' JOIN 'input/filtered_store_data_カテゴリー情報あり.csv' USING (store_id)", 1, nil},
		{"products_file_views", "products", "SELECT count(*) AS n FROM 'input/filtered_product_data.csv'", 1, nil},
		{"lambda", "events", "SELECT list_transform([1, 2, 3], x -> x * 2) AS l", 1, nil},
		{"group_by_having", "products", "SELECT tag, count(*) AS n FROM products GROUP BY tag HAVING count(*) > 1 ORDER BY n DESC", 1, nil},
		{"case_when", "stores", "SELECT store_name, CASE WHEN pets_allowed = 'TRUE' THEN 'ok' ELSE 'no' END AS pets FROM stores LIMIT 3", 3, nil},
	}
	t.Logf("legit cases: %d", len(cases))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := db.query(tc.dataset, "json", tc.sql)
			doc := wantRows(t, res)
			if *doc.Count < tc.minCount {
				t.Fatalf("want at least %d rows:\n%s", tc.minCount, res)
			}
			if tc.check != nil {
				tc.check(t, doc)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------------
// d. products never show store_id

func testHiddenStoreID(t *testing.T, db e2eDB) {
	storeIDs := regexp.MustCompile(`STR-\d{4}`)
	// store_id is left out of products results by name, and the result says so.
	droppedByName := []struct {
		name, sql string
	}{
		{"select_star", "SELECT * FROM products"},
		{"select_star_file_view", "SELECT * FROM 'filtered_product_data.csv'"},
		{"select_star_typed", "SELECT * FROM products_typed"},
		// DuckDB names the second store_id column store_id_1; it is dropped too.
		{"p_star_and_s_store_id", "SELECT p.*, s.store_id FROM products p JOIN stores s ON s.store_id = p.store_id"},
		{"join_on_star", "SELECT * FROM products p JOIN stores s ON s.store_id = p.store_id"},
		{"join_using_star", "SELECT * FROM products p JOIN stores s USING (store_id)"},
		{"store_id_and_name", `SELECT "STORE_ID", product_name FROM products`},
		{"columns_star", "SELECT COLUMNS('.*id.*'), product_name FROM products"},
		{"star_in_subquery", "SELECT * FROM (SELECT * FROM products)"},
	}
	for _, tc := range droppedByName {
		t.Run(tc.name, func(t *testing.T) {
			res := db.query("products", "json", tc.sql)
			doc := wantRows(t, res)
			for _, row := range doc.Results {
				for k := range row {
					if strings.HasPrefix(strings.ToLower(k), "store_id") {
						t.Fatalf("a products result has the key %q:\n%s", k, res)
					}
				}
			}
			if !strings.Contains(doc.Note, "store_id is internal to products") {
				t.Fatalf("the result does not say store_id was left out:\n%s", res)
			}
			for _, format := range []string{"json", "jsonl", "csv", "table"} {
				res := db.query("products", format, tc.sql)
				if res.code != 0 || storeIDs.MatchString(res.stdout) {
					t.Fatalf("%s: want exit 0 and no store id shown:\n%s", format, res)
				}
				if format != "json" && !strings.Contains(res.stdout+res.stderr, "left out") {
					t.Fatalf("%s: the output does not say store_id was left out:\n%s", format, res)
				}
			}
		})
	}
	// A query of nothing but store_id has nothing left to show: it is refused with the reason.
	for _, sql := range []string{"SELECT store_id FROM products", "SELECT store_id AS STORE_ID FROM products",
		"SELECT store_id FROM products UNION SELECT store_id FROM stores"} {
		wantRefusal(t, db.query("products", "json", sql), "store_id is internal to products")
	}
	// Hiding is presentation by name (the design documents: 内部処理用、ユーザーには非表示): a column the
	// agent names otherwise is its own choice and is shown.
	for _, sql := range []string{"SELECT store_id AS sid FROM products", "SELECT * RENAME (store_id AS sid) FROM products"} {
		doc := wantRows(t, db.query("products", "json", sql))
		if _, ok := doc.Results[0]["sid"]; !ok || doc.Note != "" {
			t.Errorf("%s: want the sid column and no note, got %v", sql, doc.Results[0])
		}
	}
	// stores results do show store_id.
	t.Run("stores_show_store_id", func(t *testing.T) {
		res := db.query("stores", "json", "SELECT store_id, store_name FROM stores ORDER BY store_id LIMIT 3")
		doc := wantRows(t, res)
		if *doc.Count != 3 || doc.Results[0]["store_id"] != "STR-0001" || doc.Note != "" {
			t.Fatalf("want store_id STR-0001 first and no note:\n%s", res)
		}
	})
}

// ---------------------------------------------------------------------------------------------
// e. Output formats, zero rows, stdin, usage and database errors

func testFormats(t *testing.T, db e2eDB) {
	t.Run("json_column_order", func(t *testing.T) {
		for _, tc := range []struct {
			sql  string
			keys []string
		}{
			{"SELECT category, store_name, store_id FROM stores ORDER BY store_id LIMIT 2", []string{"category", "store_name", "store_id"}},
			{"SELECT z, a, m FROM (SELECT 1 AS a, 2 AS m, 3 AS z)", []string{"z", "a", "m"}},
			{"SELECT tag, product_name, store_name FROM products LIMIT 1", []string{"tag", "product_name", "store_name"}},
		} {
			res := db.query("stores", "json", tc.sql)
			wantRows(t, res)
			rows, err := resultKeys(res.stdout)
			if err != nil || len(rows) == 0 {
				t.Fatalf("reading the keys: %v\n%s", err, res)
			}
			for _, keys := range rows {
				if strings.Join(keys, ",") != strings.Join(tc.keys, ",") {
					t.Fatalf("keys %v, want the SELECT's order %v:\n%s", keys, tc.keys, res)
				}
			}
		}
	})

	t.Run("json_typed_values", func(t *testing.T) {
		res := db.query("events", "json", `SELECT 42::INTEGER AS i, 1.5::DOUBLE AS d, true AS b, false AS f, NULL AS n,
			['a', 'b'] AS l, DATE '2025-10-03' AS dt, {'k': 1} AS st, 'x' AS s`)
		doc := wantRows(t, res)
		row := doc.Results[0]
		want := map[string]string{"i": "42", "d": "1.5", "b": "true", "f": "false", "n": "null", "l": `["a","b"]`,
			"dt": `"2025-10-03"`, "st": `{"k":1}`, "s": `"x"`}
		for k, w := range want {
			b, err := json.Marshal(row[k])
			if err != nil || string(b) != w {
				t.Errorf("%s = %s, want %s", k, b, w)
			}
		}
		if _, ok := row["i"].(json.Number); !ok {
			t.Errorf("INTEGER is %T, want a JSON number", row["i"])
		}
		if t.Failed() {
			t.Log(res)
		}
	})

	t.Run("json_typed_views", func(t *testing.T) {
		res := db.query("products", "json", "SELECT product_name, price_yen FROM products_typed WHERE price_yen IS NOT NULL ORDER BY price_yen LIMIT 3")
		doc := wantRows(t, res)
		for _, row := range doc.Results {
			if n, ok := row["price_yen"].(json.Number); !ok || strings.ContainsAny(n.String(), ".eE\"") {
				t.Fatalf("price_yen is %T %v, want an integer JSON number:\n%s", row["price_yen"], row["price_yen"], res)
			}
		}
		res = db.query("events", "json", "SELECT event_name, is_free, registration_required, target_audience, start_date, end_date FROM events_typed WHERE is_free IS NOT NULL ORDER BY start_date LIMIT 5")
		doc = wantRows(t, res)
		date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
		var known, unknown int // registration_required: true, or null where the cell is empty
		for _, row := range doc.Results {
			if _, ok := row["is_free"].(bool); !ok {
				t.Fatalf("is_free is %T, want a JSON boolean:\n%s", row["is_free"], res)
			}
			switch row["registration_required"].(type) {
			case bool:
				known++
			case nil:
				unknown++
			default:
				t.Fatalf("registration_required is %T, want a JSON boolean or null:\n%s", row["registration_required"], res)
			}
			if _, ok := row["target_audience"].([]any); !ok {
				t.Fatalf("target_audience is %T, want a JSON array:\n%s", row["target_audience"], res)
			}
			for _, k := range []string{"start_date", "end_date"} {
				if s, ok := row[k].(string); !ok || !date.MatchString(s) {
					t.Fatalf("%s is %v, want \"YYYY-MM-DD\":\n%s", k, row[k], res)
				}
			}
		}
		if known == 0 || unknown == 0 {
			t.Fatalf("registration_required: %d booleans and %d nulls, want both:\n%s", known, unknown, res)
		}
		res = db.query("stores", "json", "SELECT store_name, parking_capacity FROM stores_typed WHERE parking_capacity IS NULL LIMIT 1")
		doc = wantRows(t, res)
		if *doc.Count == 1 {
			if v, ok := doc.Results[0]["parking_capacity"]; !ok || v != nil {
				t.Fatalf("a NULL parking_capacity is %v (present %v), want null:\n%s", v, ok, res)
			}
		}
	})

	// The three stores of the first queries are all that match, so no note joins them.
	const firstThree = " WHERE store_id <= 'STR-0003' ORDER BY store_id LIMIT 3"
	t.Run("jsonl", func(t *testing.T) {
		sql := "SELECT store_id, store_name FROM stores"
		res := db.query("stores", "jsonl", sql+firstThree)
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("want exit 0 and nothing on stderr:\n%s", res)
		}
		lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("want 3 lines:\n%s", res)
		}
		jsonDoc := wantRows(t, db.query("stores", "json", sql+firstThree))
		for i, l := range lines {
			var obj map[string]any
			if err := decodeStrict(l, &obj); err != nil {
				t.Fatalf("line %d is not one JSON object: %v\n%s", i+1, err, res)
			}
			if fmt.Sprint(obj) != fmt.Sprint(jsonDoc.Results[i]) {
				t.Fatalf("line %d is %v, json says %v", i+1, obj, jsonDoc.Results[i])
			}
		}
		res = db.query("stores", "jsonl", sql+" ORDER BY store_id")
		if res.code != 0 || strings.Count(res.stdout, "\n") != 10 || !strings.Contains(res.stderr, "more rows matched") {
			t.Fatalf("want 10 lines and the truncation note on stderr:\n%s", res)
		}
		res = db.query("stores", "jsonl", "SELECT * FROM stores WHERE false")
		if res.code != 0 || res.stdout != "" {
			t.Fatalf("want exit 0 and no lines for zero rows:\n%s", res)
		}
	})

	t.Run("csv", func(t *testing.T) {
		sql := "SELECT store_id, store_name, category, description FROM stores"
		res := db.query("stores", "csv", sql+firstThree)
		if res.code != 0 || res.stderr != "" {
			t.Fatalf("want exit 0 and nothing on stderr:\n%s", res)
		}
		records, err := csv.NewReader(strings.NewReader(res.stdout)).ReadAll()
		if err != nil {
			t.Fatalf("not CSV: %v\n%s", err, res)
		}
		if len(records) != 4 || strings.Join(records[0], ",") != "store_id,store_name,category,description" {
			t.Fatalf("want a header and 3 rows:\n%s", res)
		}
		jsonDoc := wantRows(t, db.query("stores", "json", sql+firstThree))
		for i, r := range records[1:] {
			for j, col := range records[0] {
				if r[j] != fmt.Sprint(jsonDoc.Results[i][col]) {
					t.Fatalf("row %d %s: csv %q, json %q", i+1, col, r[j], jsonDoc.Results[i][col])
				}
			}
		}
		res = db.query("stores", "csv", sql+" ORDER BY store_id")
		records, err = csv.NewReader(strings.NewReader(res.stdout)).ReadAll()
		if err != nil || len(records) != 11 || !strings.Contains(res.stderr, "more rows matched") {
			t.Fatalf("want a header, 10 rows and the truncation note on stderr (%v):\n%s", err, res)
		}
	})

	t.Run("table_and_markdown", func(t *testing.T) {
		sql := "SELECT store_id, store_name, category FROM stores" + firstThree
		res := db.query("stores", "table", sql)
		if res.code != 0 {
			t.Fatalf("want exit 0:\n%s", res)
		}
		for _, want := range []string{"store_id", "store_name", "category", "STR-0001", "STR-0003", "─", "│", "(3 rows)"} {
			if !strings.Contains(res.stdout, want) {
				t.Fatalf("the table lacks %q:\n%s", want, res)
			}
		}
		res = db.query("stores", "markdown", sql)
		if res.code != 0 {
			t.Fatalf("want exit 0:\n%s", res)
		}
		lines := strings.Split(res.stdout, "\n")
		if len(lines) < 7 || !strings.HasPrefix(lines[0], "| store_id") || !strings.HasPrefix(lines[1], "|:--") ||
			!strings.Contains(lines[2], "STR-0001") || lines[5] != "" || lines[6] != "(3 rows)" {
			t.Fatalf("not a markdown table:\n%s", res)
		}
		// Long cells are cut for display only.
		res = db.query("stores", "table", "SELECT repeat('あ', 200) AS long")
		if res.code != 0 || strings.Contains(res.stdout, strings.Repeat("あ", 61)) || !strings.Contains(res.stdout, "…") {
			t.Fatalf("want the long cell cut to 60 characters:\n%s", res)
		}
		res = db.query("stores", "table", "SELECT * FROM stores")
		if res.code != 0 || !strings.Contains(res.stdout, "(10 rows; more rows matched") {
			t.Fatalf("want the truncation footer:\n%s", res)
		}
	})

	t.Run("truncated", func(t *testing.T) {
		for _, tc := range []struct {
			sql       string
			count     int
			truncated bool
		}{
			{"SELECT * FROM range(9)", 9, false},
			{"SELECT * FROM range(10)", 10, false},
			{"SELECT * FROM range(11)", 10, true},
			{"SELECT * FROM events LIMIT 10", 10, true},
			{"SELECT * FROM events LIMIT 3", 3, true},
			{"SELECT * FROM events LIMIT 0", 0, true},
			{"SELECT * FROM events LIMIT 10 OFFSET 25", 10, false},
			{"SELECT * FROM events LIMIT 3 OFFSET 33", 2, false},
			{"SELECT * FROM events", 10, true},
			{"SELECT * FROM stores WHERE false", 0, false},
		} {
			res := db.query("events", "json", tc.sql)
			doc := wantRows(t, res)
			if *doc.Count != tc.count || *doc.Truncated != tc.truncated {
				t.Fatalf("want count %d truncated %v:\n%s", tc.count, tc.truncated, res)
			}
			if tc.truncated && !strings.Contains(doc.Hint, "OFFSET") {
				t.Fatalf("want a hint to page with OFFSET:\n%s", res)
			}
		}
	})

	t.Run("zero_rows", func(t *testing.T) {
		for _, tc := range []struct{ dataset, sql, msg string }{
			{"events", "SELECT * FROM events WHERE event_name = 'no such event'", "検索条件に一致するイベントが見つかりませんでした"},
			{"products", "SELECT * FROM products WHERE product_name = 'no such product'", "検索条件に一致する商品が見つかりませんでした"},
			{"stores", "SELECT * FROM 'stores.csv' WHERE store_name = '存在しない店舗'", "検索条件に一致する店舗が見つかりませんでした"},
		} {
			res := db.query(tc.dataset, "json", tc.sql)
			doc := wantRows(t, res)
			if *doc.Count != 0 || len(doc.Results) != 0 || *doc.Truncated || doc.Message != tc.msg {
				t.Fatalf("want count 0, results [], truncated false and message %q:\n%s", tc.msg, res)
			}
			if !strings.Contains(res.stdout, `"results":[]`) {
				t.Fatalf("want an empty results array, not null:\n%s", res)
			}
			res = db.query(tc.dataset, "table", tc.sql)
			if res.code != 0 || res.stdout != tc.msg+"\n" {
				t.Fatalf("want exit 0 and the message in the table format:\n%s", res)
			}
		}
	})

	t.Run("stdin", func(t *testing.T) {
		sql := "SELECT event_name, start_date FROM events_typed\nWHERE is_free ORDER BY start_date LIMIT 2;\n"
		res := runCtool(sql, "query", "events", "--db", db.path, "--format", "json", "-")
		doc := wantRows(t, res)
		if *doc.Count != 2 {
			t.Fatalf("want 2 rows from the SQL on stdin:\n%s", res)
		}
		res = runCtool("DROP TABLE events", "query", "events", "--db", db.path, "--format", "json", "-")
		wantRefusal(t, res, "DROP")
		res = runCtool("", "query", "events", "--db", db.path, "--format", "json", "-")
		wantRefusal(t, res, "empty query")
	})

	t.Run("binder_error", func(t *testing.T) {
		msg := wantRefusal(t, db.query("events", "json", "SELECT no_such_column FROM events"), "Binder Error")
		if !strings.Contains(msg, "no_such_column") {
			t.Fatalf("want DuckDB's message naming the column, got %q", msg)
		}
		// A parse error is the agent's to fix: sql_error with the parser's message, not a refusal.
		res := db.query("events", "json", "SELECT * FROM events WHERE event_name = 1 +")
		msg = wantRefusal(t, res, "syntax error")
		if _, kind, _ := jsonError(res.stdout); !strings.HasPrefix(msg, "Parser Error: ") || kind != "sql_error" {
			t.Fatalf("want the parser's message as an sql_error, got %q (%s)", msg, kind)
		}
	})

	t.Run("error_text_on_stderr", func(t *testing.T) {
		for _, format := range []string{"table", "csv", "markdown"} {
			res := db.query("stores", format, "DROP TABLE stores")
			if res.code != 1 || res.stdout != "" || !strings.HasPrefix(res.stderr, "ctool: refused: DROP.") {
				t.Fatalf("%s: want exit 1, nothing on stdout and the refusal on stderr:\n%s", format, res)
			}
		}
		res := db.query("stores", "jsonl", "DROP TABLE stores")
		wantRefusal(t, res, "refused: DROP")
	})

	t.Run("exit_2", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args []string
			want string
		}{
			{"bad_format", []string{"query", "events", "--db", db.path, "--format", "xml", "SELECT 1"}, "--format must be text, json, jsonl, csv or markdown, not \"xml\""},
			{"no_sql", []string{"query", "events", "--db", db.path}, "pass the SQL as one argument"},
			{"two_sql_args", []string{"query", "events", "--db", db.path, "SELECT 1", "SELECT 2"}, "pass the SQL as one argument"},
			{"unknown_dataset", []string{"query", "profiles", "--db", db.path, "SELECT 1"}, `unknown dataset "profiles"`},
			{"no_dataset", []string{"query"}, "name the dataset"},
			{"zero_timeout", []string{"query", "events", "--db", db.path, "--timeout", "0s", "SELECT 1"}, "--timeout must be positive"},
			{"huge_timeout", []string{"query", "events", "--db", db.path, "--timeout", "2h", "SELECT 1"}, "at most 1m0s"},
		} {
			res := runCtool("", tc.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Fatalf("%s: want exit 2 and %q on stderr:\n%s", tc.name, tc.want, res)
			}
		}
	})

	t.Run("exit_2_bogus_flag", func(t *testing.T) {
		for _, args := range [][]string{
			{"query", "events", "--db", db.path, "--bogus", "SELECT 1"},
			{"query", "events", "--db", db.path, "--timeout", "soon", "SELECT 1"},
		} {
			res := runCtool("", args...)
			if res.code != 2 || strings.Contains(res.stdout, "NAME:") {
				t.Fatalf("want exit 2 and no help text on stdout:\n%s", res)
			}
		}
		// A leading comment is SQL, with or without "--" before it (the manifest's argv has one), and
		// flags may follow the SQL.
		for _, args := range [][]string{
			{"query", "events", "--db", db.path, "--format", "json", "--", "-- the total\nSELECT count(*) AS n FROM events"},
			{"query", "events", "--db", db.path, "--format", "json", "-- the total\nSELECT count(*) AS n FROM events"},
			{"query", "events", "-- the total\nSELECT count(*) AS n FROM events", "--format", "json", "--db", db.path},
			{"query", "--db", db.path, "events", "SELECT count(*) AS n FROM events", "--format", "json"},
		} {
			res := runCtool("", args...)
			if res.code != 0 || !strings.Contains(res.stdout, `"n":35`) {
				t.Fatalf("want exit 0 and the count:\n%s", res)
			}
		}
		// After "--" nothing is a flag: "--format" and "json" are two more arguments.
		res := runCtool("", "query", "events", "--db", db.path, "--", "SELECT 1", "--format", "json")
		if res.code != 2 || !strings.Contains(res.stderr, "pass the SQL as one argument") {
			t.Fatalf("want exit 2 and the one-argument message:\n%s", res)
		}
	})

	t.Run("exit_3", func(t *testing.T) {
		dir := t.TempDir()
		empty := filepath.Join(dir, "empty.duckdb")
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{filepath.Join(dir, "missing.duckdb"), dir} {
			res := runCtool("", "query", "events", "--db", path, "--format", "json", "SELECT 1")
			if _, kind, err := jsonError(res.stdout); res.code != 3 || err != nil || kind != "no_database" || !strings.Contains(res.stdout, `ctool ingest, or name an existing build with --db PATH or CTOOL_DB"`) {
				t.Fatalf("want exit 3 and the no_database error with its hint on stdout (%v):\n%s", err, res)
			}
			res = runCtool("", "query", "events", "--db", path, "SELECT 1")
			if res.code != 3 || !strings.Contains(res.stderr, "Try: ") || !strings.Contains(res.stderr, "ctool ingest") || res.stdout != "" {
				t.Fatalf("want exit 3 and 'Try: ctool ingest' on stderr:\n%s", res)
			}
		}
		res := runCtool("", "query", "events", "--db", empty, "--format", "json", "SELECT 1")
		if res.code != 3 {
			t.Fatalf("an empty file: want exit 3:\n%s", res)
		}
		if _, err := os.Stat(filepath.Join(dir, "missing.duckdb")); !os.IsNotExist(err) {
			t.Fatalf("a query created the missing database file: %v", err)
		}
	})
}
