package benchkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// Response is a JSON-RPC answer.
type Response struct {
	ID     *int64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Encode is a JSON-RPC request; params is left out when nil (a ping).
func Encode(id int64, method string, params any) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg) // maps of JSON values only
	return b
}

func notification(method string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	return b
}

// InitParams are the initialize request's params of a client named name.
func InitParams(name, protocol string) map[string]any {
	return map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}}
}

// ToolCall is the params of a tools/call.
func ToolCall(tool string, args any) map[string]any {
	return map[string]any{"name": tool, "arguments": args}
}

// ToolText is the text of a tools/call result of one text content; an error result is an error.
func ToolText(raw json.RawMessage) (string, error) {
	var res struct {
		Content []struct{ Text string }
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 || res.IsError {
		return "", fmt.Errorf("tool error: %.300s", raw)
	}
	return res.Content[0].Text, nil
}

func result(method string, msg Response) (json.RawMessage, error) {
	if msg.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, msg.Error)
	}
	return msg.Result, nil
}

// Stdio is an MCP server on stdio, spoken to in raw JSON-RPC, one request at a time.
type Stdio struct {
	proc *Proc
	in   io.WriteCloser
	out  *bufio.Scanner
	next int64
}

// StartStdio starts argv, its log dropped, and initializes a session as client name.
func StartStdio(argv []string, name, protocol string) (*Stdio, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = io.Discard
	in, inErr := cmd.StdinPipe()
	out, outErr := cmd.StdoutPipe()
	if err := errors.Join(inErr, outErr); err != nil {
		return nil, err
	}
	p, err := Start(cmd)
	if err != nil {
		return nil, err
	}
	s := &Stdio{proc: p, in: in, out: bufio.NewScanner(out)}
	s.out.Buffer(make([]byte, 1<<20), 16<<20)
	if _, err := s.Request("initialize", InitParams(name, protocol)); err != nil {
		s.Stop()
		return nil, err
	}
	if _, err := s.in.Write(append(notification("notifications/initialized"), '\n')); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Request sends a request and reads lines until its answer.
func (s *Stdio) Request(method string, params any) (json.RawMessage, error) {
	s.next++
	if _, err := s.in.Write(append(Encode(s.next, method, params), '\n')); err != nil {
		return nil, err
	}
	for s.out.Scan() {
		var msg Response
		if err := json.Unmarshal(s.out.Bytes(), &msg); err != nil || msg.ID == nil || *msg.ID != s.next {
			continue
		}
		return result(method, msg)
	}
	return nil, fmt.Errorf("%s: %w: %v", method, errNoAnswer, s.out.Err())
}

// Call makes a tools/call (params from ToolCall) and returns its text.
func (s *Stdio) Call(params map[string]any) (string, error) {
	raw, err := s.Request("tools/call", params)
	if err != nil {
		return "", err
	}
	return ToolText(raw)
}

// Stop closes the server's stdin, which ends it, and kills it if it has not exited within 5 s.
func (s *Stdio) Stop() {
	select {
	case <-s.proc.Exited():
		return
	default:
	}
	s.in.Close()
	s.proc.Stop(nil, 5*time.Second)
}

// StatusError is an HTTP answer outside 2xx.
type StatusError struct {
	Code int
	Body []byte
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %.200s", e.Code, e.Body) }

// HTTP is one MCP client over streamable HTTP: it keeps the session the server gives it, if any.
type HTTP struct {
	URL      string
	Client   *http.Client
	Token    string // a bearer token, if not empty
	Protocol string // the MCP-Protocol-Version header, if not empty
	session  string
	next     int64
}

// Initialize opens a session as client name.
func (c *HTTP) Initialize(ctx context.Context, name, protocol string) error {
	if _, err := c.Request(ctx, "initialize", InitParams(name, protocol)); err != nil {
		return err
	}
	_, _, err := c.post(ctx, notification("notifications/initialized"))
	return err
}

// Request sends a request with the client's next id and returns its result.
func (c *HTTP) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.next++
	b, err := c.Send(ctx, Encode(c.next, method, params))
	if err != nil {
		return nil, err
	}
	var msg Response
	if err := json.Unmarshal(b, &msg); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return result(method, msg)
}

// Call makes a tools/call (params from ToolCall) and returns its text.
func (c *HTTP) Call(ctx context.Context, params map[string]any) (string, error) {
	raw, err := c.Request(ctx, "tools/call", params)
	if err != nil {
		return "", err
	}
	return ToolText(raw)
}

// Send posts one encoded JSON-RPC request and returns the answer: the body of a JSON answer, or the
// message of an event stream. An error from the round trip is the client's (*url.Error); one outside
// 2xx a *StatusError.
func (c *HTTP) Send(ctx context.Context, body []byte) ([]byte, error) {
	b, stream, err := c.post(ctx, body)
	if err != nil || !stream {
		return b, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data:"); ok {
			var msg Response
			if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &msg); err == nil && msg.ID != nil {
				return []byte(strings.TrimSpace(data)), nil
			}
		}
	}
	return nil, fmt.Errorf("no answer in the event stream: %.200s", b)
}

func (c *HTTP) post(ctx context.Context, body []byte) (answer []byte, stream bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.Protocol != "" {
		req.Header.Set("MCP-Protocol-Version", c.Protocol)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, false, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, false, &StatusError{resp.StatusCode, b}
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return b, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), nil
}
