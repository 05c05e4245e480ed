// Package worker runs agents' queries in worker processes, so that no query can crash, jam or starve
// the process that serves them. A Pool (the supervisor) keeps a few workers warm, hands each query to
// an idle one, and replaces a worker that dies, runs past its deadline and grace, or reports that its
// engine failed; Serve is the worker's side: the whole query.Engine.Query, one query at a time.
//
// The protocol runs over the worker's stdin and stdout: frames of a 4-byte big-endian length, a type
// byte and a payload. The supervisor sends a query (typeQuery) and may cancel it (typeCancel); the
// worker answers once per query with a result (typeResult: a query.Result in the encoding of
// EncodeResult, result.go) or an error (typeError), and greets once when its database is open
// (typeHello) or says why it could not open it (typeError).
package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

const (
	typeHello  byte = 'H'
	typeQuery  byte = 'Q'
	typeCancel byte = 'C'
	typeResult byte = 'R'
	typeError  byte = 'E'
)

// maxFrame bounds one frame: a query's text is at most 400 kB (schema.MaxQueryChars characters) and a
// result about 1 MiB, so anything
// near this is a broken peer.
const maxFrame = 64 << 20

type frame struct {
	typ     byte
	payload []byte
}

// request is one query for a worker.
type request struct {
	Seq      uint64 `json:"seq"`
	Dataset  string `json:"dataset"`
	SQL      []byte `json:"sql"`      // bytes, not a string: JSON would replace text that is not UTF-8
	Deadline int64  `json:"deadline"` // Unix nanoseconds; 0 for none
}

func (r *request) deadline() (time.Time, bool) {
	if r.Deadline == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, r.Deadline), true
}

// failure is a worker's error answer: a *ctool.Error, and whether the worker exits after it.
type failure struct {
	Seq     uint64 `json:"seq"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Exit    bool   `json:"exit,omitempty"`
}

// conn writes frames whole; one writer at a time.
type conn struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newConn(w io.Writer) *conn { return &conn{w: bufio.NewWriter(w)} }

func (c *conn) send(typ byte, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var head [5]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(payload)+1))
	head[4] = typ
	c.w.Write(head[:])
	c.w.Write(payload)
	return c.w.Flush()
}

func (c *conn) sendJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.send(typ, b)
}

// frameChunk is what a frame's buffer is given before its bytes arrive: every answer of 10 rows fits.
const frameChunk = 64 << 10

func readFrame(r *bufio.Reader) (frame, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n == 0 || n > maxFrame {
		return frame{}, fmt.Errorf("worker: bad frame length %d", n)
	}
	// The buffer grows as the bytes arrive: a header alone, from a broken peer, costs no 64 MiB.
	var buf bytes.Buffer
	buf.Grow(int(min(n, frameChunk)))
	if _, err := io.CopyN(&buf, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	b := buf.Bytes()
	return frame{typ: b[0], payload: b[1:]}, nil
}

// seqOf reads the sequence number a result frame starts with.
func seqOf(payload []byte) (uint64, []byte, error) {
	if len(payload) < 8 {
		return 0, nil, errors.New("worker: short result frame")
	}
	return binary.BigEndian.Uint64(payload), payload[8:], nil
}
