package mcpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/azabudai/ctool/internal/textout"
)

// JSON-RPC asks a server to answer a request with the id it was sent. The SDK decodes a request's
// id into a float64 and keeps it as an int64 (jsonrpc.MakeID): 1.5 comes back as 1, -0 as 0, 1e3 as
// 1000, 2^53+1 as 2^53, and an id past int64 as whatever the conversion gives (the SDK's pull
// requests 1178 and 1253 are open). ctool keeps ids at its edge, on both transports: a request whose
// id the SDK would not answer with exactly as sent reaches it with a surrogate string id instead,
// and the answer gets the id as sent back. sdk_test.go asserts the SDK's behaviour, so that its fix
// shows.

// surrogateIDs returns the prefix that begins every surrogate, random for each process (so no client
// can send one by chance or guess one on purpose), and its marker: how a message the SDK encodes
// begins when its id is a surrogate (the SDK writes "jsonrpc", then "id"; in valid JSON these bytes
// can only open an object, a quote inside a string being escaped). Made on first use: only ctool mcp
// needs them, and every ctool command links this package.
var surrogateIDs = sync.OnceValues(func() (string, []byte) {
	prefix := "ctool-id-" + rand.Text() + "-"
	return prefix, []byte(`{"jsonrpc":"2.0","id":"` + prefix)
})

// errNullID refuses a request whose id is null: MCP requests carry a string or an integer, and its
// notifications no id at all. The SDK would take it for a notification and never answer.
var errNullID = errors.New(`an MCP request's "id" is a string or an integer, never null`)

// idKeeper holds the ids it replaced until their answers are written.
type idKeeper struct {
	mu     sync.Mutex
	next   uint64
	sent   map[string]json.RawMessage // surrogate → the id as sent
	bySent map[string]string          // the id as sent → its latest surrogate, for a cancellation
}

// sdkKeeps reports whether the SDK answers with exactly the bytes of id: a plain integer of at most
// 2^53 in magnitude (a float64 holds it exactly) other than -0, or a string of printable ASCII
// without escapes (which the SDK's encoder writes back as it came).
func sdkKeeps(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		if len(id) < 2 || id[len(id)-1] != '"' {
			return false
		}
		for _, c := range id[1 : len(id)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
				return false
			}
		}
		return true
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 16 || digits[0] == '0' && (len(digits) > 1 || id[0] == '-') {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(string(digits), 10, 64)
	return err == nil && n <= 1<<53
}

// keepable reports whether id is one the keeper may stand in for: a JSON string or number. Anything
// else (an object, an array, a boolean) goes to the SDK as sent, which refuses it.
func keepable(id []byte) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// request passes one JSON-RPC message (an object, or any JSON value the SDK then refuses) through the
// keeper: a request whose id the SDK would not keep gets a surrogate (named in the result), and a
// cancellation naming such a request names its surrogate. out is nil when msg passes as it is. A
// request with a null id is errNullID.
func (k *idKeeper) request(msg []byte) (out []byte, surrogate string, err error) {
	if len(msg) == 0 || msg[0] != '{' {
		return nil, "", nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, "", nil
	}
	if _, isRequest := m["method"]; !isRequest {
		return nil, "", nil // a response to one of the server's requests: its ids are the SDK's
	}
	id, hasID := m["id"]
	switch {
	case hasID && string(id) == "null":
		return nil, "", errNullID
	case hasID && keepable(id) && !sdkKeeps(id):
		surrogate = k.add(id)
		m["id"], _ = json.Marshal(surrogate)
	case !hasID && string(m["method"]) == `"notifications/cancelled"`:
		var params map[string]json.RawMessage
		if json.Unmarshal(m["params"], &params) != nil {
			return nil, "", nil
		}
		s, ok := k.latest(params["requestId"])
		if !ok {
			return nil, "", nil
		}
		params["requestId"], _ = json.Marshal(s)
		m["params"] = marshal(params)
	default:
		return nil, "", nil
	}
	return marshal(m), surrogate, nil
}

// body passes a request body (one message, or a batch) through the keeper.
func (k *idKeeper) body(b []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		out, _, err := k.request(trimmed)
		if out == nil {
			return b, err
		}
		return out, nil
	}
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) != nil {
		return b, nil
	}
	changed := false
	for i, raw := range batch {
		out, _, err := k.request(raw)
		if err != nil {
			return nil, err
		}
		if out != nil {
			batch[i], changed = out, true
		}
	}
	if !changed {
		return b, nil
	}
	return marshal(batch), nil
}

func (k *idKeeper) add(id json.RawMessage) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.sent == nil {
		k.sent, k.bySent = map[string]json.RawMessage{}, map[string]string{}
	}
	k.next++
	prefix, _ := surrogateIDs()
	s := prefix + strconv.FormatUint(k.next, 10)
	k.sent[s] = id
	k.bySent[string(id)] = s
	return s
}

// latest is the surrogate of the last request sent with id that is still unanswered.
func (k *idKeeper) latest(id json.RawMessage) (string, bool) {
	if len(id) == 0 {
		return "", false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.bySent[string(id)]
	return s, ok
}

// drop forgets a surrogate whose request was not passed on.
func (k *idKeeper) drop(s string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.forget(s)
}

func (k *idKeeper) forget(s string) {
	id, ok := k.sent[s]
	if !ok {
		return
	}
	delete(k.sent, s)
	if k.bySent[string(id)] == s {
		delete(k.bySent, string(id))
	}
}

// kept reports whether any surrogate awaits its answer.
func (k *idKeeper) kept() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.sent) > 0
}

// restore puts the ids as sent back into what the SDK writes (one message, a batch of answers, or an
// event of a stream), and forgets them: each surrogate is answered once.
func (k *idKeeper) restore(p []byte) []byte {
	idPrefix, idMarker := surrogateIDs()
	if !bytes.Contains(p, idMarker) {
		return p
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []byte
	rest := p
	for {
		i := bytes.Index(rest, idMarker)
		if i < 0 {
			break
		}
		start := i + len(idMarker) - len(idPrefix) - 1 // the surrogate's opening quote
		end := bytes.IndexByte(rest[start+1:], '"')
		if end < 0 {
			break
		}
		end += start + 2 // past its closing quote
		s := string(rest[start+1 : end-1])
		id, ok := k.sent[s]
		if !ok {
			out = append(out, rest[:end]...)
			rest = rest[end:]
			continue
		}
		k.forget(s)
		out = append(append(out, rest[:start]...), id...)
		rest = rest[end:]
	}
	return append(out, rest...)
}

// keepIDs is the keeper in front of the SDK's HTTP handler: each POST's requests are passed through a
// keeper of their own (a stateless request stands alone), and their answers restored.
func keepIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			} else {
				http.Error(w, "failed to read body", http.StatusBadRequest)
			}
			return
		}
		k := &idKeeper{}
		out, err := k.body(body)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(append(errorAnswer(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error()), '\n'))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(out))
		r.ContentLength = int64(len(out))
		if !k.kept() {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&idWriter{ResponseWriter: w, k: k}, r)
	})
}

// errorAnswer is a JSON-RPC error answer to the request with id, as sent ("null" when unknown: the
// SDK's encoder would leave the id out).
func errorAnswer(id json.RawMessage, code int64, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	return b
}

// idWriter restores the ids in each message the SDK writes (it writes each whole, in one Write).
type idWriter struct {
	http.ResponseWriter
	k *idKeeper
}

func (w *idWriter) WriteHeader(status int) {
	w.Header().Del("Content-Length") // the ids as sent may be longer than their surrogates
	w.ResponseWriter.WriteHeader(status)
}

func (w *idWriter) Write(p []byte) (int, error) {
	w.Header().Del("Content-Length")
	if _, err := w.ResponseWriter.Write(w.k.restore(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController flush the SDK's event streams.
func (w *idWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// marshal is v's JSON without HTML escaping (textout.Marshal): the bytes the SDK reads differ from the
// client's only where the keeper changed them (and in the order of an object's keys).
func marshal(v any) []byte {
	b, _ := textout.Marshal(v)
	return b
}
