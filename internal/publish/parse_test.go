package publish

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const (
	goodSHA      = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	goodManifest = `{"build_id":"a1b2c3d4e5f6","schema_version":3,"sha256":"` + goodSHA + `","size":1234,` +
		`"row_counts":{"stores":12,"events.csv":0},"place":"渋谷","created_at":"2025-06-01T09:00:00+09:00",` +
		`"ctool_version":"v1.2.3-dirty"}`
	goodPointer = `{"sha256":"` + goodSHA + `","manifest":"` + goodSHA + `.json","sequence":7,` +
		`"published_at":"2025-06-01T00:00:00.123456789Z"}`
)

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(goodManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.BuildID != "a1b2c3d4e5f6" || m.SchemaVersion != 3 || m.Size != 1234 || m.RowCounts["stores"] != 12 ||
		m.Place != "渋谷" || m.CreatedAt.IsZero() || m.CtoolVersion != "v1.2.3-dirty" {
		t.Fatalf("ParseManifest = %+v", m)
	}
	swap := func(old, new string) string { return strings.Replace(goodManifest, old, new, 1) }
	for name, bad := range map[string]string{
		"not an object":     `[1]`,
		"unknown field":     swap(`"place"`, `"extra":1,"place"`),
		"other case":        swap(`"sha256"`, `"SHA256"`),
		"twice":             swap(`"size":1234`, `"size":1234,"size":1`),
		"missing field":     swap(`"place":"渋谷",`, ``),
		"null":              swap(`"place":"渋谷"`, `"place":null`),
		"trailing data":     goodManifest + `{}`,
		"upper-case sha":    swap(goodSHA, strings.ToUpper(goodSHA)),
		"short sha":         swap(goodSHA, goodSHA[:63]),
		"non-hex sha":       swap(goodSHA, "g"+goodSHA[1:]),
		"zero size":         swap(`"size":1234`, `"size":0`),
		"absurd size":       swap(`"size":1234`, `"size":99999999999999999`),
		"fractional size":   swap(`"size":1234`, `"size":12.5`),
		"exponent size":     swap(`"size":1234`, `"size":1e3`),
		"size as string":    swap(`"size":1234`, `"size":"1234"`),
		"negative count":    swap(`"stores":12`, `"stores":-1`),
		"dataset path":      swap(`"stores":12`, `"../stores":12`),
		"dataset slash":     swap(`"stores":12`, `"a/b":12`),
		"duplicate dataset": swap(`"stores":12`, `"stores":12,"stores":13`),
		"build id path":     swap(`a1b2c3d4e5f6`, `../../x`),
		"schema zero":       swap(`"schema_version":3`, `"schema_version":0`),
		"bad time":          swap(`2025-06-01T09:00:00+09:00`, `yesterday`),
		"year 1":            swap(`2025-06-01T09:00:00+09:00`, `0001-01-01T00:00:00Z`),
		"control character": swap(`渋谷`, `\u0007`),
		"no version":        swap(`v1.2.3-dirty`, ``),
		"too large":         swap(`渋谷`, strings.Repeat("x", maxManifestBytes)),
	} {
		if _, err := ParseManifest([]byte(bad)); err == nil {
			t.Errorf("%s: accepted %.200s", name, bad)
		}
	}
}

func TestParsePointer(t *testing.T) {
	p, err := ParsePointer([]byte(goodPointer))
	if err != nil || p.SHA256 != goodSHA || p.Sequence != 7 || p.PublishedAt.Nanosecond() != 123456789 {
		t.Fatalf("ParsePointer = %+v, %v", p, err)
	}
	swap := func(old, new string) string { return strings.Replace(goodPointer, old, new, 1) }
	for name, bad := range map[string]string{
		"manifest path":     swap(`"manifest":"`, `"manifest":"builds/`),
		"manifest dotdot":   swap(`"manifest":"`+goodSHA, `"manifest":"..`),
		"other manifest":    swap(`"manifest":"0`, `"manifest":"1`),
		"backslash":         swap(`"manifest":"`, `"manifest":"..\\`),
		"zero sequence":     swap(`"sequence":7`, `"sequence":0`),
		"huge sequence":     swap(`"sequence":7`, `"sequence":9007199254740993`),
		"unknown field":     swap(`"sequence"`, `"object":"x","sequence"`),
		"empty":             ``,
		"truncated":         goodPointer[:40],
		"string not object": `"` + goodSHA + `"`,
	} {
		if _, err := ParsePointer([]byte(bad)); err == nil {
			t.Errorf("%s: accepted %s", name, bad)
		}
	}
}

// What Publish writes, a follower reads back unchanged.
func TestManifestRoundTrip(t *testing.T) {
	m := testManifest("x1")
	m.SHA256, m.Size = goodSHA, 42
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseManifest(data)
	if err != nil || !got.CreatedAt.Equal(m.CreatedAt) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	got.CreatedAt = m.CreatedAt
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip = %+v, want %+v", got, m)
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"s3://bucket":                "s3://bucket",
		"s3://bucket/":               "s3://bucket",
		"s3://bucket/a/b/":           "s3://bucket/a/b",
		"file:///srv/ctool/":         "file:///srv/ctool",
		"file://localhost/srv/ctool": "file:///srv/ctool",
	} {
		loc, err := ParseURL(raw)
		if err != nil || loc.String() != want {
			t.Errorf("ParseURL(%q) = %q, %v; want %q", raw, loc, err, want)
		}
	}
	for _, raw := range []string{"", "http://x/y", "s3:///prefix", "s3://b/a/../c", "s3://b/a//c",
		"file://host/dir", "file:relative", "s3://user@b/p", "s3://b/p?x=1", "s3://b/p#f"} {
		if _, err := ParseURL(raw); err == nil {
			t.Errorf("ParseURL(%q) accepted", raw)
		}
	}
	overlap := func(a, b string) bool {
		la, _ := ParseURL(a)
		lb, _ := ParseURL(b)
		return la.Overlaps(lb)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"s3://b/x", "s3://b/x", true}, {"s3://b/x", "s3://b/x/y", true}, {"s3://b", "s3://b/x", true},
		{"s3://b/x", "s3://b/xy", false}, {"s3://b/x", "s3://c/x", false}, {"s3://b/x", "file:///x", false},
		{"file:///", "file:///srv", true}, {"file:///srv/a", "file:///srv/ab", false},
	} {
		if overlap(c.a, c.b) != c.want || overlap(c.b, c.a) != c.want {
			t.Errorf("%s overlaps %s: want %v", c.a, c.b, c.want)
		}
	}
}

// The readers of untrusted store bytes: never a panic, and whatever they accept is well-formed
// and reads back the same after writing it out again.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte(`{"row_counts":{"a":1,"a":2}}`))
	f.Add([]byte(`{"size":1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		if !isSHA256(m.SHA256) || m.Size < 1 || m.Size > maxBuildSize || checkManifest(m) != nil {
			t.Fatalf("accepted an invalid manifest: %+v", m)
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseManifest(again)
		if err != nil || !m2.CreatedAt.Equal(m.CreatedAt) {
			t.Fatalf("written back, it no longer reads: %v\n%s", err, again)
		}
		m2.CreatedAt = m.CreatedAt
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed it: %+v != %+v", m, m2)
		}
	})
}

func FuzzParsePointer(f *testing.F) {
	f.Add([]byte(goodPointer))
	f.Add([]byte(`{"sha256":"x","manifest":"../x.json","sequence":1,"published_at":"2025-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePointer(data)
		if err != nil {
			return
		}
		if p.Manifest != p.SHA256+".json" || strings.ContainsAny(p.Manifest, `/\`) || strings.Contains(p.Manifest, "..") {
			t.Fatalf("accepted a pointer naming %q", p.Manifest)
		}
		again, _ := json.Marshal(p)
		if p2, err := ParsePointer(again); err != nil || p2.SHA256 != p.SHA256 || p2.Sequence != p.Sequence {
			t.Fatalf("written back, it no longer reads: %v\n%s", err, again)
		}
	})
}
