package loopback

import "testing"

func TestIs(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8780": true, "localhost:80": true, "LOCALHOST": true, "[::1]:8765": true, "::1": true,
		"127.8.9.10": true, "0.0.0.0:8780": false, ":8780": false, "10.0.0.1": false, "example.com": false,
		"localhost.example.com": false, "[::]:80": false, "": false,
	} {
		if got := Is(addr); got != want {
			t.Errorf("Is(%q) = %v, want %v", addr, got, want)
		}
	}
}
