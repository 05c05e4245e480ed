// Package fence holds the test that keeps the engine behind two doors: internal/database, the one
// reader, and ingest/build, the build's writer. Every other package that ships in ctool reaches DuckDB
// only through database.Conn, which runs the guard's checked statement and ctool's own SQL and nothing
// else. The test reads every shipped file, whatever its GOOS, GOARCH or build tags, and fails on an
// import of the engine's packages outside the two doors, on any reference to them (a function, a type,
// a method call or method value) outside a function the allow-list names with its reason, on an
// interface that the engine's own types satisfy, and on //go:linkname. testdata/walkaround is the way
// around an earlier, per-file fence: the test requires this one to catch each of its parts.
package fence
