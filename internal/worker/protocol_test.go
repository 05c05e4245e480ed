package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
)

// A header that promises the largest frame, followed by a few bytes and the end, costs what arrived,
// not the promised size.
func TestReadFrameAllocatesWhatArrives(t *testing.T) {
	var in bytes.Buffer
	binary.Write(&in, binary.BigEndian, uint32(maxFrame))
	in.WriteString("0123456789")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readFrame(bufio.NewReader(&in))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("readFrame of a cut frame = %v, want io.ErrUnexpectedEOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("readFrame allocated %d bytes for a 10-byte frame body", got)
	}
}

// A frame arrives whole, whatever its size relative to the first buffer.
func TestReadFrameWhole(t *testing.T) {
	for _, size := range []int{1, 2, frameChunk - 1, frameChunk, frameChunk + 1, 3 * frameChunk} {
		body := bytes.Repeat([]byte{'x'}, size)
		body[0] = 7
		var in bytes.Buffer
		binary.Write(&in, binary.BigEndian, uint32(size))
		in.Write(body)
		f, err := readFrame(bufio.NewReader(&in))
		if err != nil || f.typ != 7 || !bytes.Equal(f.payload, body[1:]) {
			t.Errorf("size %d: typ %d, %d payload bytes, err %v", size, f.typ, len(f.payload), err)
		}
	}
}
