package regula

/*
#include <stdlib.h>
#include <regula.h>

// The status and output length of a seal or open, returned by value so that no Go variable
// has to escape to the heap for the length.
typedef struct {
	int rc;
	size_t len;
} regula_go_result;

static regula_go_result regula_go_aead_seal(const regula_aead_key *key, int gen_nonce, uint8_t *nonce, size_t nonce_len,
		const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
		regula_indicator *ind) {
	regula_go_result r = {0, 0};
	if (gen_nonce)
		r.rc = regula_aead_seal_gen_nonce(key, nonce, nonce_len, aad, aad_len, in, in_len, out, out_cap, &r.len, ind);
	else
		r.rc = regula_aead_seal(key, nonce, nonce_len, aad, aad_len, in, in_len, out, out_cap, &r.len, ind);
	return r;
}

static regula_go_result regula_go_aead_open(const regula_aead_key *key, const uint8_t *nonce, size_t nonce_len,
		const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
		regula_indicator *ind) {
	regula_go_result r = {0, 0};
	r.rc = regula_aead_open(key, nonce, nonce_len, aad, aad_len, in, in_len, out, out_cap, &r.len, ind);
	return r;
}
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
	calg, done := cname(alg)
	var kp *C.regula_aead_key
	runtime.LockOSThread()
	rc := C.regula_aead_key_new(mp, calg, ptr(key), C.size_t(len(key)), &kp)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
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
	out, err := a.seal(dst, nonce, plaintext, additionalData, nil)
	if err != nil {
		panic(err)
	}
	return out
}

// Open implements cipher.AEAD. A wrong tag returns an error wrapping ErrAuthentication; dst's
// spare capacity is then wiped, never holding unauthenticated plaintext.
func (a *AEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	return a.open(dst, nonce, ciphertext, additionalData, nil)
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
	var ind C.regula_indicator
	out, err := a.seal(dst, nonce, plaintext, additionalData, &ind)
	if err != nil {
		return nil, Indicator{}, err
	}
	return out, indicator(&ind), nil
}

// seal seals, writing the indicator to ind unless it is nil.
func (a *AEAD) seal(dst, nonce, plaintext, additionalData []byte, ind *C.regula_indicator) ([]byte, error) {
	const op = "aead seal"
	prefix := 0
	if a.randomNonce {
		if len(nonce) != 0 {
			return nil, invalid(op, "the module generates the nonce; pass nil")
		}
		prefix = a.nonceSize
	}
	ret, out := sliceForAppend(dst, prefix+len(plaintext)+a.tagSize)
	if inexactOverlap(out[prefix:], plaintext) || inexactOverlap(out, additionalData) {
		return nil, invalid(op, "invalid buffer overlap")
	}
	kp, err := a.handle(op)
	if err != nil {
		return nil, err
	}
	genNonce, nonceArg := C.int(0), nonce
	if a.randomNonce {
		genNonce, nonceArg = 1, out[:prefix]
	}
	runtime.LockOSThread()
	r := C.regula_go_aead_seal(kp, genNonce, ptr(nonceArg), C.size_t(len(nonceArg)), ptr(additionalData), C.size_t(len(additionalData)),
		ptr(plaintext), C.size_t(len(plaintext)), ptr(out[prefix:]), C.size_t(len(out)-prefix), ind)
	rc, outLen := r.rc, r.len
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	a.h.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return ret[:len(dst)+prefix+int(outLen)], nil
}

// OpenIndicated is Open returning the operation's service indicator.
func (a *AEAD) OpenIndicated(dst, nonce, ciphertext, additionalData []byte) ([]byte, Indicator, error) {
	var ind C.regula_indicator
	out, err := a.open(dst, nonce, ciphertext, additionalData, &ind)
	if err != nil {
		return nil, Indicator{}, err
	}
	return out, indicator(&ind), nil
}

// open opens, writing the indicator to ind unless it is nil.
func (a *AEAD) open(dst, nonce, ciphertext, additionalData []byte, ind *C.regula_indicator) ([]byte, error) {
	const op = "aead open"
	if a.randomNonce {
		if len(nonce) != 0 {
			return nil, invalid(op, "the nonce is read from the ciphertext; pass nil")
		}
		if len(ciphertext) < a.nonceSize {
			return nil, &Error{Op: op, Code: C.REGULA_ERR_CRYPTO}
		}
		nonce, ciphertext = ciphertext[:a.nonceSize], ciphertext[a.nonceSize:]
	}
	if len(ciphertext) < a.tagSize {
		return nil, &Error{Op: op, Code: C.REGULA_ERR_CRYPTO}
	}
	ret, out := sliceForAppend(dst, len(ciphertext)-a.tagSize)
	if inexactOverlap(out, ciphertext) || inexactOverlap(out, additionalData) {
		return nil, invalid(op, "invalid buffer overlap")
	}
	kp, err := a.handle(op)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	r := C.regula_go_aead_open(kp, ptr(nonce), C.size_t(len(nonce)), ptr(additionalData), C.size_t(len(additionalData)),
		ptr(ciphertext), C.size_t(len(ciphertext)), ptr(out), C.size_t(len(out)), ind)
	rc, outLen := r.rc, r.len
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	a.h.mu.RUnlock()
	if err != nil {
		// The library wiped out; clear it again in case out was only partly its buffer.
		clear(out)
		return nil, err
	}
	return ret[:len(dst)+int(outLen)], nil
}

// handle holds the C handle for one call (release with a.h.mu.RUnlock), or fails after Close.
func (a *AEAD) handle(op string) (*C.regula_aead_key, error) {
	p, err := a.h.acquire(op)
	return (*C.regula_aead_key)(p), err
}
