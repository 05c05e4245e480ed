package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The store is shared and its bytes untrusted: these bound what a reader accepts before it acts.
const (
	maxManifestBytes = 64 << 10
	maxPointerBytes  = 4 << 10
	maxBuildSize     = 1 << 42 // 4 TiB: far above any build, far below overflow
	maxDatasets      = 256
	maxRowCount      = 1 << 48
	maxSchemaVersion = 1_000_000
	maxSequence      = 1 << 53 // exact in every JSON reader
)

// Manifest describes one published build. It is stored as builds/<sha256>.json.
type Manifest struct {
	BuildID       string           `json:"build_id"`
	SchemaVersion int              `json:"schema_version"`
	SHA256        string           `json:"sha256"` // of the .duckdb file, lowercase hex
	Size          int64            `json:"size"`   // of the .duckdb file, in bytes
	RowCounts     map[string]int64 `json:"row_counts"`
	Place         string           `json:"place"`
	CreatedAt     time.Time        `json:"created_at"`
	CtoolVersion  string           `json:"ctool_version"`
}

// Pointer is the content of latest: which build is current. Sequence goes up by one with every
// move, so no two pointers are alike and a publisher can tell its move from another's.
type Pointer struct {
	SHA256      string    `json:"sha256"`
	Manifest    string    `json:"manifest"` // "<sha256>.json", under builds/
	Sequence    int64     `json:"sequence"`
	PublishedAt time.Time `json:"published_at"`
}

var (
	manifestFields = []string{"build_id", "schema_version", "sha256", "size", "row_counts", "place", "created_at", "ctool_version"}
	pointerFields  = []string{"sha256", "manifest", "sequence", "published_at"}
)

// ParseManifest reads a manifest strictly: exactly the known fields, each once and of its type,
// and values within bounds. Anything else is refused rather than guessed at.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if len(data) > maxManifestBytes {
		return m, fmt.Errorf("manifest: larger than %d bytes", maxManifestBytes)
	}
	fields, err := strictObject(data, manifestFields)
	if err != nil {
		return m, fmt.Errorf("manifest: %w", err)
	}
	counts, err := strictObject(fields["row_counts"], nil)
	if err != nil {
		return m, fmt.Errorf("manifest: row_counts: %w", err)
	}
	if len(counts) > maxDatasets {
		return m, fmt.Errorf("manifest: row_counts: more than %d datasets", maxDatasets)
	}
	var created string
	err = errors.Join(
		decodeField(fields, "build_id", &m.BuildID),
		decodeField(fields, "schema_version", &m.SchemaVersion),
		decodeField(fields, "sha256", &m.SHA256),
		decodeField(fields, "size", &m.Size),
		decodeField(fields, "place", &m.Place),
		decodeField(fields, "created_at", &created),
		decodeField(fields, "ctool_version", &m.CtoolVersion),
	)
	if err != nil {
		return m, fmt.Errorf("manifest: %w", err)
	}
	m.RowCounts = make(map[string]int64, len(counts))
	for name := range counts {
		var n int64
		if err := decodeField(counts, name, &n); err != nil {
			return m, fmt.Errorf("manifest: row_counts: %w", err)
		}
		m.RowCounts[name] = n
	}
	if m.CreatedAt, err = parseTime(created); err != nil {
		return m, fmt.Errorf("manifest: created_at: %w", err)
	}
	return m, checkManifest(m)
}

// checkManifest checks the values of a manifest, parsed or about to be written.
func checkManifest(m Manifest) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := checkName(m.BuildID, 64); err != nil {
		add("build_id: %w", err)
	}
	if m.SchemaVersion < 1 || m.SchemaVersion > maxSchemaVersion {
		add("schema_version %d is out of range", m.SchemaVersion)
	}
	if !isSHA256(m.SHA256) {
		add("sha256 is not 64 lowercase hex digits")
	}
	if m.Size < 1 || m.Size > maxBuildSize {
		add("size %d is out of range", m.Size)
	}
	if len(m.RowCounts) > maxDatasets {
		add("row_counts: more than %d datasets", maxDatasets)
	}
	for name, n := range m.RowCounts {
		if err := checkName(name, 128); err != nil {
			add("row_counts: dataset name: %w", err)
		}
		if n < 0 || n > maxRowCount {
			add("row_counts: %q: %d is out of range", name, n)
		}
	}
	if err := checkText(m.Place, 256); err != nil {
		add("place: %w", err)
	}
	if err := checkTime(m.CreatedAt); err != nil {
		add("created_at: %w", err)
	}
	if err := checkText(m.CtoolVersion, 64); err != nil || m.CtoolVersion == "" {
		add("ctool_version: must be 1 to 64 printable characters")
	}
	if len(errs) > 0 {
		return fmt.Errorf("manifest: %w", errors.Join(errs...))
	}
	return nil
}

// ParsePointer reads latest strictly; its manifest must be the one its sha256 names, a plain name.
func ParsePointer(data []byte) (Pointer, error) {
	var p Pointer
	if len(data) > maxPointerBytes {
		return p, fmt.Errorf("pointer: larger than %d bytes", maxPointerBytes)
	}
	fields, err := strictObject(data, pointerFields)
	if err != nil {
		return p, fmt.Errorf("pointer: %w", err)
	}
	var published string
	err = errors.Join(
		decodeField(fields, "sha256", &p.SHA256),
		decodeField(fields, "manifest", &p.Manifest),
		decodeField(fields, "sequence", &p.Sequence),
		decodeField(fields, "published_at", &published),
	)
	if err != nil {
		return p, fmt.Errorf("pointer: %w", err)
	}
	if p.PublishedAt, err = parseTime(published); err != nil {
		return p, fmt.Errorf("pointer: published_at: %w", err)
	}
	return p, checkPointer(p)
}

func checkPointer(p Pointer) error {
	switch {
	case !isSHA256(p.SHA256):
		return errors.New("pointer: sha256 is not 64 lowercase hex digits")
	case strings.ContainsAny(p.Manifest, `/\`) || strings.Contains(p.Manifest, ".."):
		return fmt.Errorf("pointer: manifest %q is a path, not a name", p.Manifest)
	case p.Manifest != p.SHA256+".json":
		return fmt.Errorf("pointer: manifest %q is not the one its sha256 names", p.Manifest)
	case p.Sequence < 1 || p.Sequence > maxSequence:
		return fmt.Errorf("pointer: sequence %d is out of range", p.Sequence)
	}
	if err := checkTime(p.PublishedAt); err != nil {
		return fmt.Errorf("pointer: published_at: %w", err)
	}
	return nil
}

// strictObject splits one JSON object into its members. With fields, the members must be exactly
// those names (case counts: encoding/json alone would match "SHA256" too); without, any names
// (checked by the caller). A repeated name, null, or anything after the object is refused.
func strictObject(data []byte, fields []string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("malformed JSON")
		}
		name := tok.(string) // inside an object, a member name is always a string
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q appears twice", name)
		}
		if fields != nil && !contains(fields, name) {
			return nil, fmt.Errorf("unknown field %q", name)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, errors.New("malformed JSON")
		}
		if string(raw) == "null" {
			return nil, fmt.Errorf("%q is null", name)
		}
		out[name] = raw
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, errors.New("malformed JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	for _, f := range fields {
		if _, ok := out[f]; !ok {
			return nil, fmt.Errorf("missing field %q", f)
		}
	}
	return out, nil
}

// decodeField decodes one member into a string or integer; a number with a fraction or exponent,
// or a value of another type, is refused by encoding/json itself.
func decodeField(fields map[string]json.RawMessage, name string, v any) error {
	if err := json.Unmarshal(fields[name], v); err != nil {
		return fmt.Errorf("%q: wrong type or out of range", name)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, errors.New("not an RFC 3339 time")
	}
	return t, checkTime(t)
}

func checkTime(t time.Time) error {
	if t.Year() < 2000 || t.Year() > 9999 {
		return errors.New("not a time between the years 2000 and 9999")
	}
	return nil
}

// checkText allows any printable UTF-8 up to max bytes, including none.
func checkText(s string, max int) error {
	if len(s) > max || !utf8.ValidString(s) {
		return fmt.Errorf("longer than %d bytes or not UTF-8", max)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("has the unprintable character %U", r)
		}
	}
	return nil
}

// checkName allows a non-empty printable name that cannot be read as a path.
func checkName(s string, max int) error {
	if err := checkText(s, max); err != nil {
		return err
	}
	if s == "" || strings.ContainsAny(s, `/\ `) || strings.Contains(s, "..") {
		return fmt.Errorf("%q is empty, has a space or looks like a path", s)
	}
	return nil
}
