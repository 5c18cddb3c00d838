// chromium-client: the light tier's HTTP client, a local process that fetches with Chromium's TLS and HTTP/2
// fingerprint (profile.go). The light engine (../chromium-client.ts) starts it, sends it one exchange per request
// and keeps redirects, retries and limits itself. It listens on loopback only, prints its port on the first line of
// stdout and exits when its stdin closes (the engine's process ended).
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
)

func main() {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	clients := newClientPool()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /exchange", clients.exchange)
	mux.HandleFunc("POST /close", clients.close)
	fmt.Println(listener.Addr().(*net.TCPAddr).Port)
	if err := http.Serve(listener, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
