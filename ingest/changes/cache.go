package changes

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/azabudai/ctool/ingest/validation"
)

// Cache keeps one comparison of a build with a previous build or an input directory until either
// changes, for a reader that asks again and again: the console's pages. The zero Cache is empty.
type Cache struct {
	mu  sync.Mutex
	key string
	set *Set
}

// Get is the comparison of the build at db, whose id is id, with against (Compare): the one kept while
// neither the build nor against's files changed.
func (c *Cache) Get(ctx context.Context, db, id, against string) (*Set, error) {
	key := id + "|" + stateOf(against)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil && c.key == key {
		return c.set, nil
	}
	c.drop()
	// The comparison outlives the request that made it: its reads of values later use this context.
	set, err := Compare(context.WithoutCancel(ctx), db, against)
	if err != nil {
		return nil, err
	}
	c.key, c.set = key, set
	return set, nil
}

// Close closes the comparison kept.
func (c *Cache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop()
}

func (c *Cache) drop() {
	if c.set != nil {
		c.set.Close()
		c.set = nil
	}
}

// stateOf names the state of a file, or of a directory's files: each one's name, size and time of
// change.
func stateOf(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if !info.IsDir() {
		return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
	}
	entries, _ := os.ReadDir(path)
	var b strings.Builder
	for _, e := range entries {
		if i, err := e.Info(); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d|", e.Name(), i.Size(), i.ModTime().UnixNano())
		}
	}
	return b.String()
}

// Each calls fn with every change of a dataset, kind by kind (Changed, Added, Removed): a changed row
// once for each field that differs, an added or removed row once with f nil. It reads chunk rows at a
// time; an error of fn stops it and is returned.
func (c *Set) Each(dataset string, chunk int, fn func(kind string, key []string, f *validation.FieldChange) error) error {
	for _, kind := range []string{Changed, Added, Removed} {
		total := c.Count(dataset, kind)
		for off := 0; off < total; off += chunk {
			diffs, err := c.Diffs(dataset, kind, off, chunk)
			if err != nil {
				return err
			}
			for _, df := range diffs {
				if kind != Changed {
					if err := fn(kind, df.Key, nil); err != nil {
						return err
					}
					continue
				}
				for i := range df.Fields {
					if err := fn(kind, df.Key, &df.Fields[i]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
