package changes

import (
	"crypto/md5"
	"encoding/binary"
	"unsafe"

	"github.com/azabudai/ctool/ingest/validation"
)

// snapWorker fingerprints rows for a comparison on a goroutine of its own, in batches and in order,
// so that hashing overlaps parsing. The records' strings are kept, not copied: encoding/csv reuses
// only the slice that holds them.
type snapWorker struct {
	in   chan snapBatch
	free chan []string
	done chan struct{}
	cur  snapBatch
}

type snapBatch struct {
	f     *validation.File
	width int
	cells []string
}

// snapBatchRows is how many rows a batch holds; a few batches in flight keep memory flat.
const snapBatchRows = 2048

// fingerprinter fingerprints every record validation reads into snap, on a snapWorker.
type fingerprinter struct {
	snap   *snapshot
	worker *snapWorker
}

// record is validation's hook (validation.Options.Observe, validation.Previous.Record): one complete
// record of f.
func (w *fingerprinter) record(f *validation.File, record []string) {
	sw := w.worker
	if sw == nil {
		sw = &snapWorker{in: make(chan snapBatch, 4), free: make(chan []string, 6), done: make(chan struct{})}
		w.worker = sw
		go sw.run(w.snap)
	}
	if sw.cur.f != f && len(sw.cur.cells) > 0 {
		sw.send()
	}
	if sw.cur.cells == nil {
		select {
		case sw.cur.cells = <-sw.free:
		default:
			sw.cur.cells = make([]string, 0, snapBatchRows*len(record))
		}
	}
	sw.cur.f, sw.cur.width = f, len(record)
	sw.cur.cells = append(sw.cur.cells, record...)
	if len(sw.cur.cells) >= snapBatchRows*len(record) {
		sw.send()
	}
}

func (sw *snapWorker) send() {
	sw.in <- sw.cur
	sw.cur = snapBatch{}
}

func (sw *snapWorker) run(snap *snapshot) {
	defer close(sw.done)
	for b := range sw.in {
		for i := 0; i+b.width <= len(b.cells); i += b.width {
			snap.record(b.f, b.cells[i:i+b.width])
		}
		clear(b.cells)
		select {
		case sw.free <- b.cells[:0]:
		default:
		}
	}
}

// flush waits until every row observed so far is fingerprinted.
func (w *fingerprinter) flush() {
	sw := w.worker
	if sw == nil {
		return
	}
	if len(sw.cur.cells) > 0 {
		sw.send()
	}
	close(sw.in)
	<-sw.done
	w.worker = nil
}

// hashString is hashText of a string, without copying it.
func hashString(s string) uint64 {
	sum := md5.Sum(unsafe.Slice(unsafe.StringData(s), len(s)))
	return binary.LittleEndian.Uint64(sum[:8])
}
