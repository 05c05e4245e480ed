package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/azabudai/ctool/internal/textout"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"golang.org/x/term"
)

// defaultPager is what git and gh run: quit at once if the text fits (-F), keep colours (-R), leave the
// text on the screen (-X).
const defaultPager = "less -FRX"

// terminal is the size of the terminal a command's stdout is, in display columns and lines; 0 when the
// terminal does not say.
type terminal struct{ width, height int }

// fileTerminal returns the terminal w is, if it is one.
func fileTerminal(w io.Writer) (terminal, bool) {
	if !textout.IsTerminal(w) {
		return terminal{}, false
	}
	width, height, err := term.GetSize(int(w.(*os.File).Fd()))
	if err != nil {
		return terminal{}, true
	}
	return terminal{width: width, height: height}, true
}

// stdoutTerminal is the terminal the command writes to, if it writes to one.
func (e *env) stdoutTerminal() (terminal, bool) {
	if e.terminal == nil {
		return terminal{}, false
	}
	return e.terminal()
}

// lookup is os.LookupEnv through the command's environment: an empty variable is still set.
func (e *env) lookup(name string) (string, bool) {
	if e.lookupEnv != nil {
		return e.lookupEnv(name)
	}
	v := e.getenv(name)
	return v, v != ""
}

// pagerCommand is the shell command that pages a terminal's output, "" for none: CTOOL_PAGER when it is
// set (set and empty: no pager), else PAGER when not empty, else less -FRX. "cat" is no pager.
func pagerCommand(lookup func(string) (string, bool)) string {
	pager, ok := lookup("CTOOL_PAGER")
	if !ok {
		pager, _ = lookup("PAGER")
		if strings.TrimSpace(pager) == "" {
			pager = defaultPager
		}
	}
	pager = strings.TrimSpace(pager)
	if pager == "cat" {
		return ""
	}
	return pager
}

// displayLines is how many terminal lines text takes on a terminal width columns wide, counting the
// lines it wraps.
func displayLines(text string, width int) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		w := twwidth.Width(line)
		if width <= 0 || w <= width {
			n++
		} else {
			n += (w + width - 1) / width
		}
	}
	return n
}

// shouldPage reports whether text goes through a pager on terminal t: only when it is taller than the
// screen (the prompt takes the last line), and only when the terminal says how tall it is.
func shouldPage(text string, t terminal) bool {
	return t.height > 0 && displayLines(text, t.width) >= t.height
}

// page writes text to the terminal t, through the pager when it is taller than the screen. The pager's
// exit is the reader's business: q pressed early is no failure.
func (e *env) page(t terminal, text []byte) error {
	pager := pagerCommand(e.lookup)
	if pager == "" || !shouldPage(string(text), t) {
		_, err := e.stdout.Write(text)
		return err
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Stdin = bytes.NewReader(text)
	cmd.Stdout, cmd.Stderr = e.stdout, e.stderr
	cmd.Env = os.Environ()
	if _, ok := e.lookup("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=FRX") // as git does, for PAGER=less
	}
	// Ctrl-C in the pager is the pager's: ctool waits for it rather than leave it behind.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	err := cmd.Run()
	var exit *exec.ExitError
	if err == nil || (errors.As(err, &exit) && exit.ExitCode() != 126 && exit.ExitCode() != 127) {
		return nil
	}
	// The pager could not run (sh says 126 or 127): the text goes straight to the terminal.
	fmt.Fprintf(e.stderr, "ctool: the pager %q did not run (%v); set CTOOL_PAGER= to page nothing\n", pager, err)
	_, err = e.stdout.Write(text)
	return err
}
