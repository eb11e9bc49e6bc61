package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"crypto"
	"runtime"
	"unsafe"
)

// KEMKey is an ML-KEM decapsulation key generated inside the module ("ml-kem-768",
// "ml-kem-1024"). It implements [crypto.Decapsulator], like crypto/mlkem's keys, and is safe
// for concurrent use.
type KEMKey struct {
	h   handle
	ek  *EncapsulationKey
	alg string
}

// EncapsulationKey is an ML-KEM encapsulation (public) key used through the module. It
// implements [crypto.Encapsulator].
type EncapsulationKey struct {
	module *Module
	alg    string
	bytes  []byte
}

var (
	_ crypto.Decapsulator = (*KEMKey)(nil)
	_ crypto.Encapsulator = (*EncapsulationKey)(nil)
)

// GenerateKEMKey generates an ML-KEM key and runs its pairwise consistency test.
func (m *Module) GenerateKEMKey(alg string) (*KEMKey, error) {
	op := "kem key generate " + alg
	mp, err := m.get(op)
	if err != nil {
		return nil, err
	}
	calg, done := cname(alg)
	var kp *C.regula_kem_key
	var ek [2048]byte
	var n C.size_t
	runtime.LockOSThread()
	rc := C.regula_kem_key_generate(mp, calg, &kp, nil)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	if rc == C.REGULA_OK {
		rc = C.regula_kem_encapsulation_key(kp, (*C.uint8_t)(&ek[0]), C.size_t(len(ek)), &n)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		C.regula_kem_key_free(kp)
		return nil, err
	}
	k := &KEMKey{alg: alg, ek: &EncapsulationKey{module: m, alg: alg, bytes: append([]byte(nil), ek[:n]...)}}
	k.h.p = unsafe.Pointer(kp)
	k.h.cleanup = runtime.AddCleanup(k, func(p *C.regula_kem_key) { C.regula_kem_key_free(p) }, kp)
	return k, nil
}

// NewEncapsulationKey is a peer's encoded ML-KEM encapsulation key, to encapsulate to
// through the module.
func (m *Module) NewEncapsulationKey(alg string, key []byte) *EncapsulationKey {
	return &EncapsulationKey{module: m, alg: alg, bytes: append([]byte(nil), key...)}
}

// Close frees the key handle, which wipes the key. Close is idempotent.
func (k *KEMKey) Close() error {
	k.h.close(func(p unsafe.Pointer) { C.regula_kem_key_free((*C.regula_kem_key)(p)) })
	return nil
}

// Encapsulator returns the encapsulation key.
func (k *KEMKey) Encapsulator() crypto.Encapsulator { return k.ek }

// EncapsulationKey returns the encapsulation key.
func (k *KEMKey) EncapsulationKey() *EncapsulationKey { return k.ek }

// Decapsulate returns the shared key of ciphertext. ML-KEM rejects implicitly: a wrong
// ciphertext of the right length gives a different key, not an error.
func (k *KEMKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	ss, _, err := k.DecapsulateIndicated(ciphertext)
	return ss, err
}

// DecapsulateIndicated is Decapsulate returning the service indicator.
func (k *KEMKey) DecapsulateIndicated(ciphertext []byte) ([]byte, Indicator, error) {
	const op = "kem decapsulate"
	p, err := k.h.acquire(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	var ss [32]byte
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_kem_decapsulate((*C.regula_kem_key)(p), ptr(ciphertext), C.size_t(len(ciphertext)), (*C.uint8_t)(&ss[0]), C.size_t(len(ss)), &n, &ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	k.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return append([]byte(nil), ss[:n]...), indicator(&ind), nil
}

// Bytes is the encoded encapsulation key.
func (e *EncapsulationKey) Bytes() []byte { return append([]byte(nil), e.bytes...) }

// Encapsulate implements crypto.Encapsulator: a fresh shared key and the ciphertext to send.
// It panics if the module refuses (crypto.Encapsulator has no error);
// [EncapsulationKey.EncapsulateIndicated] returns the error.
func (e *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	ss, ct, _, err := e.EncapsulateIndicated()
	if err != nil {
		panic(err)
	}
	return ss, ct
}

// EncapsulateIndicated is Encapsulate returning the service indicator and the module's
// refusal as an error.
func (e *EncapsulationKey) EncapsulateIndicated() (sharedKey, ciphertext []byte, ind Indicator, err error) {
	op := "kem encapsulate " + e.alg
	mp, err := e.module.get(op)
	if err != nil {
		return nil, nil, Indicator{}, err
	}
	calg, done := cname(e.alg)
	var ct [2048]byte
	var ss [32]byte
	var ctLen, ssLen C.size_t
	var cind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_kem_encapsulate(mp, calg, ptr(e.bytes), C.size_t(len(e.bytes)), (*C.uint8_t)(&ct[0]), C.size_t(len(ct)), &ctLen,
		(*C.uint8_t)(&ss[0]), C.size_t(len(ss)), &ssLen, &cind)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	e.module.release()
	if err != nil {
		return nil, nil, Indicator{}, err
	}
	return append([]byte(nil), ss[:ssLen]...), append([]byte(nil), ct[:ctLen]...), indicator(&cind), nil
}
