// One worker process: its start, its frames, its end, and the tail of its stderr for the log.

package worker

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// proc is one worker process.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	conn    *conn
	stdin   io.Closer
	replies chan frame    // the worker's frames; closed when its output ends
	exited  chan struct{} // closed once the process has been waited for
	stderr  *tail
	seq     uint64
	once    sync.Once
	// idleSince is when it was last given back to the idle list; busySince when a call took it (zero
	// while idle). The pool's mutex guards both.
	idleSince time.Time
	busySince time.Time
}

func spawn(cmd *exec.Cmd, onExit func(*proc)) (*proc, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &proc{cmd: cmd, stdin: in, conn: newConn(in), replies: make(chan frame, 1), exited: make(chan struct{}), stderr: &tail{}}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = cmd.Process.Pid
	go func() {
		r := bufio.NewReader(out)
		for {
			f, err := readFrame(r)
			if err != nil {
				break
			}
			w.replies <- f
		}
		close(w.replies)
		w.cmd.Wait()
		close(w.exited)
		onExit(w)
	}()
	return w, nil
}

// kill ends the process at once; closing its stdin alone would let a stuck query run on.
func (w *proc) kill() {
	w.once.Do(func() {
		w.stdin.Close()
		w.cmd.Process.Kill()
	})
}

// outOfMemory reports whether the Go runtime or an allocation in DuckDB said it ran out of memory.
func (w *proc) outOfMemory() bool {
	s := w.stderr.String()
	return strings.Contains(s, "out of memory") || strings.Contains(s, "cannot allocate memory") ||
		strings.Contains(s, "std::bad_alloc")
}

// tail keeps the first and the last few kilobytes a worker wrote on stderr: enough to tell a crash
// from running out of memory (the Go runtime says so before its goroutine dump), never logged.
type tail struct {
	mu   sync.Mutex
	head []byte
	b    []byte
}

const tailBytes = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(len(p), 4<<10-len(t.head)); n > 0 {
		t.head = append(t.head, p[:n]...)
	}
	t.b = append(t.b, p...)
	if len(t.b) > tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n…\n" + string(t.b)
}
