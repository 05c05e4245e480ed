package validation

import (
	"bytes"
	"io"
	"sync/atomic"
	"unicode/utf8"
)

// readAhead reads a file one buffer ahead of the parser on another goroutine, hashing it, looking for
// carriage returns and checking that it is UTF-8 there, so that work overlaps parsing on the other core.
type readAhead struct {
	started bool
	full    chan aheadChunk
	free    chan []byte
	cur     aheadChunk
	utf8OK  atomic.Bool
}

type aheadChunk struct {
	buf []byte // the unread rest of the buffer
	all []byte // the whole buffer, to hand back
	err error  // after buf: io.EOF or a read error
}

const aheadBuffer = 1 << 20

func (hr *hashingReader) Read(p []byte) (int, error) {
	a := &hr.ahead
	if !a.started {
		a.started = true
		a.full, a.free = make(chan aheadChunk, 2), make(chan []byte, 3)
		for range 3 {
			a.free <- make([]byte, aheadBuffer)
		}
		a.utf8OK.Store(true)
		go hr.produce()
	}
	for len(a.cur.buf) == 0 {
		if a.cur.err != nil {
			return 0, a.cur.err
		}
		if a.cur.all != nil {
			a.free <- a.cur.all
		}
		a.cur = <-a.full
	}
	n := copy(p, a.cur.buf)
	a.cur.buf = a.cur.buf[n:]
	hr.n += int64(n)
	return n, nil
}

// produce reads, hashes and checks the file buffer by buffer until its end or an error.
func (hr *hashingReader) produce() {
	a := &hr.ahead
	var carry []byte // an incomplete UTF-8 sequence at the end of the last buffer
	for {
		buf := <-a.free
		n, err := io.ReadFull(hr.r, buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		data := buf[:n]
		hr.h.Write(data)
		if !hr.hasCR && bytes.IndexByte(data, '\r') >= 0 {
			hr.hasCR = true
		}
		if a.utf8OK.Load() {
			var ok bool
			carry, ok = checkUTF8(carry, data)
			if !ok || (err != nil && len(carry) > 0) {
				a.utf8OK.Store(false)
			}
		}
		if err != nil {
			a.full <- aheadChunk{buf: data, all: buf, err: err}
			return
		}
		a.full <- aheadChunk{buf: data, all: buf}
	}
}

// checkUTF8 checks data, which follows carry (the incomplete sequence the previous buffer ended
// with), and returns the incomplete sequence data ends with.
func checkUTF8(carry, data []byte) ([]byte, bool) {
	// The bytes that complete carry: continuation bytes at data's start, at most 3.
	j := 0
	for j < len(data) && j < 3 && data[j]&0xC0 == 0x80 {
		j++
	}
	if len(carry) > 0 || j > 0 {
		if !utf8.Valid(append(append([]byte(nil), carry...), data[:j]...)) {
			return nil, false
		}
	}
	data = data[j:]
	// Keep back a sequence the buffer cuts off.
	end := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-3; i-- {
		if data[i]&0xC0 != 0x80 { // a sequence starts here
			if !utf8.FullRune(data[i:]) {
				end = i
			}
			break
		}
	}
	return append([]byte(nil), data[end:]...), utf8.Valid(data[:end])
}

// allUTF8 reports whether every byte handed out so far is UTF-8 (the producer checks a buffer before
// handing it over, and a cell is complete only once the bytes after it have been read).
func (hr *hashingReader) allUTF8() bool { return hr.ahead.utf8OK.Load() }
