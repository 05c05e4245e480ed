package worker

import (
	"slices"
	"testing"
)

func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{DB: "/data/ctool.duckdb"}, []string{"ctool", "query-worker", "--db=/data/ctool.duckdb", "--threads=0"}},
		{Options{DB: "a b.duckdb", Threads: 1, WarmUp: true, LearnShapes: true, PurgeIdle: true, GCPercent: 400},
			[]string{"ctool", "query-worker", "--db=a b.duckdb", "--threads=1", "--warm-up", "--learn-shapes", "--purge-idle", "--gc-percent=400"}},
		{Options{DB: "x", LearnShapes: true, GCPercent: -1}, []string{"ctool", "query-worker", "--db=x", "--threads=0", "--learn-shapes", "--gc-percent=-1"}},
	} {
		cmd, err := Command(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		c := cmd()
		if !slices.Equal(c.Args, tc.want) {
			t.Errorf("args %q, want %q", c.Args, tc.want)
		}
		if c.Path == "" || c.Stdin != nil || c.Stdout != nil {
			t.Errorf("cmd %+v: want a path and the pool to set the streams", c)
		}
		if again := cmd(); again == c || &again.Args[0] == &c.Args[0] {
			t.Error("Command's func returns the same *exec.Cmd, or the same arguments, twice")
		}
	}
}
