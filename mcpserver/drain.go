package mcpserver

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Signals returns two contexts: drain ends at the first SIGINT or SIGTERM (finish what is in flight,
// take nothing new), now at the second (stop at once), as systemd and Kubernetes expect. stop
// releases the signals.
func Signals(parent context.Context) (drain, now context.Context, stop func()) {
	drain, cancelDrain := context.WithCancel(parent)
	now, cancelNow := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancelDrain()
		case <-done:
			return
		}
		select {
		case <-sigs:
			cancelNow()
		case <-done:
		}
	}()
	return drain, now, func() {
		signal.Stop(sigs)
		close(done)
		cancelDrain()
		cancelNow()
	}
}
