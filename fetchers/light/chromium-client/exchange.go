package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	fhttp "github.com/bogdanfinn/fhttp"
	"github.com/klauspost/compress/zstd"
)

// One request as the engine asks for it: headers in the order to send them, the body base64-encoded.
type exchangeRequest struct {
	Client    string      `json:"client"`
	Proxy     string      `json:"proxy"`
	Method    string      `json:"method"`
	URL       string      `json:"url"`
	Headers   [][2]string `json:"headers"`
	Body      *string     `json:"body"`
	TimeoutMs int64       `json:"timeout_ms"`
}

// The target's answer line and headers, sent base64-encoded JSON in the X-Exchange header; the body follows as the
// response body, decoded when its Content-Encoding is exactly one of gzip, deflate, br or zstd (as a browser would).
type exchangeHead struct {
	Status     int         `json:"status"`
	StatusText string      `json:"status_text"`
	Headers    [][2]string `json:"headers"`
}

// Why no answer came: "tunnel" (the proxy refused the CONNECT, with its status), "timeout" or "network".
type exchangeFailure struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	TunnelStatus int    `json:"tunnel_status,omitempty"`
}

// Sent as a trailer when the body broke off: "decoding" (corrupt compressed data) or "read" (the connection).
const bodyErrorTrailer = "X-Body-Error"

var tunnelRefusal = regexp.MustCompile(`Proxy responded with non 200 code: (\d{3})`)

func fail(w http.ResponseWriter, failure exchangeFailure) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	_ = json.NewEncoder(w).Encode(failure)
}

func (p *clientPool) exchange(w http.ResponseWriter, r *http.Request) {
	var in exchangeRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	client, err := p.get(in.Client, in.Proxy)
	if err != nil {
		fail(w, exchangeFailure{Kind: "network", Message: err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(max(1, in.TimeoutMs))*time.Millisecond)
	defer cancel()
	var body []byte
	if in.Body != nil {
		if body, err = base64.StdEncoding.DecodeString(*in.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	res, err := client.send(ctx, in, body)
	if err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
			fail(w, exchangeFailure{Kind: "timeout", Message: "timed out"})
		case tunnelRefusal.MatchString(err.Error()):
			status, _ := strconv.Atoi(tunnelRefusal.FindStringSubmatch(err.Error())[1])
			fail(w, exchangeFailure{Kind: "tunnel", Message: err.Error(), TunnelStatus: status})
		default:
			fail(w, exchangeFailure{Kind: "network", Message: err.Error()})
		}
		return
	}
	defer res.body.Close()
	raw := &erringReader{reader: res.body}
	codings := http.Header(res.header).Values("Content-Encoding")
	reader, decoded := decoderFor(codings, raw)
	head := exchangeHead{Status: res.status, StatusText: strings.TrimSpace(strings.TrimPrefix(res.statusLine, strconv.Itoa(res.status)))}
	for name, values := range res.header {
		lower := strings.ToLower(name)
		if decoded && (lower == "content-encoding" || lower == "content-length") {
			continue
		}
		for _, value := range values {
			head.Headers = append(head.Headers, [2]string{lower, value})
		}
	}
	encoded, _ := json.Marshal(head)
	w.Header().Set("X-Exchange", base64.StdEncoding.EncodeToString(encoded))
	w.Header().Set("Trailer", bodyErrorTrailer)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	buffer := make([]byte, 64*1024)
	for {
		n, err := readDecoded(reader, buffer)
		if n > 0 {
			if _, werr := w.Write(buffer[:n]); werr != nil {
				return // the engine stopped reading (a body over its limit, an abandoned job)
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			kind := "read"
			if raw.err == nil || raw.err == io.EOF {
				kind = "decoding"
			}
			w.Header().Set(bodyErrorTrailer, kind)
			return
		}
	}
}

// A target's answer, from either transport.
type answer struct {
	status     int
	statusLine string
	header     map[string][]string
	body       io.ReadCloser
}

func (c *client) send(ctx context.Context, in exchangeRequest, body []byte) (*answer, error) {
	target, err := url.Parse(in.URL)
	if err != nil {
		return nil, err
	}
	if target.Scheme == "http" {
		res, err := c.http.roundTrip(ctx, in.Method, target, in.Headers, body)
		if err != nil {
			return nil, err
		}
		return &answer{status: res.StatusCode, statusLine: res.Status, header: res.Header, body: res.Body}, nil
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := fhttp.NewRequestWithContext(ctx, in.Method, in.URL, reader)
	if err != nil {
		return nil, err
	}
	order := make([]string, 0, len(in.Headers))
	for _, header := range in.Headers {
		req.Header[header[0]] = append(req.Header[header[0]], header[1])
		order = append(order, header[0])
	}
	req.Header[fhttp.HeaderOrderKey] = order
	res, err := c.https.Do(req)
	if err != nil {
		return nil, err
	}
	return &answer{status: res.StatusCode, statusLine: res.Status, header: res.Header, body: res.Body}, nil
}

func readDecoded(reader io.Reader, buffer []byte) (n int, err error) {
	defer func() {
		// A decoder may panic on hostile input; that is corrupt data, not a crash of the client.
		if recovered := recover(); recovered != nil {
			n, err = 0, errors.New("corrupt compressed data")
		}
	}()
	return reader.Read(buffer)
}

// erringReader remembers the error of the connection's body, to tell it from a decoder's.
type erringReader struct {
	reader io.Reader
	err    error
}

func (e *erringReader) Read(p []byte) (int, error) {
	n, err := e.reader.Read(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// decoderFor decodes one coding named exactly (lower case) as the only Content-Encoding, as the engine expects
// (../response-body.ts decodes lists and other spellings itself).
func decoderFor(codings []string, raw io.Reader) (io.Reader, bool) {
	if len(codings) != 1 {
		return raw, false
	}
	switch codings[0] {
	case "gzip":
		return &lazyReader{open: func() (io.Reader, error) { return gzip.NewReader(raw) }}, true
	case "deflate":
		return &lazyReader{open: func() (io.Reader, error) { return zlib.NewReader(raw) }}, true
	case "br":
		return brotli.NewReader(raw), true
	case "zstd":
		return &lazyReader{open: func() (io.Reader, error) {
			decoder, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1))
			if err != nil {
				return nil, err
			}
			return decoder.IOReadCloser(), nil
		}}, true
	}
	return raw, false
}

// lazyReader opens its decoder on the first read, so a header that is not valid data is a read error of the body.
type lazyReader struct {
	open   func() (io.Reader, error)
	reader io.Reader
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.reader == nil {
		reader, err := l.open()
		if err != nil {
			return 0, err
		}
		l.reader = reader
	}
	return l.reader.Read(p)
}
