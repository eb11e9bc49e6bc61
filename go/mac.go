package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// MAC is a message-authentication key held by the module: HMAC ("hmac-sha256", …, "hmac-sm3"),
// CMAC ("aes-128-cmac", "aes-256-cmac", "sm4-cmac") and GMAC ("aes-128-gmac", "aes-256-gmac",
// which take a nonce: [MAC.SignWithNonce]). Safe for concurrent use.
type MAC struct {
	h handle
}

// NewMAC binds key to the MAC algorithm alg. The module keeps its own copy (wiped by Close).
func (m *Module) NewMAC(alg string, key []byte) (*MAC, error) {
	mp, err := m.get("mac key")
	if err != nil {
		return nil, err
	}
	calg, done := cname(alg)
	var kp *C.regula_mac_key
	runtime.LockOSThread()
	rc := C.regula_mac_key_new(mp, calg, ptr(key), C.size_t(len(key)), &kp)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, "mac key "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, err
	}
	k := &MAC{}
	k.h.p = unsafe.Pointer(kp)
	k.h.cleanup = runtime.AddCleanup(k, func(p *C.regula_mac_key) { C.regula_mac_key_free(p) }, kp)
	return k, nil
}

// Close frees the key handle, which wipes the key. Close is idempotent.
func (k *MAC) Close() error {
	k.h.close(func(p unsafe.Pointer) { C.regula_mac_key_free((*C.regula_mac_key)(p)) })
	return nil
}

// Sign returns the tag of data.
func (k *MAC) Sign(data []byte) ([]byte, error) {
	tag, _, err := k.SignIndicated(data)
	return tag, err
}

// SignIndicated is Sign returning the service indicator.
func (k *MAC) SignIndicated(data []byte) ([]byte, Indicator, error) {
	return k.sign(nil, data, false)
}

// SignWithNonce returns the GMAC tag of data under nonce (12 bytes). The nonce must never
// repeat under one key; FIPS 140-3 does not approve a caller's GMAC nonce.
func (k *MAC) SignWithNonce(nonce, data []byte) ([]byte, Indicator, error) {
	return k.sign(nonce, data, true)
}

func (k *MAC) sign(nonce, data []byte, withNonce bool) ([]byte, Indicator, error) {
	const op = "mac sign"
	kp, err := k.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	var tag [C.REGULA_MAX_MAC_LEN]byte
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	var rc C.int
	if withNonce {
		// One fragment, in C memory: an iovec in Go memory must not hold a Go pointer.
		iov := (*C.regula_iovec)(C.malloc(C.sizeof_regula_iovec))
		pinned := runtime.Pinner{}
		if len(data) > 0 {
			pinned.Pin(&data[0])
		}
		iov.base, iov.len = ptr(data), C.size_t(len(data))
		rc = C.regula_mac_signv_with_nonce(kp, ptr(nonce), C.size_t(len(nonce)), iov, 1,
			(*C.uint8_t)(&tag[0]), C.size_t(len(tag)), &n, &ind)
		C.free(unsafe.Pointer(iov))
		pinned.Unpin()
	} else {
		rc = C.regula_mac_sign(kp, ptr(data), C.size_t(len(data)), (*C.uint8_t)(&tag[0]), C.size_t(len(tag)), &n, &ind)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return append([]byte(nil), tag[:n]...), indicator(&ind), nil
}

// Verify checks tag over data in constant time; a mismatch is an error wrapping
// ErrAuthentication.
func (k *MAC) Verify(data, tag []byte) error {
	_, err := k.VerifyIndicated(data, tag)
	return err
}

// VerifyIndicated is Verify returning the service indicator.
func (k *MAC) VerifyIndicated(data, tag []byte) (Indicator, error) {
	const op = "mac verify"
	kp, err := k.handle(op)
	if err != nil {
		return Indicator{}, err
	}
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_mac_verify(kp, ptr(data), C.size_t(len(data)), ptr(tag), C.size_t(len(tag)), &ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return Indicator{}, err
	}
	return indicator(&ind), nil
}

// handle holds the C handle for one call (release with k.h.mu.RUnlock), or fails after Close.
func (k *MAC) handle(op string) (*C.regula_mac_key, error) {
	p, err := k.h.acquire(op)
	return (*C.regula_mac_key)(p), err
}
