package mcpserver

import (
	"context"
	"net/http"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metricSet is the server's Prometheus metrics, on a registry of their own (never the global one, so
// that nothing a library registers there leaks out). No label holds SQL, an id or a token: tools,
// outcome kinds and reasons are fixed sets; the build id is the one exception, one series at a time.
// A nil *metricSet counts nothing.
type metricSet struct {
	root         *prometheus.Registry  // what /metrics serves: every site's metrics, and the process's
	reg          prometheus.Registerer // where this set's metrics go: root, or root with a site label
	calls        *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	queries      *prometheus.CounterVec
	restarts     *prometheus.CounterVec
	authRefusals *prometheus.CounterVec
}

// newMetrics declares every metric, on a registry of their own with the process's; counters start at
// zero for the labels known in advance: the tools', the workers' query outcomes and, withAuth, every
// reason a request is refused.
func newMetrics(tools []string, withAuth bool) *metricSet {
	return newSiteMetrics(newRegistry(), "", tools, withAuth)
}

// newRegistry is a registry with the process's own metrics (Go's and the process's), which every
// site's metrics join (newSiteMetrics).
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// newSiteMetrics declares one site's metrics in root, each with the label site when site is not ""
// (ctool mcp --site).
func newSiteMetrics(root *prometheus.Registry, site string, tools []string, withAuth bool) *metricSet {
	var reg prometheus.Registerer = root
	if site != "" {
		reg = prometheus.WrapRegistererWith(prometheus.Labels{"site": site}, root)
	}
	m := &metricSet{
		root: root,
		reg:  reg,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ctool_calls_total",
			Help: "Tool calls answered, by tool and outcome (ok, or the error's kind: refused, timeout, busy, crashed, ...)."},
			[]string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ctool_call_duration_seconds",
			Help:    "Time from a tool call's start to its answer, by tool.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}},
			[]string{"tool"}),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ctool_worker_queries_total",
			Help: "Queries that reached a worker process, by how they ended: ok, error, timeout, killed, crashed, out_of_memory."},
			[]string{"outcome"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ctool_worker_restarts_total",
			Help: "Worker processes that ended while the server ran (each is replaced), by why: crashed, killed, out_of_memory, engine_failed, exited."},
			[]string{"reason"}),
		authRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ctool_auth_refusals_total",
			Help: "HTTP requests refused by authentication, by reason."},
			[]string{"reason"}),
	}
	reg.MustRegister(m.calls, m.duration, m.queries, m.restarts, m.authRefusals)
	for _, t := range tools {
		m.calls.WithLabelValues(t, "ok")
		m.duration.WithLabelValues(t)
	}
	for _, o := range []string{"ok", "error", "timeout", "killed", "crashed", "out_of_memory"} {
		m.queries.WithLabelValues(o)
	}
	if withAuth {
		for _, r := range reasons {
			m.authRefusals.WithLabelValues(string(r))
		}
	}
	return m
}

// handler serves the metrics in Prometheus' text format.
func (m *metricSet) handler() http.Handler {
	return metricsHandler(m.root)
}

// call counts one answered call; outcome is "ok" or the error's kind.
func (m *metricSet) call(tool, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(took.Seconds())
}

// workerQuery counts one query's outcome in a worker (worker.Config.Observe).
func (m *metricSet) workerQuery(outcome string) {
	if m != nil {
		m.queries.WithLabelValues(outcome).Inc()
	}
}

// workerEnded counts a worker process that ended, and why (worker.Event.Worker), unless the pool
// retired it: an extra worker a burst started, idle since, is no restart.
func (m *metricSet) workerEnded(why string) {
	if m != nil && why != "retired" {
		m.restarts.WithLabelValues(why).Inc()
	}
}

// authRefused counts a request refused by authentication, by its reason.
func (m *metricSet) authRefused(why reason) {
	if m != nil {
		m.authRefusals.WithLabelValues(string(why)).Inc()
	}
}

// watchWorkers exposes the worker pool's gauges, read at each scrape.
func (m *metricSet) watchWorkers(running, busy, waiting func() int) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ctool_workers_running", Help: "Worker processes started and not yet gone."},
			func() float64 { return float64(running()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ctool_workers_busy", Help: "Worker processes running a query."},
			func() float64 { return float64(busy()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ctool_calls_waiting", Help: "Calls waiting for a free worker."},
			func() float64 { return float64(waiting()) }))
}

// buildFunc tells which build the next call would read, and when it was ingested.
type buildFunc func(ctx context.Context) (id string, built time.Time, err error)

// watchBuild exposes the build served: ctool_build_info{build} 1 and ctool_build_age_seconds, read
// at each scrape.
func (m *metricSet) watchBuild(f buildFunc) {
	m.reg.MustRegister(&buildCollector{f: f})
}

var (
	buildInfoDesc = prometheus.NewDesc("ctool_build_info", "The build the next call reads (the id of its ingest), always 1.", []string{"build"}, nil)
	buildAgeDesc  = prometheus.NewDesc("ctool_build_age_seconds", "Time since the build the next call reads was ingested.", nil, nil)
)

type buildCollector struct{ f buildFunc }

func (c *buildCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- buildInfoDesc
	ch <- buildAgeDesc
}

func (c *buildCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, built, err := c.f(ctx)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(buildInfoDesc, prometheus.GaugeValue, 1, id)
	if !built.IsZero() {
		ch <- prometheus.MustNewConstMetric(buildAgeDesc, prometheus.GaugeValue, time.Since(built).Seconds())
	}
}

// liveBuild is the buildFunc of a live database: the build its next call reads.
func liveBuild(live *database.Live) buildFunc {
	return func(ctx context.Context) (string, time.Time, error) {
		b, release, err := live.Acquire(ctx)
		if err != nil {
			return "", time.Time{}, err
		}
		defer release()
		built, _ := time.Parse(time.RFC3339, b.Build[database.BuildTime])
		return b.ID, built, nil
	}
}
