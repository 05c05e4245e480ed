package benchkit

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHTTPSend(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string
		wantStatus  int
	}{
		{"json", 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, 0},
		{"event stream", 200, "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", `{"jsonrpc":"2.0","id":1,"result":{}}`, 0},
		{"event stream without an answer", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n", "", 0},
		{"refused", 401, "application/json", `{"error":"invalid_token"}`, "", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer T" || r.Header.Get("MCP-Protocol-Version") != "2025-11-25" {
					t.Errorf("headers: %v", r.Header)
				}
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c := HTTP{URL: srv.URL, Client: srv.Client(), Token: "T", Protocol: "2025-11-25"}
			got, err := c.Send(context.Background(), Encode(1, "ping", nil))
			var status *StatusError
			switch {
			case tc.wantStatus != 0:
				if !errors.As(err, &status) || status.Code != tc.wantStatus {
					t.Fatalf("err = %v, want HTTP %d", err, tc.wantStatus)
				}
			case tc.want == "":
				if err == nil {
					t.Fatalf("no error for %q", got)
				}
			case err != nil || string(got) != tc.want:
				t.Fatalf("Send = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestToolText(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{`{"content":[{"type":"text","text":"hi"}]}`, "hi", true},
		{`{"content":[{"type":"text","text":"no"}],"isError":true}`, "", false},
		{`{"content":[]}`, "", false},
		{`not json`, "", false},
	} {
		got, err := ToolText([]byte(tc.raw))
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ToolText(%s) = %q, %v", tc.raw, got, err)
		}
	}
}
