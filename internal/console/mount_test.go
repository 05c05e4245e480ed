package console

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// A console under a prefix (ctool console --site): its pages link within the prefix, its redirects
// stay in it, and its exports pass untouched.
func TestMount(t *testing.T) {
	h := Mount("/azabu", newServer(t, Config{DB: builds(t).sample}))
	if res := get(t, h, "/azabu"); res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/azabu/" {
		t.Errorf("/azabu: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	rootLink := regexp.MustCompile(`(href|src|action)="(/[^"]*)"`)
	for _, page := range []string{"/azabu/", "/azabu/stores", "/azabu/stores/record?store_id=STR-0001", "/azabu/nowhere"} {
		res := get(t, h, page)
		b := body(t, res)
		if res.StatusCode != http.StatusOK && page != "/azabu/nowhere" {
			t.Errorf("%s: %d", page, res.StatusCode)
		}
		for _, m := range rootLink.FindAllStringSubmatch(b, -1) {
			if !strings.HasPrefix(m[2], "/azabu/") {
				t.Errorf("%s links outside /azabu: %s", page, m[0])
			}
		}
		if !strings.Contains(b, `href="/azabu/static/console.css"`) {
			t.Errorf("%s: no style sheet under /azabu", page)
		}
	}
	if b := body(t, get(t, h, "/azabu/")); !strings.Contains(b, `href="/azabu/stores"`) {
		t.Error("the overview does not link /azabu/stores")
	}
	res := get(t, h, "/azabu/lang?to=en&back=%2Fstores")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/azabu/stores" {
		t.Errorf("the language switch: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	plain := newServer(t, Config{DB: builds(t).sample})
	if got, want := body(t, get(t, h, "/azabu/stores.csv")), body(t, get(t, plain, "/stores.csv")); got != want {
		t.Error("the export under /azabu differs from the export at the root")
	}
	if res := get(t, h, "/azabu/static/console.css"); res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Errorf("the style sheet: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}
