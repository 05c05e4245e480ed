package guard_test

import (
	"go/ast"
	"go/constant"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The one path to the engine, held by the code itself: outside the few files below, no code of the
// module calls a method that sends SQL text to a database (database/sql's, the driver's, DuckDB's), so
// a reader can only run the guard's checked statement or ctool's own SQL (guard.Conn). A new call site
// anywhere else fails this test; so does a constant given to guard.Const or guard.Format that holds a
// ';' or calls a function that runs SQL from a string.

// sendsSQL are the methods that take SQL text or hand out a driver connection that does.
var sendsSQL = map[string]bool{
	"Query": true, "QueryContext": true, "QueryRow": true, "QueryRowContext": true,
	"Exec": true, "ExecContext": true, "Prepare": true, "PrepareContext": true,
	"Raw": true, "Begin": true, "BeginTx": true,
}

// sqlPackages are the packages whose types' methods sendsSQL names.
var sqlPackages = map[string]bool{
	"database/sql":                   true,
	"database/sql/driver":            true,
	"github.com/duckdb/duckdb-go/v2": true,
}

// allowed are the files that may call them, and why.
var allowed = map[string]string{
	"guard/conn.go":                 "the one path: the guard's checked statement and ctool's own SQL",
	"database/prepared/prepared.go": "keeps guard/conn.go's statements prepared",
	"database/database.go":          "opens a build: ATTACH, the lock-down and the build record, all constants",
	"database/session.go":           "reads DuckDB's statement log, for tests (a constant)",
	"ingest/build.go":               "writes a new build (not a reader)",
	"ingest/buildfiles.go":          "writes a new build (not a reader)",
	"ingest/load.go":                "writes a new build (not a reader)",
	"migrations/migrations.go":      "writes a new build's schema (not a reader)",
	"migrations/fill.go":            "writes a new build (not a reader)",
	"migrations/derive.go":          "writes the Go-computed values of a new build (not a reader)",
	"migrations/verify.go":          "checks a new build before it is published (not a reader)",
	"guard/guardtest/guardtest.go":  "the tests' stand-in database (imported by tests only)",
	"console/parquet.go":            "an export's own instance writes its Parquet (reads no build; constants, rows through the appender)",
}

func TestOnePathToTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks the whole module")
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  "..",
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var calls, badConsts []string
	seen := 0
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
		if strings.HasPrefix(p.PkgPath, "github.com/azabudai/ctool/bench/") {
			continue // benchmark programs time DuckDB without ctool (plain floors); they ship nothing
		}
		for _, f := range p.Syntax {
			file, _ := filepath.Rel(root, p.Fset.Position(f.Pos()).Filename)
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if fn, ok := p.TypesInfo.Uses[sel.Sel].(*types.Func); ok {
					if recv := fn.Signature().Recv(); recv != nil && sendsSQL[fn.Name()] && inSQLPackage(recv.Type()) {
						seen++
						if _, ok := allowed[file]; !ok {
							calls = append(calls, p.Fset.Position(call.Pos()).String()+": "+types.ExprString(call.Fun))
						}
					}
					if fn.Pkg() != nil && fn.Pkg().Path() == "github.com/azabudai/ctool/internal/guard" && (fn.Name() == "Const" || fn.Name() == "Format") && len(call.Args) > 0 {
						if why := badConstant(p.TypesInfo, call.Args[0]); why != "" {
							badConsts = append(badConsts, p.Fset.Position(call.Pos()).String()+": "+why)
						}
					}
				}
				return true
			})
		}
	}
	if seen == 0 {
		t.Fatal("no call that sends SQL was found at all: the test no longer sees the code")
	}
	sort.Strings(calls)
	for _, c := range calls {
		t.Errorf("SQL sent outside the one path (run it through guard.Conn, or say in this test why the file may): %s", c)
	}
	for _, c := range badConsts {
		t.Error(c)
	}
}

// inSQLPackage reports whether t (or what it points to) is a named type of sqlPackages.
func inSQLPackage(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && sqlPackages[n.Obj().Pkg().Path()]
}

// badConstant says what is wrong with the constant text given to guard.Const or guard.Format.
func badConstant(info *types.Info, arg ast.Expr) string {
	tv, ok := info.Types[arg]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "the text is not a constant"
	}
	s := constant.StringVal(tv.Value)
	switch lower := strings.ToLower(s); {
	case strings.Contains(s, ";"):
		return "the text holds a ';': " + s
	case strings.Contains(lower, "query(") || strings.Contains(lower, "query_table("):
		return "the text runs SQL from a string: " + s
	}
	return ""
}
