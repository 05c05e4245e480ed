package benchkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Proc is a started child process whose exit is awaited once, in the background, so that a stop can
// wait for it with a bound.
type Proc struct {
	Cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// Start starts cmd.
func Start(cmd *exec.Cmd) (*Proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// Exited is closed when the process has exited; Err then says how.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Err is the exit's error (nil for a 0 status), once Exited is closed.
func (p *Proc) Err() error { return p.err }

// Stop sends sig (nothing if nil) and waits up to grace for the exit, then kills the process. It
// reports whether it had to kill, and the exit's error.
func (p *Proc) Stop(sig os.Signal, grace time.Duration) (killed bool, err error) {
	if sig != nil {
		p.Cmd.Process.Signal(sig)
	}
	select {
	case <-p.exited:
		return false, p.err
	case <-time.After(grace):
		p.Cmd.Process.Kill()
		<-p.exited
		return true, p.err
	}
}

// StartServing starts cmd, `ctool mcp --http ...`, and returns its URL, read from the first log line
// that has one ({"serving": URL}); later log lines are dropped. It waits at most wait.
func StartServing(cmd *exec.Cmd, wait time.Duration) (*Proc, string, error) {
	w := &servingWriter{found: make(chan string, 1)}
	cmd.Stderr = w
	cmd.WaitDelay = 5 * time.Second // a worker that keeps the log pipe open must not hold up Wait
	p, err := Start(cmd)
	if err != nil {
		return nil, "", err
	}
	select {
	case url := <-w.found:
		return p, url, nil
	case <-p.exited:
		return nil, "", fmt.Errorf("%s exited: %v\n%s", cmd.Path, p.err, w.head())
	case <-time.After(wait):
		p.Stop(os.Interrupt, 10*time.Second)
		return nil, "", fmt.Errorf("%s did not say where it listens within %s\n%s", cmd.Path, wait, w.head())
	}
}

// servingWriter looks for the serving line in a server's log and keeps the lines before it, for the
// error of a server that never gets there.
type servingWriter struct {
	mu     sync.Mutex
	buf    []byte
	before []string
	done   bool
	found  chan string
}

func (w *servingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		line, rest, ok := bytes.Cut(w.buf, []byte("\n"))
		if !ok {
			break
		}
		w.buf = rest
		var l struct{ Serving string }
		if json.Unmarshal(line, &l) == nil && l.Serving != "" {
			w.done, w.buf = true, nil
			w.found <- l.Serving
			break
		}
		if len(w.before) < 50 {
			w.before = append(w.before, string(line))
		}
	}
	if len(w.buf) > 1<<20 { // a line this long is no log line
		w.buf = nil
	}
	return len(p), nil
}

func (w *servingWriter) head() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.before, "\n")
}

// Descendants lists pid and its descendants, parents before children: each thread's children file, as
// a child belongs to the thread that started it.
func Descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", out[i]))
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", out[i], t.Name()))
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// TreeCPU is the CPU time, user and system, that pid and its descendants have used, including that of
// descendants already reaped (a pool's retired workers count through their parent's cutime).
func TreeCPU(pid int) time.Duration {
	var ticks int64
	for i, p := range Descendants(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses and may hold spaces.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 15 {
			continue
		}
		last := 12 // utime, stime
		if i == 0 {
			last = 14 // and cutime, cstime: the reaped children of the root
		}
		for _, x := range f[11:last] {
			n, _ := strconv.ParseInt(x, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100

// TreeRSS sums the resident sets (VmRSS) of pid and its descendants, in bytes.
func TreeRSS(pid int) int64 { return treeSum(pid, "status", "VmRSS:") }

// TreePSS sums the proportional set sizes of pid and its descendants, in bytes: pages they share
// (the same binary's code) counted once over all of them.
func TreePSS(pid int) int64 { return treeSum(pid, "smaps_rollup", "Pss:") }

// treeSum adds up one "Field: N kB" line of a /proc/PID file over pid and its descendants.
func treeSum(pid int, file, field string) int64 {
	var total int64
	for _, p := range Descendants(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", p, file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, field); ok {
				if f := strings.Fields(rest); len(f) >= 1 {
					kb, _ := strconv.ParseInt(f[0], 10, 64)
					total += kb * 1024
				}
			}
		}
	}
	return total
}

// errNoAnswer is a server's output ending before the answer.
var errNoAnswer = errors.New("the server closed its output")

// CopyFiles copies the regular files of dir from that keep accepts (all if nil) into dir to (created),
// each through edit (unchanged if nil).
func CopyFiles(from, to string, keep func(name string) bool, edit func(name string, b []byte) []byte) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || (keep != nil && !keep(e.Name())) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if edit != nil {
			b = edit(e.Name(), b)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TreeSampler reads the summed resident set and the process count of a process tree at an interval,
// and keeps the peaks, until Stop.
type TreeSampler struct {
	pid         int
	stop, done  chan struct{}
	once        sync.Once
	peak, procs atomic.Int64
}

// SampleTree starts sampling pid's tree every interval.
func SampleTree(pid int, every time.Duration) *TreeSampler {
	s := &TreeSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.read()
			}
		}
	}()
	return s
}

func (s *TreeSampler) read() {
	s.peak.Store(max(s.peak.Load(), TreeRSS(s.pid)))
	s.procs.Store(max(s.procs.Load(), int64(len(Descendants(s.pid)))))
}

// Peaks reads the tree once more and returns the peaks so far: bytes resident, summed, and processes
// at once (the root included).
func (s *TreeSampler) Peaks() (peak int64, procs int) {
	s.read()
	return s.peak.Load(), int(s.procs.Load())
}

// Stop ends the sampling, once, and returns the peaks.
func (s *TreeSampler) Stop() (peak int64, procs int) {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	return s.peak.Load(), int(s.procs.Load())
}
