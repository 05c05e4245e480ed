package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/azabudai/ctool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServeHTTPStopsWhenAsked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var log bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, srv, "127.0.0.1:0", time.Second, &log, "b1", nil) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP = %v, want nil after the context ended", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a speed check
		t.Fatal("ServeHTTP did not return after the context ended")
	}
}

func TestServeHTTPAddressTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	err = ServeHTTP(context.Background(), srv, ln.Addr().String(), time.Second, &bytes.Buffer{}, "b1", nil)
	var ce *ctool.Error
	if !errors.As(err, &ce) || ce.Kind != ctool.KindUsage || !strings.HasPrefix(ce.Message, "--http "+ln.Addr().String()+": ") {
		t.Errorf("ServeHTTP on a taken address = %v, want a usage error naming --http", err)
	}
}
