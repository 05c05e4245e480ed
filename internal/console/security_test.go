package console

import (
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
)

// Hostile requests: each gets the status a careful server gives, and no page echoes what it was sent
// as markup.
func TestHostileRequests(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.edited, Against: f.sample, Input: f.editedIn})
	for _, c := range []struct {
		name, method, target string
		header               []string
		status               int
	}{
		{"page zero", "GET", "/stores?_page=0", nil, 400},
		{"page text", "GET", "/stores?_page=1%3BDROP", nil, 400},
		{"page past the end", "GET", "/stores?_page=99", nil, 404},
		{"sort by an unknown column", "GET", "/stores?_sort=store_id%22%3B--", nil, 400},
		{"sort by products' store_id (shown since the agents' rule hides it)", "GET", "/products?_sort=store_id", nil, 200},
		{"page size not a size", "GET", "/products?_size=5000", nil, 400},
		{"page size as SQL", "GET", "/products?_size=" + url.QueryEscape("50; DROP TABLE products"), nil, 400},
		{"unknown parameter as markup", "GET", "/products?" + url.QueryEscape("<script>alert(1)</script>") + "=1", nil, 200},
		{"export with an unknown parameter", "GET", "/products.csv?tga=" + url.QueryEscape("ギフト"), nil, 400},
		{"export with an unknown parameter as markup", "GET", "/stores.jsonl?x=" + url.QueryEscape("<script>alert(1)</script>"), nil, 400},
		{"sort by a list", "GET", "/stores?_sort_desc=target_audience", nil, 400},
		{"facet value as SQL", "GET", "/stores?category=" + url.QueryEscape("cafe' OR '1'='1"), nil, 200},
		{"boolean facet not a boolean", "GET", "/stores?pets_allowed=yes", nil, 400},
		{"search as SQL and regex", "GET", "/products?q=" + url.QueryEscape(`.*' OR 1=1 -- (?:a|b)+$ \`), nil, 200},
		{"search as markup", "GET", "/products?q=" + url.QueryEscape(`<script>alert(1)</script>`), nil, 200},
		{"search too long", "GET", "/products?q=" + strings.Repeat("ち", 2000), nil, 400},
		{"too many values", "GET", "/stores?" + strings.Repeat("category=a&", 30), nil, 400},
		{"date not a date", "GET", "/stores?at=tomorrow", nil, 400},
		{"date out of range", "GET", "/stores?at=0001-01-01T00:00", nil, 400},
		{"open not a state", "GET", "/stores?open=maybe", nil, 400},
		{"record without its key", "GET", "/products/record?product_name=x", nil, 400},
		{"record id as SQL", "GET", "/stores/record?store_id=" + url.QueryEscape("' OR 1=1 --"), nil, 404},
		{"unknown dataset", "GET", "/profiles", nil, 404},
		{"profiles export", "GET", "/profiles.csv", nil, 404},
		{"profiles record", "GET", "/profiles/record?profile_id=user_criollo_heavy", nil, 404},
		{"unknown format", "GET", "/stores.xlsx", nil, 404},
		{"source outside the input", "GET", "/source?file=" + url.QueryEscape("../../etc/passwd") + "&line=1", nil, 404},
		{"source of the profiles", "GET", "/source?file=narrative_data.csv&line=2", nil, 404},
		{"source of a link name", "GET", "/source?file=" + url.QueryEscape("/etc/passwd") + "&line=1", nil, 404},
		{"changes of an unknown kind", "GET", "/changes/stores?kind=all", nil, 400},
		{"changes of the profiles", "GET", "/changes/profiles", nil, 404},
		{"language switch to another site", "GET", "/lang?to=en&back=" + url.QueryEscape("//evil.example/"), nil, 303},
		{"another host (DNS rebinding)", "GET", "/", []string{"Host", "evil.example"}, 403},
		{"a script on another site", "GET", "/stores.jsonl", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors"}, 403},
		{"a link from another site", "GET", "/stores", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}, 200},
		{"a link from another site to an export", "GET", "/stores.csv", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}, 403},
		{"a link from another site to a changes export", "GET", "/changes/stores.csv", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate"}, 403},
		{"a write", "POST", "/stores", nil, 405},
		{"a delete", "DELETE", "/", nil, 405},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, "http://127.0.0.1:8780"+c.target, nil)
			for i := 0; i+1 < len(c.header); i += 2 {
				if c.header[i] == "Host" {
					req.Host = c.header[i+1]
				} else {
					req.Header.Set(c.header[i], c.header[i+1])
				}
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != c.status {
				t.Errorf("status %d, want %d", res.StatusCode, c.status)
			}
			if loc := res.Header.Get("Location"); loc != "" && loc != "/" {
				t.Errorf("redirects to %q", loc)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"} {
				if res.Header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			b, _ := io.ReadAll(res.Body)
			if strings.Contains(string(b), "<script>alert") {
				t.Error("the page holds the markup it was sent")
			}
		})
	}
}

// With --identity-header, a request without the header is refused, and the user is shown.
func TestIdentityHeader(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.sample, IdentityHeader: "X-Forwarded-Email"})
	if res := get(t, s, "/"); res.StatusCode != http.StatusForbidden {
		t.Errorf("without the header: %s", res.Status)
	}
	res := get(t, s, "/", "X-Forwarded-Email", "ops@example.com")
	if page := body(t, res); res.StatusCode != 200 || !strings.Contains(page, "ops@example.com") {
		t.Errorf("with the header: %s", res.Status)
	}
	// Two values: a client added its own beside the proxy's, and neither is trusted.
	req := httptest.NewRequest("GET", "http://127.0.0.1:8780/", nil)
	req.Header.Add("X-Forwarded-Email", "ops@example.com")
	req.Header.Add("X-Forwarded-Email", "admin@example.com")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("with two headers: %d", rec.Code)
	}
	// Without the flag no header is trusted.
	plain := newServer(t, Config{DB: f.sample})
	if page := body(t, get(t, plain, "/", "X-Forwarded-Email", "ops@example.com")); strings.Contains(page, "ops@example.com") {
		t.Error("a header no flag names is shown")
	}
}

// No page, export, search, facet or error of the console shows a profile's id or narrative: every
// page reachable from the overview is read (and each list's exports, and searches for the profiles'
// own words), and none holds any of them.
func TestNoProfileData(t *testing.T) {
	f := builds(t)
	s := newServer(t, Config{DB: f.edited, Against: f.sample, Input: f.editedIn})
	secrets := profileSecrets(t, f.input)
	if len(secrets) < 5 {
		t.Fatalf("only %d profile values to look for", len(secrets))
	}
	// A search for a profile's words finds nothing (the page shows the words typed, and no row).
	for _, sec := range secrets[:4] {
		for _, target := range []string{"/stores?q=", "/products?q=", "/events?q=", "/stores?category=", "/products?tag="} {
			res := get(t, s, target+url.QueryEscape(sec))
			if res.StatusCode == http.StatusBadRequest {
				continue // too long a value for a filter
			}
			if page := body(t, res); !strings.Contains(page, "該当する行はありません。") {
				t.Errorf("%s%s finds rows", target, sec)
			}
			rows := exportRows(t, s, strings.Replace(target, "?", ".csv?", 1)+url.QueryEscape(sec))
			if len(rows) != 1 {
				t.Errorf("the export of %s%s has %d rows", target, sec, len(rows)-1)
			}
		}
		if res := get(t, s, "/stores/record?store_id="+url.QueryEscape(sec)); res.StatusCode != http.StatusNotFound {
			t.Errorf("a store named by a profile id: %s", res.Status)
		}
	}
	seen := map[string]bool{}
	queue := []string{"/", "/lang?to=en&back=/"}
	href := regexp.MustCompile(`href="([^"]+)"`)
	for len(queue) > 0 && len(seen) < 250 {
		target := queue[0]
		queue = queue[1:]
		if seen[target] {
			continue
		}
		seen[target] = true
		res := get(t, s, target)
		page := body(t, res)
		for _, sec := range secrets {
			if strings.Contains(page, sec) {
				t.Errorf("%s shows profile data %q", target, sec)
			}
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range href.FindAllStringSubmatch(page, -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "//") && !strings.HasPrefix(link, "/static/") && !strings.HasPrefix(link, "/lang") {
				queue = append(queue, link)
			}
		}
	}
	if len(seen) < 100 {
		t.Errorf("only %d pages read", len(seen))
	}
}

// profileSecrets are the sample profiles' ids, narratives and the narratives' sentences.
func profileSecrets(t *testing.T, input string) []string {
	t.Helper()
	var out []string
	names, _ := filepath.Glob(filepath.Join(input, "narrative_data*.csv"))
	for _, name := range names {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		id, narrative := indexOf(rows[0], "profile_id"), indexOf(rows[0], "narrative")
		for _, r := range rows[1:] {
			out = append(out, r[id], r[narrative])
			for _, sentence := range strings.Split(r[narrative], "。") {
				if len([]rune(sentence)) > 12 {
					out = append(out, strings.TrimSpace(sentence))
				}
			}
		}
	}
	return out
}

func indexOf(h []string, name string) int {
	for i, c := range h {
		if c == name {
			return i
		}
	}
	panic(name)
}

// The console is not an agent tool: no dataset of it is private, and none is in the manifest.
func TestNotAnAgentTool(t *testing.T) {
	for _, tb := range tables {
		if tb.D.Private {
			t.Errorf("the console shows the private dataset %s", tb.D.Name)
		}
	}
	for _, tool := range schema.Manifest() {
		if strings.Contains(tool.Name, "console") {
			t.Errorf("the console is in the agent tools: %s", tool.Name)
		}
	}
}

// An export directory left by a console killed during a Parquet export is removed at the next start;
// one of a running console is not.
func TestRemoveStaleParquetDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk(fmt.Sprintf("ctool-parquet-%d-123", dead.Process.Pid))
	mine := mk(fmt.Sprintf("ctool-parquet-%d-456", os.Getpid()))
	running := mk("ctool-parquet-1-789") // pid 1 is always running
	old := mk("ctool-parquet-789012")    // the naming without a pid, a day old
	if err := os.Chtimes(old, time.Now().Add(-25*time.Hour), time.Now().Add(-25*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := database.RemoveStaleParquetDirs(); n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	for dir, want := range map[string]bool{stale: false, mine: true, running: true, old: false} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}
