package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// frameBytes is one frame as conn.send writes it.
func frameBytes(typ byte, payload []byte) []byte {
	var buf bytes.Buffer
	newConn(&buf).send(typ, payload)
	return buf.Bytes()
}

// FuzzReadFrame reads hostile bytes as either side of the protocol does: readFrame never panics nor
// reads past a frame, every frame it returns is exactly the bytes it consumed (conn.send writes them
// back the same), it ends only with EOF at a frame's edge, a short frame or a bad length, and each
// frame's payload is then parsed as Serve and the Pool parse it.
func FuzzReadFrame(f *testing.F) {
	seq := binary.BigEndian.AppendUint64(nil, 7)
	for _, s := range [][]byte{
		nil,
		frameBytes(typeHello, []byte(`{"build":"b"}`)),
		frameBytes(typeQuery, []byte(`{"seq":7,"dataset":"stores","sql":"U0VMRUNUIDE=","deadline":1}`)),
		frameBytes(typeCancel, seq),
		frameBytes(typeResult, append(seq, 2, '{', '}', 0, 0)),
		frameBytes(typeError, []byte(`{"seq":7,"kind":"sql_error","message":"m","exit":true}`)),
		append(frameBytes(typeCancel, seq), frameBytes(typeQuery, []byte(`{}`))...),
		{0, 0, 0, 0, 'Q'},
		{0xff, 0xff, 0xff, 0xff},
		{0, 0, 0, 9, 'R', 1, 2},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		var again []byte
		for {
			fr, err := readFrame(r)
			if err != nil {
				switch {
				case errors.Is(err, io.EOF):
					if len(again) != len(data) {
						t.Fatalf("EOF after %d of %d bytes", len(again), len(data))
					}
				case errors.Is(err, io.ErrUnexpectedEOF), strings.HasPrefix(err.Error(), "worker: bad frame length"):
				default:
					t.Fatalf("unexpected error %v", err)
				}
				break
			}
			again = append(again, frameBytes(fr.typ, fr.payload)...)
			if !bytes.HasPrefix(data, again) {
				t.Fatalf("frame %q %q is not the bytes it was read from", fr.typ, fr.payload)
			}
			parse(t, fr)
		}
	})
}

// parse reads a frame's payload as its reader does; it may fail, never panic.
func parse(t *testing.T, fr frame) {
	switch fr.typ {
	case typeQuery:
		req := &request{}
		if json.Unmarshal(fr.payload, req) == nil {
			req.deadline()
		}
	case typeResult:
		if _, b, err := seqOf(fr.payload); err == nil {
			DecodeResult(b)
		} else if len(fr.payload) >= 8 {
			t.Fatalf("seqOf refused %d bytes: %v", len(fr.payload), err)
		}
	case typeError, typeHello:
		var fl failure
		json.Unmarshal(fr.payload, &fl)
	}
}
