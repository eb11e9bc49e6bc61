package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"crypto/cipher"
	"runtime"
	"unsafe"
)

// AEAD is an authenticated cipher keyed inside the module ("aes-128-gcm", "aes-256-gcm",
// "aes-128-ccm", "aes-256-ccm", "chacha20-poly1305", "sm4-gcm", "sm4-ccm"). It implements
// [crypto/cipher.AEAD] and is safe for concurrent use.
//
// Seal with a caller-chosen nonce is what FIPS 140-3 does not approve for AES-GCM: under the
// fips-140-3 policy it is refused, and Seal panics with an error wrapping ErrNotApproved. Use
// [Module.NewAEADWithRandomNonce] there (or [AEAD.SealIndicated] to get the error as a value);
// Open with any nonce is approved.
type AEAD struct {
	h           handle
	randomNonce bool
	nonceSize   int
	tagSize     int
}

var _ cipher.AEAD = (*AEAD)(nil)

// NewAEAD binds key to the AEAD algorithm alg. The module keeps its own copy of the key (wiped
// by Close); the caller may clear key afterwards. The returned value is an *AEAD.
func (m *Module) NewAEAD(alg string, key []byte) (cipher.AEAD, error) {
	return m.newAEAD(alg, key, false)
}

// NewAEADWithRandomNonce is NewAEAD whose Seal has the module generate each nonce inside its
// boundary, the approved form of AES-GCM under FIPS 140-3. Like
// [crypto/cipher.NewGCMWithRandomNonce], its NonceSize is 0, Seal takes a nil nonce and
// prepends the 12-byte nonce to the ciphertext, and Open expects it there.
func (m *Module) NewAEADWithRandomNonce(alg string, key []byte) (cipher.AEAD, error) {
	return m.newAEAD(alg, key, true)
}

func (m *Module) newAEAD(alg string, key []byte, randomNonce bool) (*AEAD, error) {
	mp, err := m.get("aead key")
	if err != nil {
		return nil, err
	}
	calg := C.CString(alg)
	defer C.free(unsafe.Pointer(calg))
	var kp *C.regula_aead_key
	runtime.LockOSThread()
	rc := C.regula_aead_key_new(mp, calg, ptr(key), C.size_t(len(key)), &kp)
	err = lastError(rc, "aead key "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, err
	}
	a := &AEAD{randomNonce: randomNonce, nonceSize: C.REGULA_AEAD_NONCE_LEN, tagSize: int(C.regula_aead_tag_len(kp))}
	a.h.p = unsafe.Pointer(kp)
	a.h.cleanup = runtime.AddCleanup(a, func(p *C.regula_aead_key) { C.regula_aead_key_free(p) }, kp)
	return a, nil
}

// Close frees the key handle, which wipes the key. Close is idempotent.
func (a *AEAD) Close() error {
	a.h.close(func(p unsafe.Pointer) { C.regula_aead_key_free((*C.regula_aead_key)(p)) })
	return nil
}

// NonceSize is 12 bytes, or 0 for an AEAD whose nonces the module generates.
func (a *AEAD) NonceSize() int {
	if a.randomNonce {
		return 0
	}
	return a.nonceSize
}

// Overhead is the tag size (16 bytes), plus the nonce for an AEAD whose nonces the module
// generates.
func (a *AEAD) Overhead() int {
	if a.randomNonce {
		return a.nonceSize + a.tagSize
	}
	return a.tagSize
}

// Seal implements cipher.AEAD. It panics if the module refuses (policy, error state) or the
// nonce has the wrong size, as the standard library's AEADs panic on a bad nonce.
func (a *AEAD) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	out, _, err := a.SealIndicated(dst, nonce, plaintext, additionalData)
	if err != nil {
		panic(err)
	}
	return out
}

// Open implements cipher.AEAD. A wrong tag returns an error wrapping ErrAuthentication; dst's
// spare capacity is then wiped, never holding unauthenticated plaintext.
func (a *AEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	out, _, err := a.OpenIndicated(dst, nonce, ciphertext, additionalData)
	return out, err
}

// sliceForAppend extends in by n bytes, reusing its capacity when it can (as the standard
// library's AEADs do), and returns the whole slice and the n new bytes.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return
}

// inexactOverlap reports whether x and y share memory at different offsets, which
// cipher.AEAD forbids (exact overlap, in place, is allowed).
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	xs, ys := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return xs <= ys+uintptr(len(y)-1) && ys <= xs+uintptr(len(x)-1)
}

func invalid(op, msg string) error {
	return &Error{Op: op, Code: C.REGULA_ERR_INVALID_INPUT, Message: msg}
}

// SealIndicated is Seal returning the operation's service indicator, and the module's refusal
// as an error instead of a panic. For an AEAD made by NewAEADWithRandomNonce, nonce must be
// nil.
func (a *AEAD) SealIndicated(dst, nonce, plaintext, additionalData []byte) ([]byte, Indicator, error) {
	const op = "aead seal"
	prefix := 0
	if a.randomNonce {
		if len(nonce) != 0 {
			return nil, Indicator{}, invalid(op, "the module generates the nonce; pass nil")
		}
		prefix = a.nonceSize
	}
	ret, out := sliceForAppend(dst, prefix+len(plaintext)+a.tagSize)
	if inexactOverlap(out[prefix:], plaintext) || inexactOverlap(out, additionalData) {
		return nil, Indicator{}, invalid(op, "invalid buffer overlap")
	}
	kp, err := a.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	var ind C.regula_indicator
	var outLen C.size_t
	runtime.LockOSThread()
	var rc C.int
	if a.randomNonce {
		rc = C.regula_aead_seal_gen_nonce(kp, ptr(out), C.size_t(prefix), ptr(additionalData), C.size_t(len(additionalData)),
			ptr(plaintext), C.size_t(len(plaintext)), ptr(out[prefix:]), C.size_t(len(out)-prefix), &outLen, &ind)
	} else {
		rc = C.regula_aead_seal(kp, ptr(nonce), C.size_t(len(nonce)), ptr(additionalData), C.size_t(len(additionalData)),
			ptr(plaintext), C.size_t(len(plaintext)), ptr(out), C.size_t(len(out)), &outLen, &ind)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	a.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return ret[:len(dst)+prefix+int(outLen)], indicator(&ind), nil
}

// OpenIndicated is Open returning the operation's service indicator.
func (a *AEAD) OpenIndicated(dst, nonce, ciphertext, additionalData []byte) ([]byte, Indicator, error) {
	const op = "aead open"
	if a.randomNonce {
		if len(nonce) != 0 {
			return nil, Indicator{}, invalid(op, "the nonce is read from the ciphertext; pass nil")
		}
		if len(ciphertext) < a.nonceSize {
			return nil, Indicator{}, &Error{Op: op, Code: C.REGULA_ERR_CRYPTO}
		}
		nonce, ciphertext = ciphertext[:a.nonceSize], ciphertext[a.nonceSize:]
	}
	if len(ciphertext) < a.tagSize {
		return nil, Indicator{}, &Error{Op: op, Code: C.REGULA_ERR_CRYPTO}
	}
	ret, out := sliceForAppend(dst, len(ciphertext)-a.tagSize)
	if inexactOverlap(out, ciphertext) || inexactOverlap(out, additionalData) {
		return nil, Indicator{}, invalid(op, "invalid buffer overlap")
	}
	kp, err := a.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	var ind C.regula_indicator
	var outLen C.size_t
	runtime.LockOSThread()
	rc := C.regula_aead_open(kp, ptr(nonce), C.size_t(len(nonce)), ptr(additionalData), C.size_t(len(additionalData)),
		ptr(ciphertext), C.size_t(len(ciphertext)), ptr(out), C.size_t(len(out)), &outLen, &ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	a.h.mu.RUnlock()
	if err != nil {
		// The library wiped out; clear it again in case out was only partly its buffer.
		clear(out)
		return nil, Indicator{}, err
	}
	return ret[:len(dst)+int(outLen)], indicator(&ind), nil
}

// handle holds the C handle for one call (release with a.h.mu.RUnlock), or fails after Close.
func (a *AEAD) handle(op string) (*C.regula_aead_key, error) {
	p, err := a.h.acquire(op)
	return (*C.regula_aead_key)(p), err
}
