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
		{Options{DB: "/data/ctool.duckdb"}, []string{"ctool", "query-worker", "--db=/data/ctool.duckdb", "--threads=0", "--warm=false"}},
		{Options{DB: "a b.duckdb", Threads: 1, Warm: true}, []string{"ctool", "query-worker", "--db=a b.duckdb", "--threads=1", "--warm=true"}},
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
		if cmd() == c {
			t.Error("Command's func returns the same *exec.Cmd twice")
		}
	}
}
