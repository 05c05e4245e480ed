package console

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/azabudai/ctool/internal/console/words"
	"github.com/azabudai/ctool/internal/escape"
)

// page is what every template gets: the language, the navigation, and the page's own data.
type page struct {
	Lang    string
	Title   string
	Nav     string // which navigation entry is current
	Path    string // the request's path and query, for the language switch
	User    string // the signed-in user the proxy named, when trusted
	Tables  []*table
	Changes bool // --against is set
	Input   bool // --input is set
	Version string
	Status  int
	Message string
	Data    any
	status  int
}

func (p *page) withStatus(code int) *page { p.status = code; return p }

// T is the page's text for key, in its language.
func (p *page) T(key string) string {
	text, _ := words.Text(p.Lang, key)
	return text
}

// Tf is T with fmt's verbs.
func (p *page) Tf(key string, args ...any) string { return fmt.Sprintf(p.T(key), args...) }

// Tn is Tf for a count n: the key one when n is 1, else other (English says "1 row", "2 rows";
// Japanese has one form, given under both keys).
func (p *page) Tn(n int64, one, other string, args ...any) string {
	if n == 1 {
		return p.Tf(one, args...)
	}
	return p.Tf(other, args...)
}

// Label is a column's label in the page's language.
func (p *page) Label(c column) string {
	if p.Lang == "en" {
		return c.En
	}
	return c.Ja
}

// Closure is a store closure's type (store_closures.type) in the page's words, or as the data has it.
func (p *page) Closure(typ string) string {
	if _, ok := words.Text(p.Lang, "closure:"+typ); ok {
		return p.T("closure:" + typ)
	}
	return typ
}

// ColumnLabel is the label of a dataset's column by its name (the changes name columns so), or the
// name where the console has no such column.
func (p *page) ColumnLabel(dataset, name string) string {
	if t := tableNamed(dataset); t != nil {
		if c, ok := t.column(name); ok {
			return p.Label(c)
		}
	}
	return name
}

func (s *Server) newPage(r *http.Request, nav string) *page {
	user, _ := r.Context().Value(userKey{}).(string)
	return &page{Lang: language(r), Nav: nav, Path: r.URL.RequestURI(), User: user, Tables: tables,
		Changes: s.cfg.Against != "", Input: s.cfg.Input != "", Version: s.cfg.Version}
}

// language is the visitor's: the lang cookie the switch sets, else the first of Accept-Language that
// the console speaks, else Japanese.
func language(r *http.Request) string {
	if c, err := r.Cookie("lang"); err == nil && (c.Value == "en" || c.Value == "ja") {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "ja"):
			return "ja"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "ja"
}

// setLang sets the language cookie and goes back to the page the switch was on (a path of this
// console only).
func (s *Server) setLang(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	if to != "en" && to != "ja" {
		s.fail(w, r, badRequest("lang is ja or en"))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: "lang", Value: to, Path: "/", MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	back := r.URL.Query().Get("back")
	if u, err := url.Parse(back); err != nil || back == "" || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") || strings.Contains(back, `\`) {
		back = "/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func parseTemplates() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		// A query given to a template is a template.URL: html/template would escape its = and & as
		// the text of one query value.
		"query":     func(v url.Values) template.URL { return template.URL(v.Encode()) },
		"set":       func(v url.Values, k, val string) template.URL { return template.URL(withParam(v, k, val)) },
		"sortBy":    func(v url.Values, k, col string) template.URL { return template.URL(sortBy(v, k, col)) },
		"without":   func(v url.Values, k string) template.URL { return template.URL(withoutParam(v, k)) },
		"toggle":    func(v url.Values, k, val string) template.URL { return template.URL(toggleParam(v, k, val)) },
		"pathEsc":   url.PathEscape,
		"queryEsc":  url.QueryEscape,
		"add":       func(a, b int) int { return a + b },
		"num":       formatCount,
		"int64":     func(n int) int64 { return int64(n) },
		"short":     func(s string) string { return s[:min(len(s), 12)] },
		"quote":     escape.Quote,
		"clip":      shortName,
		"clipValue": clipText,
	}
	out := map[string]*template.Template{}
	for _, name := range []string{"overview", "list", "record", "changes", "changeset", "validation", "source", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// render writes a page whole: a template's failure is an error page, never half a page.
func (s *Server) render(w http.ResponseWriter, p *page, name string, data any) {
	p.Data = data
	var buf bytes.Buffer
	if err := s.pages[name].Execute(&buf, p); err != nil {
		s.cfg.Log.Error("render", "page", name, "error", err.Error())
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if p.status != 0 {
		w.WriteHeader(p.status)
	}
	w.Write(buf.Bytes())
}

// withParam is the query with key set to value (the page reset: a new filter starts at its first).
func withParam(v url.Values, key, value string) string {
	c := cloneValues(v)
	c.Set(key, value)
	if key != "_page" {
		c.Del("_page")
	}
	return c.Encode()
}

// sortBy is the query sorted by col (key is _sort or _sort_desc), or unsorted when key is "".
func sortBy(v url.Values, key, col string) string {
	c := cloneValues(v)
	c.Del("_sort")
	c.Del("_sort_desc")
	c.Del("_page")
	if key != "" {
		c.Set(key, col)
	}
	return c.Encode()
}

// withoutParam is the query without key.
func withoutParam(v url.Values, key string) string {
	c := cloneValues(v)
	c.Del(key)
	c.Del("_page")
	return c.Encode()
}

// toggleParam adds value to key's values, or takes it away when it is there.
func toggleParam(v url.Values, key, value string) string {
	c := cloneValues(v)
	var kept []string
	found := false
	for _, x := range c[key] {
		if x == value {
			found = true
			continue
		}
		kept = append(kept, x)
	}
	if !found {
		kept = append(kept, value)
	}
	if len(kept) == 0 {
		c.Del(key)
	} else {
		c[key] = kept
	}
	c.Del("_page")
	return c.Encode()
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// formatCount writes n with thousands separators.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// age is how long ago t was, in the page's words.
func (p *page) Age(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return p.T("in the future")
	case d < time.Minute:
		return p.T("just now")
	case d < time.Hour:
		return p.Tn(int64(d.Minutes()), "%d minute ago", "%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return p.Tn(int64(d.Hours()), "%d hour ago", "%d hours ago", int(d.Hours()))
	default:
		return p.Tf("%d days ago", int(d.Hours()/24))
	}
}

// fileName is a Content-Disposition file name made only of safe characters: the dataset's name, the
// build and the format; nothing a visitor typed.
func fileName(parts ...string) string {
	name := strings.Join(parts, "-")
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	return path.Base(clean)
}
