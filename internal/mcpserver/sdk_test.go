package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests assert behaviours of the SDK that newStdioTransport works around. When one fails, the
// SDK has fixed the issue it names: drop that part of the filter (stdio.go), then this test.

const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	slowCallLine    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
)

// slowServer has one tool that answers after d, or when its call is cancelled.
func slowServer(d time.Duration) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return srv
}

// syncBuffer is an output shared by the SDK's writer and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Close() error { return nil }

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// answered reports whether out holds an answer to request id.
func answered(out string, id int64) bool {
	for _, line := range strings.Split(out, "\n") {
		if msg, err := jsonrpc.DecodeMessage([]byte(line)); err == nil {
			if r, ok := msg.(*jsonrpc.Response); ok && r.ID.Raw() == id {
				return true
			}
		}
	}
	return false
}

// https://github.com/modelcontextprotocol/go-sdk/issues/1209: a line that is not JSON ends the SDK's
// reading; the request after it is never read.
func TestSDKStopsReadingAtABadLine(t *testing.T) {
	in := "{not json\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	conn, err := (&mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(in)), Writer: &syncBuffer{}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if msg, err := conn.Read(context.Background()); err == nil {
		t.Fatalf("the SDK read %v after a bad line: go-sdk#1209 is fixed; the filter's parse-error answer can go", msg)
	}
}

// https://github.com/modelcontextprotocol/go-sdk/issues/1209 and pull/451: once 2025-11-25 is agreed, a
// batch ends the session; the request after it is never answered.
func TestSDKEndsTheSessionAtABatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &syncBuffer{}
		inR, inW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- slowServer(0).Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: out}) }()
		io.WriteString(inW, initializeLine+"\n")
		synctest.Wait() // the batch must follow the agreed version
		if !answered(out.String(), 1) {
			t.Fatalf("initialize went unanswered:\n%s", out)
		}
		go io.WriteString(inW, initializedLine+"\n"+`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
		synctest.Wait() // the session has ended, or waits for more to read
		inW.Close()
		<-done
		if answered(out.String(), 3) {
			t.Fatalf("the SDK answered the request after a batch: the filter's answer to batches can go\n%s", out)
		}
	})
}

// https://github.com/modelcontextprotocol/go-sdk/issues/56: a server that declares tools only still
// answers prompts/list (refuseUndeclared says "method not found" instead).
func TestSDKAnswersUndeclaredPrompts(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	cs := connect(t, srv)
	if _, err := cs.ListPrompts(context.Background(), nil); err != nil {
		t.Fatalf("prompts/list on a server without prompts: %v: the SDK refuses it now; refuseUndeclared can go", err)
	}
}

// https://github.com/modelcontextprotocol/go-sdk/issues/1235: the SDK answers a request its client
// cancelled.
func TestSDKAnswersACancelledRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		out := &syncBuffer{}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- slowServer(time.Minute).Run(ctx, &mcp.IOTransport{Reader: inR, Writer: out}) }()
		io.WriteString(inW, initializeLine+"\n"+initializedLine+"\n"+slowCallLine+"\n")
		synctest.Wait() // the call has started: its tool waits for the minute or its cancellation
		io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n")
		synctest.Wait()
		inW.Close()
		<-done
		if !answered(out.String(), 2) {
			t.Fatalf("the SDK did not answer a cancelled request: go-sdk#1235 is fixed; the filter's drop of such answers can go\n%s", out)
		}
	})
}

// https://github.com/modelcontextprotocol/go-sdk/issues/1061: at the end of its input the SDK drops
// the answers to the requests it has read.
func TestSDKDropsAnswersAtEOF(t *testing.T) {
	out := &syncBuffer{}
	in := initializeLine + "\n" + initializedLine + "\n" + slowCallLine + "\n"
	err := slowServer(200*time.Millisecond).Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(in)), Writer: out})
	if err == nil {
		t.Log("Run ended without an error")
	}
	if answered(out.String(), 2) {
		t.Fatalf("the SDK answered a call read before EOF: go-sdk#1061 is fixed; the filter's hold of EOF can go\n%s", out)
	}
}

// Through the filter a batch is answered, and the session goes on.
func TestStdioAnswersABatch(t *testing.T) {
	out := &syncBuffer{}
	in := initializeLine + "\n" + initializedLine + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- serveStdio(context.Background(), slowServer(0), inR, out, time.Second) }()
		io.WriteString(inW, initializeLine+"\n")
		synctest.Wait() // the batch must follow the agreed version
		if !answered(out.String(), 1) {
			t.Fatalf("initialize went unanswered:\n%s", out)
		}
		io.WriteString(inW, strings.TrimPrefix(in, initializeLine+"\n"))
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
	})
	if !answered(out.String(), 3) || !strings.Contains(out.String(), `"code":-32600`) {
		t.Errorf("the batch or the ping after it went unanswered:\n%s", out)
	}
}

// The same input through the filter: every request read before EOF is answered.
func TestStdioAnswersEverythingReadBeforeEOF(t *testing.T) {
	for range 5 {
		out := &syncBuffer{}
		in := initializeLine + "\n" + initializedLine + "\n" + slowCallLine + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"
		err := serveStdio(context.Background(), slowServer(100*time.Millisecond), strings.NewReader(in), out, time.Second)
		if err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
		for _, id := range []int64{1, 2, 3} {
			if !answered(out.String(), id) {
				t.Fatalf("request %d was not answered:\n%s", id, out)
			}
		}
	}
}

// https://github.com/modelcontextprotocol/go-sdk/pull/1178 and pull/1253 (open): the SDK answers a
// request with an id it could not keep, and takes an id of null for a notification. When this
// fails, check what the SDK does with each of idCases (ids_test.go) before dropping the keeper.
func TestSDKChangesIDs(t *testing.T) {
	in := strings.Replace(initializeLine, `"id":1`, `"id":"init"`, 1) + "\n" + initializedLine + "\n" +
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n"
	inR, inW := io.Pipe()
	out := &watchedBuffer{want: `"id":"last"`, seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- slowServer(0).Run(context.Background(), &mcp.IOTransport{Reader: inR, Writer: out}) }()
	io.WriteString(inW, in)
	select {
	case <-out.seen: // the SDK answers these in order
	case <-time.After(30 * time.Second): // a hang guard
	}
	inW.Close()
	<-done
	got := out.String()
	if !strings.Contains(got, `{"jsonrpc":"2.0","id":1,"result":{}}`) || !strings.Contains(got, `{"jsonrpc":"2.0","id":9007199254740992,"result":{}}`) ||
		strings.Contains(got, `"id":null`) || strings.Count(got, `"result":{}`) != 3 {
		t.Fatalf("the SDK now keeps ids 1.5 and 2^53+1, or answers an id of null:\n%s", got)
	}
}

// watchedBuffer is a syncBuffer that closes seen once what is written holds want.
type watchedBuffer struct {
	syncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}
