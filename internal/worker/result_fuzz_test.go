package worker

import (
	"bytes"
	"testing"

	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

// sameDocument checks that DocumentJSON writes r's document as textout.Marshal writes it, for a
// result as the engine makes them: a dataset, and every row as wide as the columns.
func sameDocument(t *testing.T, r *query.Result) {
	t.Helper()
	if r.Dataset == nil {
		return
	}
	for _, row := range r.Rows {
		if len(row) != len(r.Columns) {
			return
		}
	}
	want, wantErr := textout.Marshal(render.Document(r))
	got, err := render.DocumentJSON(r)
	if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("DocumentJSON: %v\n%s\ntextout.Marshal: %v\n%s", err, got, wantErr, want)
	}
}

// FuzzDecodeResult decodes hostile bytes (its finds are kept in testdata/fuzz/FuzzDecodeResult) as the supervisor decodes a worker's answer: it never panics,
// allocates no more than the bytes allow, names only datasets of the schema, and whatever it accepts
// encodes again to bytes that decode to the same result.
func FuzzDecodeResult(f *testing.F) {
	seeds := []*query.Result{
		{},
		{Dataset: schema.Stores, Columns: []query.Column{{Name: "a", Type: "VARCHAR"}}, Rows: [][]any{{"x"}, {nil}}, Truncated: true},
		{Dataset: schema.Products, Rows: [][]any{{int8(1), int16(2), int32(3), int64(4), 5, uint8(6), uint16(7), uint32(8), uint64(9), 1.5, true, false}}},
		{Rows: [][]any{{[]any{[]any{"a"}, nil}}}, Omitted: []string{"secret"}, Hint: "none"},
		{Dataset: schema.Events, Columns: []query.Column{{Name: "a <b> & c", Type: "VARCHAR"}, {Name: "m", Type: "MAP"}},
			Rows: [][]any{{"<script>&\u2028\xff", []any{1.5, nil, "é", true}}}, Note: "n"},
		{Dataset: schema.Stores, Columns: []query.Column{{Name: "a", Type: "VARCHAR"}}, Hint: "nothing <matched>"},
	}
	for _, r := range seeds {
		b, err := EncodeResult(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{2, '{', '}', 0, 1, 1, 16, 1, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeResult(b)
		if err != nil {
			return
		}
		if r.Dataset != nil {
			if d, err := schema.ByName(r.Dataset.Name); err != nil || d != r.Dataset {
				t.Fatalf("decoded a dataset that is not the schema's: %+v", r.Dataset)
			}
		}
		once, err := EncodeResult(r)
		if err != nil {
			t.Fatalf("decoded what it cannot encode: %v", err)
		}
		r2, err := DecodeResult(once)
		if err != nil {
			t.Fatalf("cannot decode its own encoding: %v", err)
		}
		twice, err := EncodeResult(r2)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("a second round trip differs: %v\n%q\n%q", err, once, twice)
		}
		sameDocument(t, r)
	})
}
