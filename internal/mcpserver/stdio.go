package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one message over stdio, as the SDK's transport does by default.
const maxLine = mcp.DefaultMaxLineLength

// serveStdio serves srv on in and out until in ends or ctx does. When in ends, every request already
// read is answered first, each within its call's time limit (timeout): the MCP shutdown over stdio
// is the client closing the server's stdin and waiting for it to exit.
func serveStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, timeout time.Duration) error {
	err := srv.Run(ctx, newStdioTransport(in, out, longestCall(timeout)))
	if ctx.Err() != nil {
		return nil // asked to stop
	}
	return err
}

// newStdioTransport is the SDK's stdio transport behind a filter that works around three of its
// behaviours on a pipe:
//
//   - It stops reading at the first line it cannot decode, which ends the session
//     (https://github.com/modelcontextprotocol/go-sdk/issues/1209). The filter answers such a line
//     itself, with JSON-RPC's parse error (-32700) or invalid request (-32600), and passes on only
//     lines the SDK can decode.
//   - It answers a request whose client cancelled it; the spec says not to
//     (https://github.com/modelcontextprotocol/go-sdk/issues/1235). The filter drops that answer.
//   - Once a protocol of 2025-06-18 or later is agreed, a JSON-RPC batch is a line it cannot read, and
//     ends the session the same way (https://github.com/modelcontextprotocol/go-sdk/pull/451 refuses
//     batches there, as the spec dropped them). The filter answers such a batch -32600 itself.
//   - At the end of its input it cancels the requests in flight and refuses to write their answers
//     (https://github.com/modelcontextprotocol/go-sdk/issues/1061). The filter holds the end of the
//     input back until every request read has been answered, or drain has passed.
//   - It answers a request with an id it could not keep (1.5 as 1, 2^53+1 as 2^53), and takes an id of
//     null for a notification, which it never answers. The filter stands a surrogate in for such an
//     id and puts the id as sent back into the answer (ids.go), and answers a null id -32600.
//
// sdk_test.go asserts each of these behaviours of the SDK, so that its fix shows.
func newStdioTransport(in io.Reader, out io.Writer, drain time.Duration) mcp.Transport {
	pr, pw := io.Pipe()
	f := newStdioFilter(out)
	go func() {
		err := f.pump(in, pw)
		if err == nil {
			f.wait(drain)
		}
		pw.CloseWithError(err)
	}()
	return &mcp.IOTransport{Reader: pr, Writer: f, MaxLineLength: -1}
}

type stdioFilter struct {
	mu        sync.Mutex
	out       io.Writer
	inFlight  map[jsonrpc.ID]bool // requests read and not yet answered
	cancelled map[jsonrpc.ID]bool // of those, the ones the client cancelled
	answered  chan struct{}       // signalled after an answer is written
	initIDs   map[jsonrpc.ID]bool // initialize requests not yet answered
	protocol  string              // the protocol version the SDK agreed to, once it has
	ids       idKeeper            // the ids the SDK would not keep, until answered
}

func newStdioFilter(out io.Writer) *stdioFilter {
	return &stdioFilter{out: out, inFlight: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{},
		answered: make(chan struct{}, 1), initIDs: map[jsonrpc.ID]bool{}}
}

// wait returns once every request read has been answered, or after drain.
func (f *stdioFilter) wait(drain time.Duration) {
	deadline := time.NewTimer(drain)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		n := len(f.inFlight)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-f.answered:
		case <-deadline.C:
			return
		}
	}
}

// pump passes the lines of in that the SDK can read on to w, and answers the others. It returns nil
// at the end of in.
func (f *stdioFilter) pump(in io.Reader, w io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if tooLong {
				f.reject(nil, -32700, "Parse error: the message is longer than 16 MiB")
			} else if msg, ok := f.admit(line); ok {
				if _, werr := w.Write(append(msg, '\n')); werr != nil {
					return werr
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline; a line past maxLine is read to its end and dropped.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxLine {
				line, tooLong = nil, true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// admit decides whether the SDK gets a line, and what of it (ids.go), answering it with an error if
// not, and keeps track of requests and cancellations.
func (f *stdioFilter) admit(line []byte) ([]byte, bool) {
	if !json.Valid(line) {
		f.reject(nil, -32700, "Parse error")
		return nil, false
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		f.mu.Lock()
		noBatches := f.protocol >= "2025-06-18"
		f.mu.Unlock()
		if noBatches {
			f.reject(nil, -32600, "Invalid Request: JSON-RPC batches are not part of MCP from 2025-06-18 on")
			return nil, false
		}
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil || len(batch) == 0 {
			f.reject(nil, -32600, "Invalid Request")
			return nil, false
		}
		var msgs []jsonrpc.Message
		var surrogates []string
		changed := false
		for i, raw := range batch {
			out, s, err := f.ids.request(raw)
			if s != "" {
				surrogates = append(surrogates, s)
			}
			if out != nil {
				batch[i], changed = out, true
			}
			var msg jsonrpc.Message
			if err == nil {
				msg, err = jsonrpc.DecodeMessage(batch[i])
			}
			if err != nil || !wellFormed(msg) {
				for _, s := range surrogates {
					f.ids.drop(s)
				}
				f.reject(nil, -32600, "Invalid Request")
				return nil, false
			}
			msgs = append(msgs, msg)
		}
		for _, msg := range msgs {
			f.track(msg)
		}
		if changed {
			return marshal(batch), true
		}
		return line, true
	}
	out, s, err := f.ids.request(trimmed)
	if out == nil {
		out = trimmed
	}
	var msg jsonrpc.Message
	if err == nil {
		msg, err = jsonrpc.DecodeMessage(out)
	}
	if err == nil && !wellFormed(msg) {
		err = errors.New("neither a method nor a result or error")
	}
	if err != nil {
		if s != "" {
			f.ids.drop(s)
		}
		f.reject(idOf(trimmed), -32600, "Invalid Request: "+err.Error())
		return nil, false
	}
	f.track(msg)
	return out, true
}

// wellFormed rejects what the SDK decodes as a response but JSON-RPC does not allow: one with
// neither a result nor an error.
func wellFormed(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	return !ok || resp.Result != nil || resp.Error != nil
}

func (f *stdioFilter) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case req.ID.IsValid():
		f.inFlight[req.ID] = true
		if req.Method == "initialize" {
			// The version asked for, until the answer says which was agreed: the SDK agrees to it before
			// it answers, and a client may send its next line without waiting.
			f.initIDs[req.ID] = true
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				f.protocol = p.ProtocolVersion
			}
		}
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil && f.inFlight[id] {
			f.cancelled[id] = true
		}
	}
}

// idOf is the id of a message that could not be decoded, as sent, when it is a string or a number
// (nil otherwise: the answer's id is then null).
func idOf(line []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || !keepable(m["id"]) {
		return nil
	}
	return m["id"]
}

func (f *stdioFilter) reject(id json.RawMessage, code int64, message string) {
	b := errorAnswer(id, code, message)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(append(b, '\n'))
}

// Write writes one message of the SDK's (it writes each whole, with its newline), except the answer
// to a request its client cancelled.
func (f *stdioFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.inFlight) > 0 && bytes.HasPrefix(bytes.TrimSpace(p), []byte("[")) {
		f.batchAnswered(p)
	}
	if len(f.inFlight) > 0 {
		if id, ok := responseID(p); ok {
			delete(f.inFlight, id)
			if f.initIDs[id] {
				delete(f.initIDs, id)
				var r struct {
					Result struct {
						ProtocolVersion string `json:"protocolVersion"`
					} `json:"result"`
				}
				if json.Unmarshal(p, &r) == nil && r.Result.ProtocolVersion != "" {
					f.protocol = r.Result.ProtocolVersion
				}
			}
			select {
			case f.answered <- struct{}{}:
			default:
			}
			if f.cancelled[id] {
				delete(f.cancelled, id)
				f.ids.restore(p) // forgets the surrogate
				return len(p), nil
			}
		}
	}
	if f.ids.kept() {
		if _, err := f.out.Write(f.ids.restore(p)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return f.out.Write(p)
}

// batchAnswered counts the requests of a batch answered by p (2025-03-26 and before); the answer is
// written whole, cancelled requests included. Called with f.mu held.
func (f *stdioFilter) batchAnswered(p []byte) {
	var batch []json.RawMessage
	if json.Unmarshal(p, &batch) != nil {
		return
	}
	for _, raw := range batch {
		if id, ok := responseID(raw); ok {
			delete(f.inFlight, id)
			delete(f.cancelled, id)
		}
	}
	select {
	case f.answered <- struct{}{}:
	default:
	}
}

// responseID reads the id of a response the SDK wrote without decoding its result: the SDK writes
// "jsonrpc", "id", then "method" for a request or "result" or "error" for a response.
func responseID(p []byte) (jsonrpc.ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(p))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}, false
	}
	var id jsonrpc.ID
	seen := false
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return jsonrpc.ID{}, false
		}
		switch key {
		case "id":
			var v any
			if dec.Decode(&v) != nil {
				return jsonrpc.ID{}, false
			}
			if id, err = jsonrpc.MakeID(v); err != nil {
				return jsonrpc.ID{}, false
			}
			seen = true
			continue
		case "result", "error":
			return id, seen && id.IsValid()
		case "method":
			return jsonrpc.ID{}, false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return jsonrpc.ID{}, false
		}
	}
	return jsonrpc.ID{}, false
}

// Close leaves the command's stdout open.
func (f *stdioFilter) Close() error { return nil }
