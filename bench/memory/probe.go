// probe: one query worker's engine in this process (DuckDB with one thread, the worker's lock-down),
// its memory after many calls as DuckDB and the Go runtime account for it.

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/azabudai/ctool/internal/database"
	"github.com/azabudai/ctool/internal/guard"
	"github.com/azabudai/ctool/query"
	"github.com/azabudai/ctool/schema"
)

func probeMain(args []string) error {
	fs := flag.NewFlagSet("probe", flag.ExitOnError)
	db := fs.String("db", "", "the build")
	calls := fs.Int("calls", 3000, "calls, the three queries in turn")
	wait := fs.Duration("wait", 0, "idle time before the memory is read again")
	noPurge := fs.Bool("no-purge", false, "open without database.WithBackgroundPurge, as the workers did before")
	fs.Parse(args)
	opts := []database.Option{database.WithThreads(1)}
	if !*noPurge {
		opts = append(opts, database.WithBackgroundPurge())
	}
	live := database.NewLive(*db, opts...)
	defer live.Close()
	engine := query.NewEngine(live)
	ctx := context.Background()
	show := func(when string) error {
		b, release, err := live.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		fmt.Printf("## %s\n\n", when)
		m, _ := smaps(os.Getpid())
		fmt.Printf("process: RSS %s MB (anonymous %s, file-backed %s)\n", mb(m.rss), mb(m.anon), mb(m.file))
		samples := []metrics.Sample{
			{Name: "/memory/classes/total:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/free:bytes"},
			{Name: "/memory/classes/heap/released:bytes"},
			{Name: "/memory/classes/heap/unused:bytes"},
			{Name: "/memory/classes/heap/stacks:bytes"},
		}
		metrics.Read(samples)
		for _, s := range samples {
			fmt.Printf("go %s %s MB\n", s.Name, mb(int64(s.Value.Uint64())))
		}
		conn, err := b.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		rows, err := conn.Query(ctx, guard.Const(`SELECT tag, memory_usage_bytes, temporary_storage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0`))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var tag string
			var used, tmp int64
			if err := rows.Scan(&tag, &used, &tmp); err != nil {
				return err
			}
			fmt.Printf("duckdb_memory %s %d bytes\n", tag, used)
		}
		var limit, threads string
		if err := conn.QueryRow(ctx, guard.Const(`SELECT current_setting('memory_limit'), current_setting('threads')::VARCHAR`)).Scan(&limit, &threads); err != nil {
			return err
		}
		fmt.Printf("memory_limit %s, threads %s\n", limit, threads)
		if os.Getenv("PROBE_MAPS") != "" {
			out, _ := exec.Command("sh", "-c", fmt.Sprintf(`awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$1" "$6} /^Anonymous:/{if($2>400) print $2, name}' /proc/%d/smaps`, os.Getpid())).Output()
			fmt.Printf("%s", out)
		}
		fmt.Println()
		return rows.Err()
	}
	if _, err := engine.Query(ctx, schema.Stores, "SELECT 1"); err != nil {
		return err
	}
	if err := show("opened, one query"); err != nil {
		return err
	}
	ds := []*schema.Dataset{schema.Stores, schema.Events, schema.Products}
	for i := range *calls {
		q := queries[i%len(queries)]
		if _, err := engine.Query(ctx, ds[i%len(ds)], fmt.Sprintf(q.sql, i)); err != nil {
			return err
		}
	}
	if err := show(fmt.Sprintf("after %d calls", *calls)); err != nil {
		return err
	}
	if *wait > 0 {
		time.Sleep(*wait)
		if err := show(fmt.Sprintf("after %s idle", *wait)); err != nil {
			return err
		}
	}
	debug.FreeOSMemory()
	if err := show("after debug.FreeOSMemory"); err != nil {
		return err
	}
	mallocTrim()
	return show("after malloc_trim")
}
