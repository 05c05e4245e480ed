package console

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr and serves s until ctx ends, then lets requests in flight finish for up to
// drain. ready is told the address it listens on (the port chosen, for :0) once it does.
func Serve(ctx context.Context, addr string, s *Server, drain time.Duration, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// No write timeout: an export of a million rows streams for as long as the client reads it.
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready("http://" + ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
