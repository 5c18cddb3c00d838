module scrapeworks/chromium-client

go 1.25

require (
	github.com/andybalholm/brotli v1.2.8
	github.com/bogdanfinn/fhttp v0.6.2
	github.com/bogdanfinn/tls-client v1.11.2
	github.com/bogdanfinn/utls v1.7.4-barnius
	github.com/klauspost/compress v1.20.3
)

require (
	github.com/bogdanfinn/quic-go-utls v1.0.4-utls // indirect
	github.com/cloudflare/circl v1.5.0 // indirect
	github.com/quic-go/qpack v0.5.1 // indirect
	github.com/tam7t/hpkp v0.0.0-20160821193359-2b70b4024ed5 // indirect
	go.uber.org/mock v0.5.0 // indirect
	golang.org/x/crypto v0.36.0 // indirect
	golang.org/x/mod v0.18.0 // indirect
	golang.org/x/net v0.38.0 // indirect
	golang.org/x/sync v0.12.0 // indirect
	golang.org/x/sys v0.31.0 // indirect
	golang.org/x/text v0.23.0 // indirect
	golang.org/x/tools v0.22.0 // indirect
)
