package sites

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/publish"
)

// Health is what /healthz says of each site: the build it serves and its age and, for a followed
// site, its follower's state and last error. The status is "ok" while every follower's last check
// succeeded and "failing" when one did not; the answer is 200 either way, since every site still
// serves a build (a server with none does not start).
type Health struct {
	Status string       `json:"status"`
	Sites  []SiteHealth `json:"sites"`
}

// SiteHealth is one site's part of Health.
type SiteHealth struct {
	Site        string     `json:"site,omitempty"`
	Build       string     `json:"build"`
	BuiltAt     *time.Time `json:"built_at,omitempty"`
	AgeSeconds  *float64   `json:"age_seconds,omitempty"`
	Source      string     `json:"source"`          // the store followed, or the build file
	State       string     `json:"state,omitempty"` // followed: current, failing
	SwappedAt   *time.Time `json:"swapped_at,omitempty"`
	LastCheckAt *time.Time `json:"last_check_at,omitempty"`
	// The last failed check, kept after a later check succeeds (State then says current).
	LastError     string     `json:"last_error,omitempty"`
	LastErrorKind string     `json:"last_error_kind,omitempty"`
	LastErrorAt   *time.Time `json:"last_error_at,omitempty"`
	Error         string     `json:"error,omitempty"` // a local build that cannot be read now
}

// Health reads every site's health now.
func (s *Set) Health(ctx context.Context) Health {
	h := Health{Status: "ok", Sites: []SiteHealth{}}
	now := s.cfg.Now()
	for _, site := range s.Sites {
		sh := SiteHealth{Site: site.Name, Source: site.Source}
		var built time.Time
		if st, ok := site.Status(); ok {
			sh.Build, built, sh.State = st.Current.BuildID, st.Current.CreatedAt, string(st.State)
			sh.SwappedAt, sh.LastCheckAt = timePtr(st.SwappedAt), timePtr(st.LastCheckAt)
			sh.LastError, sh.LastErrorKind, sh.LastErrorAt = st.LastError, string(st.LastErrorKind), timePtr(st.LastErrorAt)
			if st.State != publish.StateCurrent {
				h.Status = "failing"
			}
		} else {
			id, at, err := site.rec.read(ctx, site.DB)
			if err != nil {
				sh.Error = err.Error()
				h.Status = "failing"
			}
			sh.Build, built = id, at
		}
		if !built.IsZero() {
			age := now.Sub(built).Seconds()
			sh.BuiltAt, sh.AgeSeconds = timePtr(built.UTC()), &age
		}
		h.Sites = append(h.Sites, sh)
	}
	return h
}

// HealthHandler serves Health as JSON: /healthz.
func (s *Set) HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		b, _ := json.Marshal(s.Health(ctx))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(append(b, '\n'))
	})
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// recordCache is a local build's record, read again only when another file is at its path: a probe
// every few seconds opens nothing.
type recordCache struct {
	mu    sync.Mutex
	seen  os.FileInfo
	id    string
	built time.Time
}

func (c *recordCache) read(ctx context.Context, path string) (string, time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	info, err := os.Stat(path)
	if err != nil {
		return c.id, c.built, err
	}
	if c.seen != nil && os.SameFile(c.seen, info) && c.seen.ModTime().Equal(info.ModTime()) && c.seen.Size() == info.Size() {
		return c.id, c.built, nil
	}
	rec, err := database.ReadRecord(ctx, path)
	if err != nil {
		return c.id, c.built, err
	}
	c.seen, c.id = info, rec[database.BuildID]
	c.built, _ = time.Parse(time.RFC3339, rec[database.BuildTime])
	return c.id, c.built, nil
}
