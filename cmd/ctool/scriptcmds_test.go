package main

// Test-only commands for the scripts in testdata/script. Each runs as its own process, started by
// testscript like ctool, and reports a failure with a message on stderr and exit status 1.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/azabudai/ctool/query/querytest"
	"github.com/creack/pty"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"golang.org/x/text/encoding/japanese"
)

// scriptCommands are the helpers the scripts may exec besides ctool.
var scriptCommands = map[string]func(){
	"exitcode": cmdMain(exitCode),
	"fileargs": cmdMain(fileArgs),
	"replace":  cmdMain(replaceInFile),
	"prepend":  cmdMain(prependToFile),
	"sqlcheck": cmdMain(sqlCheck),
	"glob":     cmdMain(globFiles),
	"sha256":   cmdMain(sha256Files),
	"csvrows":  cmdMain(csvRows),
	"ptyrun":   cmdMain(ptyRun),
	"mkfifo":   cmdMain(makeFIFO),
	"shiftjis": cmdMain(toShiftJIS),
	"cpname":   cmdMain(copyToName),
	"returns":  cmdMain(returnsWithin),
}

// cmdMain adapts a helper to a testscript command: an error becomes a message and exit status 1.
func cmdMain(f func(args []string) error) func() {
	return func() {
		if err := f(os.Args[1:]); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// unescape reads a script argument with Go escapes (\n, \r, \xff, \u00e9) into its bytes; a double quote
// stands for itself, as CSV text needs.
func unescape(s string) (string, error) {
	u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		return "", fmt.Errorf("bad escapes in %q: %v", s, err)
	}
	return u, nil
}

// exitCode: exitcode N PROGRAM [ARGS...]
// Runs PROGRAM with the command's standard streams and succeeds only if it exits with status N, so a
// script can tell 1 (bad data) from 2 (usage) and 3 (no database).
func exitCode(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("bad status %q", args[0])
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	got := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return err
		}
		got = ee.ExitCode()
	}
	if got != want {
		return fmt.Errorf("%s exited with status %d, want %d", args[1], got, want)
	}
	return nil
}

// fileArgs: fileargs PROGRAM [ARGS...]
// Runs PROGRAM with the command's standard streams; an argument @file:PATH is replaced by the content
// of PATH without its final newline, so a script can pass an argument that spans lines (SQL that
// starts with a comment line, say).
func fileArgs(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("usage: fileargs PROGRAM [ARGS...]")
	}
	argv := append([]string(nil), args[1:]...)
	for i, a := range argv {
		if path, ok := strings.CutPrefix(a, "@file:"); ok {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			argv[i] = strings.TrimSuffix(string(b), "\n")
		}
	}
	cmd := exec.Command(args[0], argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		return err
	}
	return nil
}

// replaceInFile: replace FILE OLD NEW [COUNT]
// Replaces every occurrence of OLD in FILE by NEW, or by NEW repeated COUNT times; both take Go
// escapes, so NEW can hold bytes that are not UTF-8 ('\xff') and '\n' '\r\n' turns line endings into
// CRLF. OLD must occur.
func replaceInFile(args []string) error {
	if len(args) != 3 && len(args) != 4 {
		return fmt.Errorf("usage: replace FILE OLD NEW [COUNT]")
	}
	old, err := unescape(args[1])
	if err != nil {
		return err
	}
	repl, err := unescape(args[2])
	if err != nil {
		return err
	}
	if len(args) == 4 {
		n, err := strconv.Atoi(args[3])
		if err != nil || n < 0 {
			return fmt.Errorf("bad count %q", args[3])
		}
		repl = strings.Repeat(repl, n)
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	if old == "" || !strings.Contains(string(b), old) {
		return fmt.Errorf("%s does not contain %q", args[0], old)
	}
	return os.WriteFile(args[0], []byte(strings.ReplaceAll(string(b), old, repl)), 0o644)
}

// prependToFile: prepend FILE TEXT
// Puts TEXT (with Go escapes, e.g. '\xef\xbb\xbf' for a byte order mark) before FILE's content.
func prependToFile(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: prepend FILE TEXT")
	}
	text, err := unescape(args[1])
	if err != nil {
		return err
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	return os.WriteFile(args[0], append([]byte(text), b...), 0o644)
}

// sqlCheck: sqlcheck DB SQL [EXPECTED]
// Opens DB (a path, or a pattern that matches exactly one file, for the profiles file) read-only and prints the first column of every row of SQL, one per line (NULL for null).
// With EXPECTED (Go escapes allowed) the printed rows joined by newlines must equal it.
func sqlCheck(args []string) error {
	if len(args) != 2 && len(args) != 3 {
		return fmt.Errorf("usage: sqlcheck DB SQL [EXPECTED]")
	}
	path, err := onlyMatch(args[0])
	if err != nil {
		return err
	}
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query(args[1])
	if err != nil {
		return err
	}
	_, values, err := querytest.Rows(rows)
	if err != nil {
		return err
	}
	var lines []string
	for _, vals := range values {
		s := "NULL"
		if vals[0] != nil {
			s = fmt.Sprint(vals[0])
		}
		lines = append(lines, s)
	}
	got := strings.Join(lines, "\n")
	fmt.Println(got)
	if len(args) == 3 {
		want, err := unescape(args[2])
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("got %q, want %q", got, want)
		}
	}
	return nil
}

// onlyMatch returns the one file that pattern names.
func onlyMatch(pattern string) (string, error) {
	m, err := filepath.Glob(pattern)
	if err != nil {
		return "", err
	}
	if len(m) != 1 {
		return "", fmt.Errorf("%s matches %d files, want 1: %v", pattern, len(m), m)
	}
	return m[0], nil
}

// sha256Files: sha256 FILE...
// Prints each file's SHA-256 and name (pattern allowed, matching one file), so a script can save the
// digests and cmp them later.
func sha256Files(args []string) error {
	for _, a := range args {
		path, err := onlyMatch(a)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Printf("%x  %s\n", sha256.Sum256(b), path)
	}
	return nil
}

// globFiles: glob PATTERN...
// Prints the files matching each pattern, sorted, one per line; nothing when none match.
func globFiles(args []string) error {
	var all []string
	for _, p := range args {
		m, err := filepath.Glob(p)
		if err != nil {
			return err
		}
		all = append(all, m...)
	}
	sort.Strings(all)
	for _, m := range all {
		fmt.Println(m)
	}
	return nil
}

// csvRows: csvrows FILE keep N | csvrows FILE drop COLUMN VALUE
// Rewrites a CSV file with its header and only its first N records, or without the records whose
// COLUMN is VALUE, reading records whole (cells may span lines), so a script can halve a file or
// delete one store.
func csvRows(args []string) error {
	usage := fmt.Errorf("usage: csvrows FILE keep N | csvrows FILE drop COLUMN VALUE")
	if len(args) < 3 {
		return usage
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	records, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(records) == 0 {
		return fmt.Errorf("%s: %v", args[0], err)
	}
	header, rows := records[0], records[1:]
	switch {
	case args[1] == "keep" && len(args) == 3:
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 0 || n > len(rows) {
			return fmt.Errorf("bad count %q (the file has %d records)", args[2], len(rows))
		}
		rows = rows[:n]
	case args[1] == "drop" && len(args) == 4:
		col := slices.Index(header, args[2])
		if col < 0 {
			return fmt.Errorf("%s has no column %q", args[0], args[2])
		}
		kept := rows[:0]
		for _, r := range rows {
			if r[col] != args[3] {
				kept = append(kept, r)
			}
		}
		if len(kept) == len(rows) {
			return fmt.Errorf("no record of %s has %s %q", args[0], args[2], args[3])
		}
		rows = kept
	default:
		return usage
	}
	out, err := os.Create(args[0])
	if err != nil {
		return err
	}
	w := csv.NewWriter(out)
	w.WriteAll(append([][]string{header}, rows...))
	if err := w.Error(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ptyRun: ptyrun [-keys KEYS] COLS ROWS PROGRAM [ARGS...]
// Runs PROGRAM on a new terminal (a pty) COLS wide and ROWS tall as its controlling terminal, standard
// input and output, with standard error on the helper's, and prints what the terminal received, line
// ends as \n. With -keys, KEYS (Go escapes) are typed once the terminal has shown something, as a person
// at a pager would. It exits with PROGRAM's status.
func ptyRun(args []string) error {
	var keys string
	if len(args) > 2 && args[0] == "-keys" {
		k, err := unescape(args[1])
		if err != nil {
			return err
		}
		keys, args = k, args[2:]
	}
	if len(args) < 3 {
		return fmt.Errorf("usage: ptyrun [-keys KEYS] COLS ROWS PROGRAM [ARGS...]")
	}
	cols, err1 := strconv.Atoi(args[0])
	rows, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bad size %s x %s", args[0], args[1])
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stderr = os.Stderr
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return err
	}
	defer tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		typed := keys == ""
		for {
			n, err := tty.Read(buf)
			out.Write(buf[:n])
			if n > 0 && !typed {
				tty.Write([]byte(keys))
				typed = true
			}
			if err != nil { // EIO once the program and its children have closed the terminal
				return
			}
		}
	}()
	runErr := cmd.Wait()
	<-done
	os.Stdout.Write(bytes.ReplaceAll(out.Bytes(), []byte("\r\n"), []byte("\n")))
	if ee, ok := runErr.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	return runErr
}

// makeFIFO: mkfifo PATH
// Makes a named pipe with no writer: a reader that opens it blocking waits forever.
func makeFIFO(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: mkfifo PATH")
	}
	return syscall.Mkfifo(args[0], 0o644)
}

// toShiftJIS: shiftjis FILE
// Rewrites FILE (UTF-8) in Shift_JIS, as Excel in Japan saves "CSV".
func toShiftJIS(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: shiftjis FILE")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	sjis, err := japanese.ShiftJIS.NewEncoder().Bytes(b)
	if err != nil {
		return err
	}
	return os.WriteFile(args[0], sjis, 0o644)
}

// copyToName: cpname SRC DST
// Copies SRC to DST, a name with Go escapes, so a script can make a file whose name holds a newline.
func copyToName(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: cpname SRC DST")
	}
	dst, err := unescape(args[1])
	if err != nil {
		return err
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// returnsWithin: returns SECONDS PROGRAM [ARGS...]
// Runs PROGRAM with the command's standard streams and fails if it has not ended after SECONDS (a
// generous bound: the point is that it returns at all), whatever its exit status.
func returnsWithin(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: returns SECONDS PROGRAM [ARGS...]")
	}
	secs, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("bad seconds %q", args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("%s did not return within %ds", args[1], secs)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return err
	}
	return nil
}
