package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"crypto"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// CiphertextFormat is how an SM2 ciphertext is laid out.
type CiphertextFormat int

const (
	// CiphertextASN1 is the DER SM2Cipher of GM/T 0009-2012, what OpenSSL's
	// `pkeyutl -encrypt` writes. The default.
	CiphertextASN1 CiphertextFormat = C.REGULA_SM2_CIPHERTEXT_ASN1
	// CiphertextC1C3C2 is 04 ‖ x ‖ y ‖ C3 ‖ C2 (GB/T 32918.4-2016).
	CiphertextC1C3C2 CiphertextFormat = C.REGULA_SM2_CIPHERTEXT_C1C3C2
)

// DecrypterOpts selects the ciphertext layout for [DecryptionKey.Decrypt]; a
// [CiphertextFormat] may be passed as the opts directly too.
type DecrypterOpts struct {
	Format CiphertextFormat
}

// DecryptionKey is an SM2 decryption key held by the module ("sm2-encrypt", GB/T 32918.4,
// approved under the gm policy only). It implements [crypto.Decrypter] and is safe for
// concurrent use.
type DecryptionKey struct {
	h      handle
	alg    string
	pubDER []byte
}

var _ crypto.Decrypter = (*DecryptionKey)(nil)

// GenerateDecryptionKey generates a decryption key inside the module and runs its pairwise
// consistency test.
func (m *Module) GenerateDecryptionKey(alg string) (*DecryptionKey, error) {
	return m.newDecryptionKey(alg, "generate", func(mp *C.regula_module, calg *C.char, out **C.regula_decryption_key) C.int {
		return C.regula_decryption_key_generate(mp, calg, out, nil)
	})
}

// ImportDecryptionKey imports a PKCS#8 SM2 private key, PEM ("-----BEGIN PRIVATE KEY-----")
// or DER, as `openssl genpkey -algorithm SM2` writes it. The module keeps its own copy (wiped
// by Close).
func (m *Module) ImportDecryptionKey(alg string, pkcs8 []byte) (*DecryptionKey, error) {
	return m.newDecryptionKey(alg, "import", func(mp *C.regula_module, calg *C.char, out **C.regula_decryption_key) C.int {
		return C.regula_decryption_key_import(mp, calg, ptr(pkcs8), C.size_t(len(pkcs8)), out, nil)
	})
}

func (m *Module) newDecryptionKey(alg, how string, call func(*C.regula_module, *C.char, **C.regula_decryption_key) C.int) (*DecryptionKey, error) {
	op := "decryption key " + how + " " + alg
	mp, err := m.get(op)
	if err != nil {
		return nil, err
	}
	calg, done := cname(alg)
	var kp *C.regula_decryption_key
	var der [256]byte
	var n C.size_t
	runtime.LockOSThread()
	rc := call(mp, calg, &kp)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	if rc == C.REGULA_OK {
		rc = C.regula_decryption_key_public_der(kp, (*C.uint8_t)(&der[0]), C.size_t(len(der)), &n)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		C.regula_decryption_key_free(kp)
		return nil, err
	}
	k := &DecryptionKey{alg: alg, pubDER: append([]byte(nil), der[:n]...)}
	k.h.p = unsafe.Pointer(kp)
	k.h.cleanup = runtime.AddCleanup(k, func(p *C.regula_decryption_key) { C.regula_decryption_key_free(p) }, kp)
	return k, nil
}

// Close frees the key handle, which wipes the key. Close is idempotent.
func (k *DecryptionKey) Close() error {
	k.h.close(func(p unsafe.Pointer) { C.regula_decryption_key_free((*C.regula_decryption_key)(p)) })
	return nil
}

// Algorithm is the key's algorithm, "sm2-encrypt".
func (k *DecryptionKey) Algorithm() string { return k.alg }

// Public returns the public key as a *PublicKey (the standard library has no SM2 type).
func (k *DecryptionKey) Public() crypto.PublicKey {
	return &PublicKey{Algorithm: k.alg, DER: k.PublicKeyDER()}
}

// PublicKeyDER is the public key as DER SubjectPublicKeyInfo.
func (k *DecryptionKey) PublicKeyDER() []byte { return append([]byte(nil), k.pubDER...) }

// Decrypt implements crypto.Decrypter. opts is nil (ASN.1), a *DecrypterOpts, a
// DecrypterOpts or a CiphertextFormat. A malformed or altered ciphertext is an error wrapping
// ErrAuthentication. rand is ignored.
func (k *DecryptionKey) Decrypt(_ io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	format := CiphertextASN1
	switch o := opts.(type) {
	case nil:
	case *DecrypterOpts:
		if o != nil {
			format = o.Format
		}
	case DecrypterOpts:
		format = o.Format
	case CiphertextFormat:
		format = o
	default:
		return nil, invalid("decrypt "+k.alg, fmt.Sprintf("unsupported DecrypterOpts %T", opts))
	}
	pt, _, err := k.DecryptIndicated(ciphertext, format)
	return pt, err
}

// DecryptIndicated decrypts ciphertext laid out as format and returns the service indicator.
func (k *DecryptionKey) DecryptIndicated(ciphertext []byte, format CiphertextFormat) ([]byte, Indicator, error) {
	op := "decrypt " + k.alg
	p, err := k.h.acquire(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	// The plaintext is shorter than the ciphertext.
	pt := make([]byte, len(ciphertext))
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_decrypt((*C.regula_decryption_key)(p), C.int(format), ptr(ciphertext), C.size_t(len(ciphertext)),
		ptr(pt), C.size_t(len(pt)), &n, &ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return pt[:n:n], indicator(&ind), nil
}

// EncryptToPublicKey encrypts plaintext (not empty) to an SM2 public key given as
// SubjectPublicKeyInfo, PEM or DER (a *PublicKey's DER), or as an uncompressed point.
func (m *Module) EncryptToPublicKey(alg string, publicKey, plaintext []byte, format CiphertextFormat) ([]byte, Indicator, error) {
	op := "encrypt to public key " + alg
	mp, err := m.get(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	calg, done := cname(alg)
	// Enough for either layout (the C header's bound for ASN.1).
	ct := make([]byte, len(plaintext)+116)
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_encrypt_to_public_key(mp, calg, ptr(publicKey), C.size_t(len(publicKey)), C.int(format),
		ptr(plaintext), C.size_t(len(plaintext)), ptr(ct), C.size_t(len(ct)), &n, &ind)
	if rc == C.REGULA_ERR_BUFFER_TOO_SMALL { // n is the size needed
		ct = make([]byte, n)
		rc = C.regula_encrypt_to_public_key(mp, calg, ptr(publicKey), C.size_t(len(publicKey)), C.int(format),
			ptr(plaintext), C.size_t(len(plaintext)), ptr(ct), C.size_t(len(ct)), &n, &ind)
	}
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, Indicator{}, err
	}
	return ct[:n:n], indicator(&ind), nil
}
