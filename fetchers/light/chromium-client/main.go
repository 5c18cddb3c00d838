// chromium-client: the light tier's HTTP client, a local process that fetches with Chromium's TLS and HTTP/2
// fingerprint (profile.go). The light engine (../chromium-client.ts) starts it, sends it one exchange per request
// and keeps redirects, retries and limits itself. It listens on a local socket only (see listen), prints its port on
// the first line of stdout (0 on a Unix socket) and exits when its stdin closes (the engine's process ended). Every
// request must carry the token the engine put in CLIENT_TOKEN: the socket is open to every local process, and an
// exchange without a proxy connects directly, so an unauthenticated one would be a way around the egress gateway.
package main

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
)

// Refuses a request whose bearer token is not the engine's.
func authorized(token string, next http.Handler) http.Handler {
	expected := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), expected) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func main() {
	token := os.Getenv("CLIENT_TOKEN")
	if len(token) < 32 {
		fmt.Fprintln(os.Stderr, "CLIENT_TOKEN must hold the engine's token (at least 32 characters)")
		os.Exit(1)
	}
	listener, err := listen(os.Getenv("CLIENT_SOCKET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = listener.Close() // removes a Unix socket's file
		os.Exit(0)
	}()
	clients := newClientPool()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /exchange", clients.exchange)
	mux.HandleFunc("POST /close", clients.close)
	if tcp, ok := listener.Addr().(*net.TCPAddr); ok {
		fmt.Println(tcp.Port)
	} else {
		fmt.Println(0)
	}
	// Closing the listener at the end of stdin (the engine's stop) is the normal way out, not an error.
	if err := http.Serve(listener, authorized(token, mux)); err != nil && !errors.Is(err, net.ErrClosed) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Listens on the Unix socket CLIENT_SOCKET names when set, else on a loopback TCP port. A Unix socket costs the
// engine far less per exchange than loopback TCP, whose every write runs the TCP stack for both ends.
func listen(socket string) (net.Listener, error) {
	if socket != "" {
		return net.Listen("unix", socket)
	}
	return net.Listen("tcp", "127.0.0.1:0")
}
