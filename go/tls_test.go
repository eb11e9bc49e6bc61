package regula_test

import (
	"bufio"
	"crypto"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"regula.example/regula"
)

// A crypto/tls server whose certificate key lives in the module (ECDSA P-256 under
// fips-140-3), with a certificate made by crypto/x509 and signed by that key, answers Go's
// own TLS client on 127.0.0.1: the handshake's CertificateVerify is signed by the module, and
// the client checks the certificate chain and the signature.
func TestTLSServerWithModuleKey(t *testing.T) {
	m := load(t, "fips-140-3")
	// A scope of its own, to see the certificate's and the handshakes' signatures counted.
	scope, err := m.NewScope()
	if err != nil {
		t.Fatal(err)
	}
	defer scope.Close()
	key, err := scope.Module().GenerateKey("ecdsa-p256") // generated inside the module
	if err != nil {
		t.Fatal(err)
	}
	defer key.Close()
	signer := &countingSigner{PrivateKey: key}

	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "regula test server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	// Self-signed: crypto/x509 hashes nothing itself here, it calls crypto.SignMessage.
	der, err := x509.CreateCertificate(m.Random(), template, template, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.CheckSignatureFrom(cert); err != nil {
		t.Fatalf("crypto/x509 rejects the module's certificate signature: %v", err)
	}
	afterCert := scope.State()

	serverConfig := &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: signer, Leaf: cert}},
		MinVersion:   tls.VersionTLS12,
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", serverConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		for range 2 {
			conn, err := ln.Accept()
			if err != nil {
				served <- err
				return
			}
			// Echo one line back.
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err == nil {
				_, err = io.WriteString(conn, "echo: "+line)
			}
			conn.Close()
			if err != nil {
				served <- err
				return
			}
		}
		served <- nil
	}()

	roots := x509.NewCertPool()
	roots.AddCert(cert)
	for _, version := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{
			RootCAs:    roots,
			ServerName: "127.0.0.1",
			MinVersion: version,
			MaxVersion: version,
		})
		if err != nil {
			t.Fatalf("TLS %x handshake with the module's key: %v", version, err)
		}
		state := conn.ConnectionState()
		if state.Version != version || !state.PeerCertificates[0].Equal(cert) {
			t.Fatalf("connection state: version %x", state.Version)
		}
		if _, err := io.WriteString(conn, "hello over TLS\n"); err != nil {
			t.Fatal(err)
		}
		reply, err := io.ReadAll(conn)
		if err != nil || string(reply) != "echo: hello over TLS\n" {
			t.Fatalf("TLS %x reply %q, %v", version, reply, err)
		}
		conn.Close()
		t.Logf("TLS %x, suite %s: exchanged data; handshake signed by the module", version, tls.CipherSuiteName(state.CipherSuite))
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// The module signed three times: the certificate, TLS 1.3's CertificateVerify and TLS 1.2's
	// ServerKeyExchange.
	if n := signer.calls.Load(); n != 3 {
		t.Fatalf("the module signed %d times, want 3", n)
	}
	// The certificate and both handshakes signed through the scope, with approved services.
	if afterCert != regula.IndicatorApproved || scope.State() != regula.IndicatorApproved {
		t.Fatalf("scope indicator after certificate %v, after handshakes %v", afterCert, scope.State())
	}
	// The public key the server presented is the module key's.
	if !cert.PublicKey.(*ecdsa.PublicKey).Equal(key.Public().(crypto.PublicKey)) {
		t.Fatal("certificate key differs")
	}
}

// countingSigner counts the signatures crypto/x509 and crypto/tls ask of the module key.
type countingSigner struct {
	*regula.PrivateKey
	calls atomic.Int32
}

func (c *countingSigner) SignMessage(rand io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	c.calls.Add(1)
	return c.PrivateKey.SignMessage(rand, msg, opts)
}

// An RSA-PSS key held by the module serves TLS 1.3 and 1.2 when the certificate names the one
// scheme the key makes (PrivateKey.TLSSignatureSchemes).
func TestTLSServerWithModuleRSAKey(t *testing.T) {
	if testing.Short() {
		t.Skip("RSA key generation")
	}
	m := load(t, "fips-140-3")
	key, err := m.GenerateRSAKey("rsa-pss-sha256", 2048)
	if err != nil {
		t.Fatal(err)
	}
	defer key.Close()
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(2),
		Subject:               pkix.Name{CommonName: "regula rsa test server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		SignatureAlgorithm:    x509.SHA256WithRSAPSS,
	}
	der, err := x509.CreateCertificate(m.Random(), template, template, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{
		Certificate: [][]byte{der}, PrivateKey: key, SupportedSignatureAlgorithms: key.TLSSignatureSchemes(),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(conn, "hi\n")
			conn.Close()
		}
	}()
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	for _, version := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MinVersion: version, MaxVersion: version})
		if err != nil {
			t.Fatalf("TLS %x with the module's RSA-PSS key: %v", version, err)
		}
		reply, err := io.ReadAll(conn)
		if err != nil || string(reply) != "hi\n" {
			t.Fatalf("TLS %x reply %q, %v", version, reply, err)
		}
		conn.Close()
	}
}
