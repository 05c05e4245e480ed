// Both servers over streamable HTTP: started on loopback ports, loaded by N clients, memory sampled.

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/azabudai/ctool/bench/internal/benchkit"
	_ "github.com/duckdb/duckdb-go/v2"
)

// protocol is the MCP revision the client asks for: one both servers speak.
const protocol = "2025-06-18"

// httpServer is a server started on a loopback port for streamable HTTP.
type httpServer struct {
	proc    *benchkit.Proc
	url     string
	sampler *benchkit.TreeSampler // the summed resident sets of the server and its descendants
}

func startHTTP(sd side) (*httpServer, error) {
	argv := append([]string(nil), sd.argv...)
	var url string
	if !sd.ctool { // DBHub: it takes a port; find a free one
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		for i, a := range argv {
			if a == "--transport=stdio" {
				argv[i] = "--transport=http"
			}
		}
		argv = append(argv, "--host=127.0.0.1", "--port="+strconv.Itoa(port))
		url = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	} else {
		argv = append(argv, "--http", "127.0.0.1:0")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	var p *benchkit.Proc
	var err error
	if url == "" {
		p, url, err = benchkit.StartServing(cmd, 30*time.Second)
	} else {
		cmd.Stderr = io.Discard
		p, err = benchkit.Start(cmd)
	}
	if err != nil {
		return nil, err
	}
	h := &httpServer{proc: p, url: url, sampler: benchkit.SampleTree(p.Cmd.Process.Pid, 50*time.Millisecond)}
	// Wait until it answers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c := newHTTPClient(h.url)
		if err := c.Initialize(context.Background(), "peer", protocol); err == nil {
			break
		} else if time.Now().After(deadline) {
			h.stop()
			return nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return h, nil
}

// peakRSS is the peak of the summed resident sets of the server and its descendants so far.
func (h *httpServer) peakRSS() int64 {
	peak, _ := h.sampler.Peaks()
	return peak
}

func (h *httpServer) stop() {
	h.sampler.Stop()
	h.proc.Stop(os.Interrupt, 10*time.Second)
}

// load runs n clients, each with its own session, calling the queries in turn for d. cpu is
// the CPU time the server and its descendants used over the timed window.
func (h *httpServer) load(sd side, qs []query, n int, d time.Duration, seq *atomic.Int64) (times []time.Duration, errCount int64, elapsed, cpu time.Duration, err error) {
	clients := make([]*benchkit.HTTP, n)
	for i := range clients {
		clients[i] = newHTTPClient(h.url)
		if err := clients[i].Initialize(context.Background(), "peer", protocol); err != nil {
			return nil, 0, 0, 0, err
		}
	}
	next := func(_ *benchkit.HTTP, k int) map[string]any {
		return sd.params(qs[k%len(qs)], int(seq.Add(1)))
	}
	benchkit.ClosedLoop(clients, time.Now().Add(d/5), next) // a short warm-up, untimed
	pid := h.proc.Cmd.Process.Pid
	cpuBefore := benchkit.TreeCPU(pid)
	start := time.Now()
	r := benchkit.ClosedLoop(clients, start.Add(d), next)
	elapsed = time.Since(start)
	cpu = benchkit.TreeCPU(pid) - cpuBefore
	if r.FirstErr != nil {
		fmt.Fprintf(os.Stderr, "peer: %s, %d clients: %d errors, the first: %v\n", sd.name, n, r.Errors, r.FirstErr)
	}
	return r.Times, r.Errors, elapsed, cpu, nil
}

var transport = &http.Transport{MaxIdleConnsPerHost: 128, MaxConnsPerHost: 0}

func newHTTPClient(url string) *benchkit.HTTP {
	return &benchkit.HTTP{URL: url, Client: &http.Client{Transport: transport, Timeout: 30 * time.Second}, Protocol: protocol}
}
