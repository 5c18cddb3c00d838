package main

import (
	"encoding/hex"
	"math/rand/v2"

	http2 "github.com/bogdanfinn/fhttp/http2"
	"github.com/bogdanfinn/tls-client/profiles"
	tls "github.com/bogdanfinn/utls"
)

// What the light tier presents to targets: the TLS ClientHello and HTTP/2 connection preface of the Chromium the
// standard tier runs (Debian's chromium, CHROMIUM_MAJOR in ../chromium-profile.ts), as test/api/light-fingerprint
// measures them against /usr/bin/chromium. Request headers are the caller's (chromium-profile.ts).

// Chromium's trust_anchors extension (0xca34) as it sends it: the Chrome Root Store's trust anchor IDs, the same
// on every connection of one version. Copied from a ClientHello of /usr/bin/chromium; the fingerprint test compares it.
const trustAnchorsHex = "00b80582df1302010582df1302060582df13020d0582df13020e0582df13020f0582df1302120582df1302130582df13021408839a648c9b2d010708839a648c9b2d010808839a648c9b2d010908839a648c9b2d010a08839a648c9b2d010b08839a648c9b2d010c08839a648c9b2d010d08839a648c9b2d011208839a648c9b2d011304d679090104d679090404d679090504d679090604d679090704d679090804d679090a04d679090b04d679090c04d679090d04d679090f"

const extensionTrustAnchors = 0xca34

var trustAnchors = mustHex(trustAnchorsHex)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// ML-DSA-44, -65 and -87 (draft-ietf-tls-mldsa), which Chromium offers first. Servers with today's certificates
// never choose them; a server that did would fail the handshake, as this client cannot verify ML-DSA signatures.
const (
	mldsa44 tls.SignatureScheme = 0x0904
	mldsa65 tls.SignatureScheme = 0x0905
	mldsa87 tls.SignatureScheme = 0x0906
)

// A random GREASE code point (RFC 8701: 0x0a0a, 0x1a1a … 0xfafa). BoringSSL draws the signature algorithm's apart
// from the cipher, group, extension and version ones, which utls fills in itself.
func greaseValue() uint16 {
	n := uint16(rand.IntN(16))
	return n<<12 | n<<4 | 0x0a0a
}

// chromiumHello is called once per connection: Chromium permutes its extensions (all but the two GREASE ones) and
// draws its GREASE values and ECH GREASE length anew on every connection.
func chromiumHello() (tls.ClientHelloSpec, error) {
	middle := []tls.TLSExtension{
		&tls.SNIExtension{},
		&tls.ExtendedMasterSecretExtension{},
		&tls.RenegotiationInfoExtension{Renegotiation: tls.RenegotiateOnceAsClient},
		&tls.SupportedCurvesExtension{Curves: []tls.CurveID{tls.GREASE_PLACEHOLDER, tls.X25519MLKEM768, tls.X25519, tls.CurveP256, tls.CurveP384}},
		&tls.SupportedPointsExtension{SupportedPoints: []byte{tls.PointFormatUncompressed}},
		&tls.SessionTicketExtension{},
		&tls.ALPNExtension{AlpnProtocols: []string{"h2", "http/1.1"}},
		&tls.StatusRequestExtension{},
		&tls.SignatureAlgorithmsExtension{SupportedSignatureAlgorithms: []tls.SignatureScheme{
			tls.SignatureScheme(greaseValue()), mldsa44, mldsa65, mldsa87,
			tls.ECDSAWithP256AndSHA256, tls.PSSWithSHA256, tls.PKCS1WithSHA256,
			tls.ECDSAWithP384AndSHA384, tls.PSSWithSHA384, tls.PKCS1WithSHA384,
			tls.PSSWithSHA512, tls.PKCS1WithSHA512,
		}},
		&tls.SCTExtension{},
		&tls.KeyShareExtension{KeyShares: []tls.KeyShare{
			{Group: tls.CurveID(tls.GREASE_PLACEHOLDER), Data: []byte{0}},
			{Group: tls.X25519MLKEM768},
			{Group: tls.X25519},
		}},
		&tls.PSKKeyExchangeModesExtension{Modes: []uint8{tls.PskModeDHE}},
		&tls.SupportedVersionsExtension{Versions: []uint16{tls.GREASE_PLACEHOLDER, tls.VersionTLS13, tls.VersionTLS12}},
		&tls.UtlsCompressCertExtension{Algorithms: []tls.CertCompressionAlgo{tls.CertCompressionBrotli}},
		&tls.ApplicationSettingsExtensionNew{SupportedProtocols: []string{"h2"}},
		&tls.GenericExtension{Id: extensionTrustAnchors, Data: trustAnchors},
		tls.BoringGREASEECH(),
	}
	rand.Shuffle(len(middle), func(i, j int) { middle[i], middle[j] = middle[j], middle[i] })
	extensions := append([]tls.TLSExtension{&tls.UtlsGREASEExtension{}}, middle...)
	extensions = append(extensions, &tls.UtlsGREASEExtension{})
	return tls.ClientHelloSpec{
		CipherSuites: []uint16{
			tls.GREASE_PLACEHOLDER,
			tls.TLS_AES_128_GCM_SHA256, tls.TLS_AES_256_GCM_SHA384, tls.TLS_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
			tls.TLS_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA,
		},
		CompressionMethods: []byte{tls.CompressionNone},
		Extensions:         extensions,
	}, nil
}

// chromium is the whole profile: the ClientHello above and Chromium's HTTP/2 SETTINGS (in its order), connection
// window, pseudo-header order and HEADERS priority (exclusive on the root, weight 256).
var chromium = profiles.NewClientProfile(
	tls.ClientHelloID{Client: "Chromium", Version: "156", SpecFactory: chromiumHello},
	map[http2.SettingID]uint32{
		http2.SettingHeaderTableSize:   65536,
		http2.SettingEnablePush:        0,
		http2.SettingInitialWindowSize: 6291456,
		http2.SettingMaxHeaderListSize: 262144,
	},
	[]http2.SettingID{http2.SettingHeaderTableSize, http2.SettingEnablePush, http2.SettingInitialWindowSize, http2.SettingMaxHeaderListSize},
	[]string{":method", ":authority", ":scheme", ":path"},
	15663105,
	nil,
	&http2.PriorityParam{StreamDep: 0, Exclusive: true, Weight: 255},
)
