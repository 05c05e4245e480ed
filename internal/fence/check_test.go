package fence

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// engine tells whether an import path is one of the engine's packages, or a way past Go's types to
// them.
func engine(path string) bool {
	switch {
	case path == "database/sql", path == "database/sql/driver", path == "C", path == "plugin":
		return true
	case strings.HasPrefix(path, "github.com/duckdb/"), strings.HasPrefix(path, "github.com/marcboeker/go-duckdb"):
		return true
	}
	return false
}

// riskyMethod names the methods by which a value of the engine's types runs a statement or hands out
// a connection: an interface with one of them that those types satisfy is a way to them.
func riskyMethod(name string) bool {
	for _, p := range []string{"Exec", "Query", "Prepare", "Begin", "Raw", "Conn", "Connect", "Driver"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// policy says where the engine may be reached: doors are the packages that may import it, and allow
// the functions of theirs that may reference it ("pkg.Func" or "pkg.Type.Method", the package by its
// last element), each with its reason.
type policy struct {
	doors map[string]bool
	allow map[string]string
}

type violation struct {
	pos  token.Position
	what string
}

func (v violation) String() string {
	return fmt.Sprintf("%s:%d: %s", v.pos.Filename, v.pos.Line, v.what)
}

// checker reads packages as the fence sees them.
type checker struct {
	pol      policy
	fset     *token.FileSet
	engTypes []types.Type // the engine's own connection types, for the interface rule
	found    []violation
	used     map[string]bool // allow-list entries that a reference needed
}

// load type-checks patterns (and the engine's packages, for their types) on this machine's platform
// with every build tag the module's files name, so that only files of another GOOS or GOARCH, or of a
// tag set that excludes another, are left to the syntactic pass (IgnoredFiles).
func load(dir string, tags []string, patterns ...string) ([]*packages.Package, *token.FileSet, error) {
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports,
		Dir:        dir,
		Fset:       fset,
		BuildFlags: []string{"-tags=" + strings.Join(tags, ",")},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, err
	}
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("loading: %s", strings.Join(errs, "; "))
	}
	return pkgs, fset, nil
}

// buildTags are the tags named in the //go:build lines of the .go files under root, but for GOOS,
// GOARCH and the toolchain's own.
func buildTags(root string) ([]string, error) {
	tags := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if expr, err := constraint.Parse(c.Text); err == nil {
					expr.Eval(func(tag string) bool {
						if !knownTag(tag) {
							tags[tag] = true
						}
						return true
					})
				}
			}
		}
		return nil
	})
	out := make([]string, 0, len(tags))
	for t := range tags {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, err
}

func knownTag(tag string) bool {
	switch tag {
	case "linux", "darwin", "windows", "freebsd", "openbsd", "netbsd", "android", "ios", "js", "wasip1",
		"plan9", "solaris", "illumos", "aix", "dragonfly", "unix",
		"amd64", "arm64", "386", "arm", "wasm", "riscv64", "ppc64", "ppc64le", "s390x", "mips", "mipsle",
		"mips64", "mips64le", "loong64", "cgo", "gc", "gccgo", "ignore":
		return true
	}
	return strings.HasPrefix(tag, "go1.")
}

func (c *checker) report(pos token.Pos, format string, args ...any) {
	c.found = append(c.found, violation{c.fset.Position(pos), fmt.Sprintf(format, args...)})
}

// funcKey names the function declared by d as the allow-list does: "pkg.Func" or "pkg.Type.Method".
func funcKey(pkgName string, d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return pkgName + "." + d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	id, _ := t.(*ast.Ident)
	if id == nil {
		return pkgName + ".?." + d.Name.Name
	}
	return pkgName + "." + id.Name + "." + d.Name.Name
}

// enclosing is the allow-list key of the declaration around pos in f: a function's (funcKey), or a
// type's or a variable's at the top level ("pkg.Name"); "" outside any.
func enclosing(pkgName string, f *ast.File, pos token.Pos) string {
	if f == nil {
		return ""
	}
	for _, d := range f.Decls {
		if d.Pos() > pos || pos >= d.End() {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			return funcKey(pkgName, d)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if spec.Pos() > pos || pos >= spec.End() {
					continue
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					return pkgName + "." + s.Name.Name
				case *ast.ValueSpec:
					return pkgName + "." + s.Names[0].Name
				}
			}
		}
	}
	return ""
}

// allowed tells whether a reference at pos in a file of pkg may reach the engine, and records the
// allow-list entry it used.
func (c *checker) allowed(pkgPath, pkgName string, f *ast.File, pos token.Pos) bool {
	if !c.pol.doors[pkgPath] {
		return false
	}
	key := enclosing(pkgName, f, pos)
	if _, ok := c.pol.allow[key]; ok {
		c.used[key] = true
		return true
	}
	return false
}

// checkTyped applies every rule to a type-checked package.
func (c *checker) checkTyped(p *packages.Package) {
	fileOf := func(pos token.Pos) *ast.File {
		for _, f := range p.Syntax {
			if f.FileStart <= pos && pos <= f.FileEnd {
				return f
			}
		}
		return nil
	}
	for _, f := range p.Syntax {
		c.checkImportsAndPragmas(p.PkgPath, f)
	}
	// References: every use of an object of the engine's packages, a method of theirs called or taken
	// as a value included, and every expression of one of their types.
	for id, obj := range p.TypesInfo.Uses {
		if obj.Pkg() == nil || !engine(obj.Pkg().Path()) {
			continue
		}
		if f := fileOf(id.Pos()); !c.allowed(p.PkgPath, p.Name, f, id.Pos()) {
			c.report(id.Pos(), "%s reaches the engine (%s.%s) outside an allowed function", where(p.Name, f, id.Pos()), obj.Pkg().Name(), obj.Name())
		}
	}
	for expr, tv := range p.TypesInfo.Types {
		if tv.Type == nil || !mentionsEngine(tv.Type, 0) {
			continue
		}
		if f := fileOf(expr.Pos()); !c.allowed(p.PkgPath, p.Name, f, expr.Pos()) {
			c.report(expr.Pos(), "%s holds a value of the engine's type %s outside an allowed function", where(p.Name, f, expr.Pos()), tv.Type)
		}
	}
	// Interfaces over the engine's types, declared or written inline.
	for expr, tv := range p.TypesInfo.Types {
		iface, ok := tv.Type.Underlying().(*types.Interface)
		if !ok || !c.overEngine(iface) {
			continue
		}
		if f := fileOf(expr.Pos()); !c.allowed(p.PkgPath, p.Name, f, expr.Pos()) {
			c.report(expr.Pos(), "%s uses an interface that the engine's types satisfy (%s)", where(p.Name, f, expr.Pos()), tv.Type)
		}
	}
	// An allowed package's exported API hands no engine type out.
	if c.pol.doors[p.PkgPath] {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if obj.Exported() && mentionsEngine(obj.Type(), 0) {
				c.report(obj.Pos(), "%s.%s hands out the engine's type %s", p.Name, name, obj.Type())
			}
			if tn, ok := obj.(*types.TypeName); ok && obj.Exported() {
				if named, ok := tn.Type().(*types.Named); ok {
					for i := range named.NumMethods() {
						m := named.Method(i)
						if m.Exported() && mentionsEngine(m.Type(), 0) {
							c.report(m.Pos(), "%s.%s.%s hands out the engine's type %s", p.Name, name, m.Name(), m.Type())
						}
					}
				}
			}
		}
	}
}

func where(pkgName string, f *ast.File, pos token.Pos) string {
	if f == nil {
		return pkgName
	}
	if k := enclosing(pkgName, f, pos); k != "" {
		return k
	}
	return pkgName + " (top level)"
}

// mentionsEngine tells whether t is, or is built from, a named type of the engine's packages.
func mentionsEngine(t types.Type, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := t.(type) {
	case *types.Named:
		if obj := x.Obj(); obj.Pkg() != nil && engine(obj.Pkg().Path()) {
			return true
		}
		return false
	case *types.Alias:
		return mentionsEngine(types.Unalias(x), depth)
	case *types.Pointer:
		return mentionsEngine(x.Elem(), depth+1)
	case *types.Slice:
		return mentionsEngine(x.Elem(), depth+1)
	case *types.Array:
		return mentionsEngine(x.Elem(), depth+1)
	case *types.Map:
		return mentionsEngine(x.Key(), depth+1) || mentionsEngine(x.Elem(), depth+1)
	case *types.Chan:
		return mentionsEngine(x.Elem(), depth+1)
	case *types.Signature:
		for _, tup := range []*types.Tuple{x.Params(), x.Results()} {
			for i := range tup.Len() {
				if mentionsEngine(tup.At(i).Type(), depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// overEngine tells whether one of the engine's connection types satisfies iface through a method that
// runs a statement or hands out a connection.
func (c *checker) overEngine(iface *types.Interface) bool {
	risky := false
	for i := range iface.NumMethods() {
		risky = risky || riskyMethod(iface.Method(i).Name())
	}
	if !risky {
		return false
	}
	for _, t := range c.engTypes {
		if types.Implements(t, iface) {
			return true
		}
	}
	return false
}

// engineTypes are the engine's types that run statements: database/sql's pool, connection,
// transaction and statement, and the driver's connection and connector.
func engineTypes(pkgs []*packages.Package) []types.Type {
	var out []types.Type
	want := map[string][]string{
		"database/sql":                   {"DB", "Conn", "Tx", "Stmt"},
		"github.com/duckdb/duckdb-go/v2": {"Conn", "Connector"},
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, imp := range p.Types.Imports() {
			if seen[imp.Path()] {
				continue
			}
			seen[imp.Path()] = true
			for _, name := range want[imp.Path()] {
				if obj := imp.Scope().Lookup(name); obj != nil {
					out = append(out, types.NewPointer(obj.Type()))
				}
			}
		}
	}
	return out
}

// checkImportsAndPragmas: no import of the engine outside the doors, and no //go:linkname anywhere.
func (c *checker) checkImportsAndPragmas(pkgPath string, f *ast.File) {
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if engine(path) && !c.pol.doors[pkgPath] {
			c.report(imp.Pos(), "%s imports %s", pkgPath, path)
		}
	}
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			if strings.HasPrefix(cm.Text, "//go:linkname") {
				c.report(cm.Pos(), "%s uses //go:linkname", pkgPath)
			}
		}
	}
}

// checkSyntax reads a file no type-checked load included (another GOOS, GOARCH or tag set): its
// imports, pragmas, and, in a door, every selector of an engine package's import name outside an
// allowed function.
func (c *checker) checkSyntax(pkgPath, pkgName, path string) error {
	f, err := parser.ParseFile(c.fset, path, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	c.checkImportsAndPragmas(pkgPath, f)
	names := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !engine(p) {
			continue
		}
		name := filepath.Base(p)
		if strings.HasPrefix(p, "github.com/duckdb/duckdb-go") {
			name = "duckdb"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] && !c.allowed(pkgPath, pkgName, f, sel.Pos()) {
			c.report(sel.Pos(), "%s reaches the engine (%s.%s) outside an allowed function", where(pkgName, f, sel.Pos()), id.Name, sel.Sel.Name)
		}
		return true
	})
	return nil
}

// check runs every rule over pkgs, those of the module that ship (ship reports which), and the
// files their loads left out.
func check(pkgs []*packages.Package, fset *token.FileSet, pol policy, ship func(string) bool) ([]violation, map[string]bool, error) {
	c := &checker{pol: pol, fset: fset, engTypes: engineTypes(pkgs), used: map[string]bool{}}
	var err error
	for _, p := range pkgs {
		if !ship(p.PkgPath) {
			continue
		}
		c.checkTyped(p)
		for _, path := range p.IgnoredFiles {
			if strings.HasSuffix(path, "_test.go") || !strings.HasSuffix(path, ".go") {
				continue
			}
			if e := c.checkSyntax(p.PkgPath, p.Name, path); e != nil && err == nil {
				err = e
			}
		}
	}
	sort.Slice(c.found, func(i, j int) bool { return c.found[i].String() < c.found[j].String() })
	c.found = slices.CompactFunc(c.found, func(a, b violation) bool { return a.String() == b.String() })
	return c.found, c.used, err
}
