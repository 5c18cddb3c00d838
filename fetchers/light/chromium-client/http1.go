package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Plain-HTTP requests (HTTP/1.1) are written here rather than by fhttp, whose HTTP/1.1 transport decodes a response
// and drops its Content-Encoding whenever the request's Accept-Encoding names gzip (Chromium's always does), which
// would leave lists such as "gzip, br" undecodable. Headers go out in the caller's order and spelling after Host, as
// Chromium sends them; connections go through the proxy's CONNECT tunnel and are kept alive per client.
type http1Pool struct {
	proxy string
	mu    sync.Mutex
	idle  map[string][]*http1Conn
}

type http1Conn struct {
	conn   net.Conn
	reader *bufio.Reader
}

// At most this many idle connections are kept per host (Chromium opens up to 6 per host).
const maxIdlePerHost = 16

// A proxy's refusal of the CONNECT tunnel, with its status (the message exchange.go recognises).
type tunnelError struct{ status string }

func (e tunnelError) Error() string { return "Proxy responded with non 200 code: " + e.status }

func (p *http1Pool) dial(ctx context.Context, address string) (*http1Conn, error) {
	var dialer net.Dialer
	if p.proxy == "" {
		conn, err := dialer.DialContext(ctx, "tcp", address)
		if err != nil {
			return nil, err
		}
		return &http1Conn{conn: conn, reader: bufio.NewReader(conn)}, nil
	}
	proxy, err := url.Parse(p.proxy)
	if err != nil {
		return nil, err
	}
	conn, err := dialer.DialContext(ctx, "tcp", proxy.Host)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	reader := bufio.NewReader(conn)
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", address, address); err != nil {
		conn.Close()
		return nil, err
	}
	answer, err := http.ReadResponse(reader, &http.Request{Method: http.MethodConnect})
	if err != nil {
		conn.Close()
		return nil, err
	}
	if answer.StatusCode != http.StatusOK {
		conn.Close()
		return nil, tunnelError{status: answer.Status}
	}
	return &http1Conn{conn: conn, reader: reader}, nil
}

func (p *http1Pool) take(address string) *http1Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	conns := p.idle[address]
	if len(conns) == 0 {
		return nil
	}
	conn := conns[len(conns)-1]
	p.idle[address] = conns[:len(conns)-1]
	return conn
}

func (p *http1Pool) put(address string, conn *http1Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[address]) >= maxIdlePerHost {
		conn.conn.Close()
		return
	}
	p.idle[address] = append(p.idle[address], conn)
}

func (p *http1Pool) closeIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, conns := range p.idle {
		for _, conn := range conns {
			conn.conn.Close()
		}
	}
	p.idle = map[string][]*http1Conn{}
}

func (p *http1Pool) roundTrip(ctx context.Context, method string, target *url.URL, headers [][2]string, body []byte) (*http.Response, error) {
	address := target.Host
	if target.Port() == "" {
		address = net.JoinHostPort(target.Hostname(), "80")
	}
	var request bytes.Buffer
	fmt.Fprintf(&request, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, target.RequestURI(), target.Host)
	for _, header := range headers {
		fmt.Fprintf(&request, "%s: %s\r\n", header[0], header[1])
	}
	if body != nil {
		fmt.Fprintf(&request, "Content-Length: %d\r\n", len(body))
	}
	request.WriteString("\r\n")
	request.Write(body)
	// A kept-alive connection the server has closed meanwhile fails at once; the request is then sent again on a new
	// connection (as Chromium does), never on another kept one that may have gone stale the same way.
	for attempt := 0; ; attempt++ {
		var conn *http1Conn
		if attempt == 0 {
			conn = p.take(address)
		}
		reused := conn != nil
		if conn == nil {
			var err error
			if conn, err = p.dial(ctx, address); err != nil {
				return nil, err
			}
		}
		response, err := conn.send(ctx, request.Bytes(), method)
		if err != nil {
			conn.conn.Close()
			if reused && ctx.Err() == nil {
				continue
			}
			return nil, err
		}
		response.Body = &http1Body{body: response.Body, done: func(complete bool) {
			if complete && !response.Close {
				_ = conn.conn.SetDeadline(time.Time{})
				p.put(address, conn)
			} else {
				conn.conn.Close()
			}
		}}
		return response, nil
	}
}

func (c *http1Conn) send(ctx context.Context, request []byte, method string) (*http.Response, error) {
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.conn.SetDeadline(deadline)
	}
	stop := context.AfterFunc(ctx, func() { c.conn.Close() })
	if _, err := c.conn.Write(request); err != nil {
		stop()
		return nil, err
	}
	response, err := http.ReadResponse(c.reader, &http.Request{Method: method})
	if err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	response.Body = &stopOnClose{ReadCloser: response.Body, stop: stop}
	return response, nil
}

type stopOnClose struct {
	io.ReadCloser
	stop func() bool
}

func (s *stopOnClose) Close() error {
	s.stop()
	return s.ReadCloser.Close()
}

// http1Body gives its connection back once read to the end, and closes it when dropped before.
type http1Body struct {
	body     io.ReadCloser
	done     func(complete bool)
	finished bool
	complete bool
}

func (b *http1Body) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.complete = true
	}
	return n, err
}

func (b *http1Body) Close() error {
	err := b.body.Close()
	if !b.finished {
		b.finished = true
		b.done(b.complete)
	}
	return err
}
