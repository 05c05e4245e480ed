package publish

import (
	"context"
	"os"
	"testing"
	"time"
)

// Builds made within one second have the same build time: the newest cached build, at a start with
// the store down, is then the one cached last, which was being served.
func TestNewestCachedBuildOfOneSecond(t *testing.T) {
	ctx := context.Background()
	st := backends[0].start(t)("builds")
	at := time.Now().UTC().Truncate(time.Second)
	cache := t.TempDir()
	var swaps []Manifest
	f := newFollower(t, st, cache, &swaps)
	var last Manifest
	for i, id := range []string{"a", "b", "c"} {
		path, _ := writeBuild(t, 20_000)
		m := testManifest(id)
		m.CreatedAt = at
		m, err := Publish(ctx, st, path, m)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			_, err = f.Start(ctx)
		} else {
			err = f.CheckOnce(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		// Cached one after another: a second apart on the clock of the cache's files.
		mod := at.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(cachedBuildPath(cache, m.SHA256), mod, mod); err != nil {
			t.Fatal(err)
		}
		last = m
	}
	f.Close()
	st.down()
	defer st.up()
	for range 5 { // the order once depended on sort's whims
		g := newFollower(t, st, cache, &swaps)
		b, err := g.Start(ctx)
		if err != nil || b.Manifest.SHA256 != last.SHA256 {
			t.Fatalf("Start with the store down served %s (%v), want c, the build cached last", b.Manifest.BuildID, err)
		}
		g.Close()
	}
}
