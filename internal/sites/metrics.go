package sites

import (
	"context"
	"time"

	"github.com/azabudai/ctool/internal/publish"
	"github.com/prometheus/client_golang/prometheus"
)

// FailureKinds are the values of ctool_follow_failures_total's kind label, each counted from 0.
var FailureKinds = []publish.FailureKind{publish.FailUnreachable, publish.FailMissing, publish.FailInvalid,
	publish.FailSize, publish.FailChecksum, publish.FailDisk, publish.FailVerify, publish.FailSwap}

// Collector is the sites' metrics, read at each scrape: per followed site its swaps, its failed
// checks by kind and whether it is failing now, and with Config.BuildMetrics each site's build and
// its age. With several sites every metric has the label site.
func (s *Set) Collector() prometheus.Collector {
	var labels []string
	if len(s.Sites) > 0 && s.Sites[0].Name != "" {
		labels = []string{"site"}
	}
	return &collector{s: s,
		swaps: prometheus.NewDesc("ctool_follow_swaps_total", "Builds a follower swapped in while the server ran (the first build, at start, is not counted).", labels, nil),
		failures: prometheus.NewDesc("ctool_follow_failures_total", "Failed checks of the followed store, by kind (unreachable, missing, invalid, size, checksum, disk, verify, swap); the build served stays.",
			append(labels, "kind"), nil),
		failing:   prometheus.NewDesc("ctool_follow_failing", "1 while the follower's last check failed (the previous build is still served), else 0.", labels, nil),
		lastCheck: prometheus.NewDesc("ctool_follow_last_check_timestamp_seconds", "When the follower last read the store's latest, succeeding or not (Unix time).", labels, nil),
		info:      prometheus.NewDesc("ctool_build_info", "The build the next call reads (the id of its ingest), always 1.", append(labels, "build"), nil),
		age:       prometheus.NewDesc("ctool_build_age_seconds", "Time since the build the next call reads was ingested.", labels, nil),
		labelled:  labels != nil,
	}
}

type collector struct {
	s                                         *Set
	swaps, failures, failing, lastCheck, info *prometheus.Desc
	age                                       *prometheus.Desc
	labelled                                  bool
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.swaps
	ch <- c.failures
	ch <- c.failing
	ch <- c.lastCheck
	if c.s.cfg.BuildMetrics {
		ch <- c.info
		ch <- c.age
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	for _, site := range c.s.Sites {
		var lv []string
		if c.labelled {
			lv = []string{site.Name}
		}
		if st, ok := site.Status(); ok {
			ch <- prometheus.MustNewConstMetric(c.swaps, prometheus.CounterValue, float64(site.fw.swaps.Load()), lv...)
			for _, k := range FailureKinds {
				ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures[k]), append(lv, string(k))...)
			}
			failing := 0.0
			if st.State != publish.StateCurrent {
				failing = 1
			}
			ch <- prometheus.MustNewConstMetric(c.failing, prometheus.GaugeValue, failing, lv...)
			if !st.LastCheckAt.IsZero() {
				ch <- prometheus.MustNewConstMetric(c.lastCheck, prometheus.GaugeValue, float64(st.LastCheckAt.UnixNano())/1e9, lv...)
			}
		}
		if !c.s.cfg.BuildMetrics {
			continue
		}
		var id string
		var built time.Time
		if st, ok := site.Status(); ok {
			id, built = st.Current.BuildID, st.Current.CreatedAt
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var err error
			id, built, err = site.rec.read(ctx, site.DB)
			cancel()
			if err != nil && id == "" {
				continue
			}
		}
		ch <- prometheus.MustNewConstMetric(c.info, prometheus.GaugeValue, 1, append(lv, id)...)
		if !built.IsZero() {
			ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, c.s.cfg.Now().Sub(built).Seconds(), lv...)
		}
	}
}
