package mcpserver

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/profile"
	"github.com/azabudai/ctool/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads the metrics as Prometheus does, with the client library's own text parser.
func scrape(t *testing.T, m *metricSet) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("the metrics do not parse: %v\n%s", err, rec.Body)
	}
	return fams
}

// value is the value of the series of family name with exactly these labels (-1 if there is none).
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.Label {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// A known sequence of calls shows in the counts, and every search result names its build in _meta.
func TestMetricsCountCalls(t *testing.T) {
	path := ingesttest.Build(t, ingesttest.SampleInput(t))
	live := database.NewLive(path)
	t.Cleanup(live.Close)
	finder, err := profile.NewFinder(live, "")
	if err != nil {
		t.Fatal(err)
	}
	b, release, err := live.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	build := b.ID
	release()
	var tools []string
	for _, tl := range schema.Manifest() {
		tools = append(tools, tl.Name)
	}
	m := newMetrics(tools, false)
	m.watchWorkers(func() int { return 4 }, func() int { return 3 }, func() int { return 1 })
	m.watchBuild(liveBuild(live))
	m.workerEnded("crashed")
	m.workerEnded("retired")
	m.authRefused("signature")
	cs := connect(t, newServer(serverConfig{live: live, profiles: finder, timeout: 5 * time.Second, version: "test", metrics: m}))
	for _, c := range []struct {
		tool, arg, value string
	}{
		{"search_stores", "sql_query", "SELECT store_name FROM stores LIMIT 2"},
		{"search_stores", "sql_query", "SELECT count(*) FROM stores"},
		{"search_stores", "sql_query", "DROP TABLE stores"},
		{"search_events", "sql_query", "SELECT event_name FROM events LIMIT 1"},
		{"get_user_profile", "profile_id", "user_criollo_heavy"},
		{"get_user_profile", "profile_id", "nonexistent_user"},
	} {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{c.arg: c.value}})
		if err != nil {
			t.Fatal(err)
		}
		if c.arg == "sql_query" && !r.IsError && r.Meta[metaBuild] != build {
			t.Errorf("%s: _meta %v, want %s %s", c.value, r.Meta, metaBuild, build)
		}
	}
	fams := scrape(t, m)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ctool_calls_total", map[string]string{"tool": "search_stores", "outcome": "ok"}, 2},
		{"ctool_calls_total", map[string]string{"tool": "search_stores", "outcome": "refused"}, 1},
		{"ctool_calls_total", map[string]string{"tool": "search_events", "outcome": "ok"}, 1},
		{"ctool_calls_total", map[string]string{"tool": "search_products", "outcome": "ok"}, 0},
		{"ctool_calls_total", map[string]string{"tool": "get_user_profile", "outcome": "ok"}, 1},
		{"ctool_calls_total", map[string]string{"tool": "get_user_profile", "outcome": "not_found"}, 1},
		{"ctool_call_duration_seconds", map[string]string{"tool": "search_stores"}, 3},
		{"ctool_call_duration_seconds", map[string]string{"tool": "get_user_profile"}, 2},
		{"ctool_worker_queries_total", map[string]string{"outcome": "crashed"}, 0},
		{"ctool_worker_restarts_total", map[string]string{"reason": "crashed"}, 1},
		{"ctool_worker_restarts_total", map[string]string{"reason": "retired"}, -1}, // no series: not a restart
		{"ctool_auth_refusals_total", map[string]string{"reason": "signature"}, 1},
		{"ctool_workers_running", nil, 4},
		{"ctool_workers_busy", nil, 3},
		{"ctool_calls_waiting", nil, 1},
		{"ctool_build_info", map[string]string{"build": build}, 1},
	} {
		if got := value(fams, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if age := value(fams, "ctool_build_age_seconds", nil); age < 0 || age > 3600 {
		t.Errorf("ctool_build_age_seconds = %v", age)
	}
}
