package main

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"sync"

	tls_client "github.com/bogdanfinn/tls-client"
)

// Each client is one transport of the engine's pool (one organization's): its connections and TLS sessions are
// never used for another client. The engine closes a client when it drops the transport.
type clientPool struct {
	mu      sync.Mutex
	clients map[string]*client
}

// One transport: HTTPS through tls-client (Chromium's TLS and HTTP/2), plain HTTP through http1.go.
type client struct {
	https tls_client.HttpClient
	http  *http1Pool
}

func newClientPool() *clientPool {
	return &clientPool{clients: map[string]*client{}}
}

// The longest a request may take; each exchange's own deadline (the job's remaining timeout) is shorter.
const ceilingSeconds = 3600

func (p *clientPool) get(id string, proxy string) (*client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if client, ok := p.clients[id]; ok {
		return client, nil
	}
	roots, err := trustedRoots()
	if err != nil {
		return nil, err
	}
	options := []tls_client.HttpClientOption{
		tls_client.WithClientProfile(chromium),
		tls_client.WithTransportOptions(&tls_client.TransportOptions{
			RootCAs: roots,
			// Go keeps 2 idle connections per host by default, closing the rest after each burst of concurrent jobs.
			MaxIdleConnsPerHost: 16,
			// Bodies are decoded by exchange.go and ../response-body.ts; the transport must not add its own Accept-Encoding.
			DisableCompression: true,
		}),
		tls_client.WithNotFollowRedirects(),
		tls_client.WithDisableHttp3(),
		tls_client.WithTimeoutSeconds(ceilingSeconds),
	}
	if proxy != "" {
		options = append(options, tls_client.WithProxyUrl(proxy))
	}
	https, err := tls_client.NewHttpClient(tls_client.NewNoopLogger(), options...)
	if err != nil {
		return nil, err
	}
	made := &client{https: https, http: &http1Pool{proxy: proxy, idle: map[string][]*http1Conn{}}}
	p.clients[id] = made
	return made, nil
}

func (p *clientPool) close(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("client")
	p.mu.Lock()
	client, ok := p.clients[id]
	delete(p.clients, id)
	p.mu.Unlock()
	if ok {
		client.https.CloseIdleConnections()
		client.http.closeIdle()
	}
	w.WriteHeader(http.StatusNoContent)
}

// The system's CA bundle (Debian's ca-certificates: Mozilla's roots) and, when the engine passes one, the CAs of
// EXTRA_CA_FILE beside them. The engine starts this process without SSL_CERT_FILE, which would replace the bundle.
var trustedRoots = sync.OnceValues(func() (*x509.CertPool, error) {
	roots, err := x509.SystemCertPool()
	if err != nil {
		return nil, err
	}
	if extra := os.Getenv("EXTRA_CA_FILE"); extra != "" {
		pem, err := os.ReadFile(extra)
		if err != nil {
			return nil, err
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in EXTRA_CA_FILE %s", extra)
		}
	}
	return roots, nil
})
