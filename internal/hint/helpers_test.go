package hint_test

import (
	"bytes"
	"testing"

	"github.com/azabudai/ctool/ingest/ingesttest"
	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/render"
	"github.com/azabudai/ctool/internal/textout"
	"github.com/azabudai/ctool/query"
)

// The hints are tested as an agent meets them: through the engine, on a build.

// newEngine returns an engine over a database built from the sample data.
func newEngine(t *testing.T) *query.Engine {
	t.Helper()
	live := database.NewLive(ingesttest.Build(t, ingesttest.SampleInput(t)))
	t.Cleanup(live.Close)
	return query.NewEngine(live)
}

// jsonOf is the answer's JSON document, as ctool query --format json writes it.
func jsonOf(t *testing.T, res *query.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := textout.JSON(&b, render.Document(res)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
