package hint

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/schema"
)

// sampleConn is a connection of a build of the sample data.
func sampleConn(t *testing.T) *database.Conn {
	t.Helper()
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	t.Cleanup(live.Close)
	b, release, err := live.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	conn, err := b.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestTextCountsAsDuckDB: the occurrences counted in Go on the cached text are those DuckDB counts
// with contains(lower(col), word), for words in either case and width, in every dataset.
func TestTextCountsAsDuckDB(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	words := [][]string{{"bar", "バー"}, {"cafe", "café", "カフェ"}, {"ギフト", "gift"}, {"ｂａｒ"}, {"子供", "こども"}, {"nosuch"}, {"a"}, {"麻布台"}}
	for _, d := range []*schema.Dataset{schema.Stores, schema.Events, schema.Products} {
		var cols []string
		for _, c := range d.Columns {
			if c.Kind == schema.Text && !c.Hidden {
				cols = append(cols, c.Name)
			}
		}
		b := (&Caches{}).For("build")
		texts := b.textsOf(ctx, conn, d.Table, cols)
		if texts == nil {
			t.Fatalf("%s: the sample's text does not fit the cache", d.Name)
		}
		for _, w := range words {
			got, want := texts.count(w), countOccurrences(ctx, conn, d.Table, cols, w)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: counted %v in Go, DuckDB counts %v", d.Name, w, got, want)
			}
		}
	}
}

// TestHintCacheBounded: a build's cache never holds more than maxHintBytes nor maxHintEntries
// answers; text that does not fit is left to DuckDB (and not read again), and the hints stay the same.
func TestHintCacheBounded(t *testing.T) {
	ctx := context.Background()
	conn := sampleConn(t)
	b := (&Caches{}).For("build")
	for i := range 3 * maxHintEntries {
		b.keep(fmt.Sprint("statement ", i), []database.NullString{{String: strings.Repeat("x", 1000), Valid: true}})
	}
	if len(b.answers) > maxHintEntries || b.answerSize > maxAnswerBytes || b.size > maxHintBytes {
		t.Fatalf("the cache holds %d answers in %d bytes, at most %d in %d", len(b.answers), b.answerSize, maxHintEntries, maxAnswerBytes)
	}
	// Answers never crowd out the text of a label's words.
	if texts := b.textsOf(ctx, conn, schema.Stores.Table, []string{"store_name", "description"}); texts == nil {
		t.Errorf("with the answers' part full, the stores' text was not kept (%d of %d bytes held)", b.size, maxHintBytes)
	}
	b.keep("a large answer", []database.NullString{{String: strings.Repeat("x", maxHintBytes), Valid: true}})
	if _, ok := b.answers["a large answer"]; ok || b.size > maxHintBytes {
		t.Fatalf("an answer larger than the budget was kept (%d bytes held)", b.size)
	}

	// A full cache: the text is not kept, and the hint is DuckDB's count, the same as a cached one's.
	c := condition{col: publicColumns()["stores"]["category"], op: "=", literals: []string{"pub"}}
	want := occurs(ctx, conn, (&Caches{}).For("other"), c)
	full := &Cache{id: "full", answers: map[string][]database.NullString{}, texts: map[string]*textColumns{}, size: maxHintBytes - 100}
	if got := occurs(ctx, conn, full, c); got != want {
		t.Errorf("with a full cache the hint is\n%s\nwant\n%s", got, want)
	}
	if len(full.texts) != 1 {
		t.Fatalf("%d text entries, want one marked as not fitting", len(full.texts))
	}
	for _, t2 := range full.texts {
		if t2 != nil {
			t.Errorf("text was kept past the budget (%d bytes held)", full.size)
		}
	}
	if want == "" || !strings.Contains(want, "occurs in store_name") {
		t.Errorf("unexpected hint %q", want)
	}
}

// TestHintCachesKeepTwoBuilds: an engine keeps the caches of the current build and the one before it.
func TestHintCachesKeepTwoBuilds(t *testing.T) {
	var h Caches
	first := h.For("1")
	if h.For("1") != first {
		t.Fatal("a build's cache is not reused")
	}
	h.For("2")
	h.For("3")
	if len(h.builds) != keptBuilds || h.builds[0].id != "2" || h.builds[1].id != "3" {
		t.Fatalf("kept builds %v, want 2 and 3", ids(h.builds))
	}
	if h.For("") != nil {
		t.Fatal("a build without an id is cached")
	}
}

func ids(bs []*Cache) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.id)
	}
	return out
}
