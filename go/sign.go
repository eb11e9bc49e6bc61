package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"crypto"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// PrivateKey is a signing key held by the module ("ecdsa-p256", "ecdsa-p384", "ecdsa-p521",
// "ed25519", "rsa-pss-sha256", "rsa-pkcs1-sha256", …, "sm2-sign", "ml-dsa-44/65/87"). It
// implements [crypto.Signer] and [crypto.MessageSigner] and is safe for concurrent use.
//
// The module hashes the message itself, inside its boundary, with the digest the algorithm
// names (ecdsa-p256: SHA-256). So SignMessage is the way to sign: crypto/tls and crypto/x509
// call it (through [crypto.SignMessage]) for TLS 1.2 and 1.3 and for certificates. Sign
// signs what it is given only for the schemes that sign messages (Ed25519, SM2, ML-DSA, with
// opts.HashFunc() == 0); for a precomputed digest (ECDSA, RSA) the C ABI has no entry point,
// and Sign returns an error wrapping [errors.ErrUnsupported].
//
// The rand arguments are ignored: the module draws from its own DRBG.
type PrivateKey struct {
	h      handle
	module *Module
	alg    string
	hash   crypto.Hash // the digest the scheme signs with; 0 for message signers
	pss    bool
	pubDER []byte
	pub    crypto.PublicKey
	sigCap int // the signature buffer: the row's longest signature, or REGULA_MAX_SIGNATURE_LEN for RSA
}

var (
	_ crypto.Signer        = (*PrivateKey)(nil)
	_ crypto.MessageSigner = (*PrivateKey)(nil)
)

// PublicKey is a public key the standard library has no type for (SM2, ML-DSA): its
// SubjectPublicKeyInfo, as DER.
type PublicKey struct {
	Algorithm string
	DER       []byte
}

// oidRSASSAPSS is id-RSASSA-PSS (RFC 8017 appendix C), the OID of the registry's RSA-PSS rows.
const oidRSASSAPSS = "1.2.840.113549.1.1.10"

// GenerateKey generates a signing key inside the module and runs its pairwise consistency
// test. RSA keys are 3072 bits (see GenerateRSAKey).
func (m *Module) GenerateKey(alg string) (*PrivateKey, error) {
	return m.GenerateRSAKey(alg, 0)
}

// GenerateRSAKey is GenerateKey with an RSA modulus size (0: 3072); bits must be 0 for
// every other algorithm.
func (m *Module) GenerateRSAKey(alg string, bits int) (*PrivateKey, error) {
	return m.newSigningKey(alg, "generate", func(mp *C.regula_module, calg *C.char, out **C.regula_signing_key) C.int {
		return C.regula_signing_key_generate(mp, calg, C.uint32_t(bits), out, nil)
	})
}

// ImportKey imports a PKCS#8 private key, PEM ("-----BEGIN PRIVATE KEY-----") or DER, as a
// key for alg. The module keeps its own copy (wiped by Close).
func (m *Module) ImportKey(alg string, pkcs8 []byte) (*PrivateKey, error) {
	return m.newSigningKey(alg, "import", func(mp *C.regula_module, calg *C.char, out **C.regula_signing_key) C.int {
		return C.regula_signing_key_import(mp, calg, ptr(pkcs8), C.size_t(len(pkcs8)), out, nil)
	})
}

func (m *Module) newSigningKey(alg, how string, call func(*C.regula_module, *C.char, **C.regula_signing_key) C.int) (*PrivateKey, error) {
	op := "signing key " + how + " " + alg
	// The scheme's digest, PSS or not, and the signature size come from the registry row.
	info, err := AlgorithmInfo(alg)
	if err != nil || info.Family != "signature" {
		return nil, invalid(op, fmt.Sprintf("unknown signature algorithm %q", alg))
	}
	alg = info.Name
	mp, err := m.get(op)
	if err != nil {
		return nil, err
	}
	calg, done := cname(alg)
	var kp *C.regula_signing_key
	var der [4096]byte
	var n C.size_t
	runtime.LockOSThread()
	rc := call(mp, calg, &kp)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	if rc == C.REGULA_OK {
		rc = C.regula_signing_key_public_der(kp, (*C.uint8_t)(&der[0]), C.size_t(len(der)), &n)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		C.regula_signing_key_free(kp)
		return nil, err
	}
	// A message signer (Ed25519, ML-DSA, SM2 over SM3, which crypto has no identifier for) has
	// no crypto.Hash.
	k := &PrivateKey{module: m, alg: alg, hash: cryptoHashFor(info.Hash), pss: info.OID == oidRSASSAPSS,
		pubDER: append([]byte(nil), der[:n]...), sigCap: C.REGULA_MAX_SIGNATURE_LEN}
	// The row's longest signature where it has one (exact for ML-DSA, FIPS 204 Table 2); RSA's
	// depends on the key.
	if info.SignatureMaxLen > 0 {
		k.sigCap = info.SignatureMaxLen
	}
	k.h.p = unsafe.Pointer(kp)
	k.h.cleanup = runtime.AddCleanup(k, func(p *C.regula_signing_key) { C.regula_signing_key_free(p) }, kp)
	// The standard library's key types where it has them (so crypto/tls and crypto/x509
	// accept the key); the DER otherwise.
	if pub, err := x509.ParsePKIXPublicKey(k.pubDER); err == nil {
		k.pub = pub
	} else {
		k.pub = &PublicKey{Algorithm: alg, DER: k.pubDER}
	}
	return k, nil
}

// tlsSchemes: the TLS signature scheme each algorithm is (RFC 8446 §4.2.3).
var tlsSchemes = map[string]tls.SignatureScheme{
	"ecdsa-p256": tls.ECDSAWithP256AndSHA256, "ecdsa-p384": tls.ECDSAWithP384AndSHA384, "ecdsa-p521": tls.ECDSAWithP521AndSHA512,
	"ed25519":        tls.Ed25519,
	"rsa-pss-sha256": tls.PSSWithSHA256, "rsa-pss-sha384": tls.PSSWithSHA384, "rsa-pss-sha512": tls.PSSWithSHA512,
	"rsa-pkcs1-sha256": tls.PKCS1WithSHA256, "rsa-pkcs1-sha384": tls.PKCS1WithSHA384, "rsa-pkcs1-sha512": tls.PKCS1WithSHA512,
}

// TLSSignatureSchemes is the TLS signature scheme this key makes, for
// tls.Certificate.SupportedSignatureAlgorithms: a module key is bound to one digest (and for
// RSA to PSS or PKCS #1 v1.5), so crypto/tls must not pick another. Nil for SM2 and ML-DSA.
func (k *PrivateKey) TLSSignatureSchemes() []tls.SignatureScheme {
	if s, ok := tlsSchemes[k.alg]; ok {
		return []tls.SignatureScheme{s}
	}
	return nil
}

// Close frees the key handle, which wipes the key. Close is idempotent.
func (k *PrivateKey) Close() error {
	k.h.close(func(p unsafe.Pointer) { C.regula_signing_key_free((*C.regula_signing_key)(p)) })
	return nil
}

// Algorithm is the key's signature algorithm, e.g. "ecdsa-p256".
func (k *PrivateKey) Algorithm() string { return k.alg }

// Public returns the public key: *ecdsa.PublicKey, ed25519.PublicKey, *rsa.PublicKey, or
// *PublicKey for SM2 and ML-DSA.
func (k *PrivateKey) Public() crypto.PublicKey { return k.pub }

// PublicKeyDER is the public key as DER SubjectPublicKeyInfo.
func (k *PrivateKey) PublicKeyDER() []byte { return append([]byte(nil), k.pubDER...) }

// HashFunc is the digest the key's scheme signs with (0 for Ed25519, SM2, ML-DSA).
func (k *PrivateKey) HashFunc() crypto.Hash { return k.hash }

// Sign implements crypto.Signer; see the type's documentation.
func (k *PrivateKey) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if k.hash != 0 {
		return nil, fmt.Errorf("regula: %s signs messages, not precomputed digests (the module hashes inside its boundary); use crypto.SignMessage: %w", k.alg, errors.ErrUnsupported)
	}
	return k.SignMessage(nil, digest, opts)
}

// SignMessage implements crypto.MessageSigner: the module hashes msg with the scheme's digest
// and signs it. opts.HashFunc() must be that digest (0 for Ed25519, SM2, ML-DSA); for RSA-PSS
// opts must be *rsa.PSSOptions whose salt length is the digest length or
// rsa.PSSSaltLengthEqualsHash (TLS's choice).
func (k *PrivateKey) SignMessage(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	sig, _, err := k.SignMessageIndicated(msg, opts)
	return sig, err
}

// SignMessageIndicated is SignMessage returning the service indicator.
func (k *PrivateKey) SignMessageIndicated(msg []byte, opts crypto.SignerOpts) ([]byte, Indicator, error) {
	op := "sign " + k.alg
	if err := k.checkOpts(opts); err != nil {
		return nil, Indicator{}, &Error{Op: op, Code: C.REGULA_ERR_INVALID_INPUT, Message: err.Error()}
	}
	kp, err := k.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	sig := make([]byte, k.sigCap)
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_sign(kp, ptr(msg), C.size_t(len(msg)), ptr(sig), C.size_t(len(sig)), &n, &ind)
	if rc == C.REGULA_ERR_BUFFER_TOO_SMALL { // n is the size needed
		sig = make([]byte, n)
		rc = C.regula_sign(kp, ptr(msg), C.size_t(len(msg)), ptr(sig), C.size_t(len(sig)), &n, &ind)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return sig[:n:n], indicator(&ind), nil
}

// SignWithID signs msg as the SM2 signer id (GB/T 32918.2 Z_A); SM2 keys only. Sign uses
// the default ID "1234567812345678".
func (k *PrivateKey) SignWithID(id, msg []byte) ([]byte, Indicator, error) {
	op := "sign " + k.alg
	kp, err := k.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	sig := make([]byte, k.sigCap)
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_sign_with_id(kp, ptr(id), C.size_t(len(id)), ptr(msg), C.size_t(len(msg)), ptr(sig), C.size_t(len(sig)), &n, &ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return sig[:n:n], indicator(&ind), nil
}

func (k *PrivateKey) checkOpts(opts crypto.SignerOpts) error {
	var h crypto.Hash
	if opts != nil {
		h = opts.HashFunc()
	}
	if h != k.hash {
		return fmt.Errorf("%s signs with %v, not %v", k.alg, k.hash, h)
	}
	// Ed25519ctx (RFC 8032 §5.1) is not offered by the module; never drop the context silently.
	if eo, ok := opts.(*ed25519.Options); ok && eo.Context != "" {
		return fmt.Errorf("%s: Ed25519 with a context is not offered", k.alg)
	}
	return checkPSS(k.pss, opts)
}

// Verify checks sig over msg with a public key (SubjectPublicKeyInfo as PEM or DER; ECDSA,
// Ed25519 and SM2 also take the raw key). A bad signature is an error wrapping
// ErrAuthentication.
func (m *Module) Verify(alg string, publicKey, msg, sig []byte) (Indicator, error) {
	op := "verify " + alg
	mp, err := m.get(op)
	if err != nil {
		return Indicator{}, err
	}
	calg, done := cname(alg)
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_verify(mp, calg, ptr(publicKey), C.size_t(len(publicKey)), ptr(msg), C.size_t(len(msg)), ptr(sig), C.size_t(len(sig)), &ind)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return Indicator{}, err
	}
	return indicator(&ind), nil
}

// handle holds the C handle for one call (release with k.h.mu.RUnlock), or fails after Close.
func (k *PrivateKey) handle(op string) (*C.regula_signing_key, error) {
	p, err := k.h.acquire(op)
	return (*C.regula_signing_key)(p), err
}
