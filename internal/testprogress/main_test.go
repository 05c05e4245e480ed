package main

import (
	"strings"
	"testing"
	"time"
)

func TestPrinter(t *testing.T) {
	clock := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var out strings.Builder
	p := newPrinter(&out, now)
	const cmd, guard = "github.com/azabudai/ctool/cmd/ctool", "github.com/azabudai/ctool/internal/guard"
	p.read(strings.NewReader(strings.Join([]string{
		`{"Action":"start","Package":"` + cmd + `"}`,
		`{"Action":"start","Package":"` + guard + `"}`,
		`{"Action":"run","Package":"` + cmd + `","Test":"TestScripts"}`,
		`{"Action":"output","Package":"` + cmd + `","Test":"TestScripts","Output":"=== RUN   TestScripts\n"}`,
		`{"Action":"run","Package":"` + cmd + `","Test":"TestScripts/query_zero"}`,
		`{"Action":"pass","Package":"` + cmd + `","Test":"TestScripts/query_zero","Elapsed":1.2}`,
		`{"Action":"run","Package":"` + guard + `","Test":"TestGuard"}`,
		`{"Action":"output","Package":"` + guard + `","Test":"TestGuard","Output":"    guard_test.go:12: refused SELECT 1\n"}`,
		`{"Action":"output","Package":"` + guard + `","Test":"TestGuard","Output":"--- FAIL: TestGuard (0.10s)\n"}`,
		`{"Action":"fail","Package":"` + guard + `","Test":"TestGuard","Elapsed":0.1}`,
		`{"Action":"output","Package":"` + guard + `","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"` + guard + `","Output":"FAIL\tgithub.com/azabudai/ctool/guard\t0.2s\n"}`,
		`{"Action":"fail","Package":"` + guard + `","Elapsed":0.2}`,
		`no Go files in /tmp`,
	}, "\n")))
	clock = clock.Add(25 * time.Second)
	p.tick()
	p.tick() // just printed: nothing
	p.read(strings.NewReader(strings.Join([]string{
		`{"Action":"output","Package":"` + cmd + `","Test":"TestScripts/query_crash","Output":"    script_test.go:40: needs ulimit -v\n"}`,
		`{"Action":"output","Package":"` + cmd + `","Test":"TestScripts/query_crash","Output":"--- SKIP: TestScripts/query_crash (0.00s)\n"}`,
		`{"Action":"skip","Package":"` + cmd + `","Test":"TestScripts/query_crash","Elapsed":0}`,
		`{"Action":"pass","Package":"` + cmd + `","Test":"TestScripts","Elapsed":62.4}`,
		`{"Action":"output","Package":"` + cmd + `","Output":"PASS\n"}`,
		`{"Action":"output","Package":"` + cmd + `","Output":"ok  \t` + cmd + `\t62.5s\n"}`,
		`{"Action":"pass","Package":"` + cmd + `","Elapsed":62.5}`,
	}, "\n")))
	if p.finish() {
		t.Error("finish reported success after a failed test")
	}
	want := "    guard_test.go:12: refused SELECT 1\n" +
		"--- FAIL: TestGuard (0.10s)\n" +
		"FAIL\n" +
		"FAIL\tgithub.com/azabudai/ctool/guard\t0.2s\n" +
		"no Go files in /tmp\n" +
		"    cmd/ctool: running 25s, on TestScripts (1 subtests done)\n" +
		"    cmd/ctool TestScripts: pass (62.4s)\n" +
		"ok  \t" + cmd + "\t62.5s\n" +
		"tests: 2 passed, 1 failed, 1 skipped\n" +
		"    skipped: cmd/ctool TestScripts/query_crash: needs ulimit -v\n"
	if got := out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPrinterPasses(t *testing.T) {
	var out strings.Builder
	p := newPrinter(&out, time.Now)
	p.read(strings.NewReader(`{"Action":"output","Package":"x","Output":"?   \tx\t[no test files]\n"}` + "\n" +
		`{"Action":"skip","Package":"x"}`))
	if !p.finish() {
		t.Error("finish reported a failure")
	}
	if want := "?   \tx\t[no test files]\ntests: 0 passed, 0 failed\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
