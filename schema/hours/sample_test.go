package hours

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"testing"
)

// sampleDir holds the sample data, at the module's root.
const sampleDir = "../../input"

// readSample reads one CSV file of the sample data: its header and records.
func readSample(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	header, err := r.Read()
	if err != nil {
		t.Fatalf("%s: header: %v", path, err)
	}
	var records [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		records = append(records, rec)
	}
	return header, records
}
