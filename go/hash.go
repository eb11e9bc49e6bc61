package regula

/*
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"crypto"
	"fmt"
	"hash"
	"runtime"
	"unsafe"
)

// Hash is an incremental digest computed by the module ("sha256", "sha512", "sha3-256",
// "sm3", …). It implements [hash.Hash] and [hash.Cloner]. Like every hash.Hash it is not safe
// for concurrent use.
//
// Write and Sum cannot return the module's refusal through hash.Hash (a module in its error
// state refuses to finish a digest): Write returns it, Sum panics with it.
// [Hash.SumIndicated] returns it as a value, with the service indicator.
type Hash struct {
	h              handle
	alg            string
	size           int
	blockSize      int
	err            error                // sticky: a failed update spoils the digest
	initial        *C.regula_digest_ctx // the empty state, for Reset
	initialCleanup runtime.Cleanup
}

var (
	_ hash.Hash   = (*Hash)(nil)
	_ hash.Cloner = (*Hash)(nil)
)

// Sizes of the digests the module serves: output and block size in bytes (FIPS 180-4,
// FIPS 202, GB/T 32905, RFC 1320/1321).
var digestSizes = map[string][2]int{
	"md4": {16, 64}, "md5": {16, 64}, "sha1": {20, 64},
	"sha224": {28, 64}, "sha256": {32, 64}, "sha384": {48, 128}, "sha512": {64, 128},
	"sha512-256": {32, 128},
	"sha3-224":   {28, 144}, "sha3-256": {32, 136}, "sha3-384": {48, 104}, "sha3-512": {64, 72},
	"sm3": {32, 64},
}

// cryptoHashNames maps the standard library's hash identifiers to the module's names.
var cryptoHashNames = map[crypto.Hash]string{
	crypto.MD4: "md4", crypto.MD5: "md5", crypto.SHA1: "sha1",
	crypto.SHA224: "sha224", crypto.SHA256: "sha256", crypto.SHA384: "sha384", crypto.SHA512: "sha512",
	crypto.SHA512_256: "sha512-256",
	crypto.SHA3_224:   "sha3-224", crypto.SHA3_256: "sha3-256", crypto.SHA3_384: "sha3-384", crypto.SHA3_512: "sha3-512",
}

// NewHash starts a digest of algorithm alg. The returned value is a *Hash.
func (m *Module) NewHash(alg string) (hash.Hash, error) {
	return m.newHash(alg)
}

// NewHashFor is NewHash for a standard library hash identifier (crypto.SHA256, …).
func (m *Module) NewHashFor(h crypto.Hash) (hash.Hash, error) {
	alg, ok := cryptoHashNames[h]
	if !ok {
		return nil, invalid("digest", fmt.Sprintf("%v has no module digest", h))
	}
	return m.newHash(alg)
}

func (m *Module) newHash(alg string) (*Hash, error) {
	sizes, ok := digestSizes[alg]
	if !ok {
		return nil, invalid("digest", fmt.Sprintf("unknown digest %q", alg))
	}
	mp, err := m.get("digest")
	if err != nil {
		return nil, err
	}
	calg := C.CString(alg)
	defer C.free(unsafe.Pointer(calg))
	var ctx *C.regula_digest_ctx
	runtime.LockOSThread()
	rc := C.regula_digest_new(mp, calg, &ctx)
	err = lastError(rc, "digest "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, err
	}
	return newHashFromCtx(alg, sizes, ctx)
}

// newHashFromCtx wraps a fresh context, keeping a copy of it as the state Reset returns to.
func newHashFromCtx(alg string, sizes [2]int, ctx *C.regula_digest_ctx) (*Hash, error) {
	var initial *C.regula_digest_ctx
	runtime.LockOSThread()
	rc := C.regula_digest_copy(ctx, &initial)
	err := lastError(rc, "digest copy")
	runtime.UnlockOSThread()
	if err != nil {
		C.regula_digest_free(ctx)
		return nil, err
	}
	h := &Hash{alg: alg, size: sizes[0], blockSize: sizes[1], initial: initial}
	h.h.p = unsafe.Pointer(ctx)
	h.h.cleanup = runtime.AddCleanup(h, func(p *C.regula_digest_ctx) { C.regula_digest_free(p) }, ctx)
	h.initialCleanup = runtime.AddCleanup(h, func(p *C.regula_digest_ctx) { C.regula_digest_free(p) }, initial)
	return h, nil
}

// mustHash is for the crypto.Hash-style constructors, which cannot return an error.
func (m *Module) mustHash(alg string) hash.Hash {
	h, err := m.newHash(alg)
	if err != nil {
		panic(err)
	}
	return h
}

// SHA224 returns a new SHA-224 hash.Hash. Like [crypto.Hash.New] it panics if the digest is
// not available (here: refused by the policy or the module's state). m.SHA256 and the others
// can be passed where a func() hash.Hash is taken.
func (m *Module) SHA224() hash.Hash { return m.mustHash("sha224") }

// SHA256 returns a new SHA-256 hash.Hash; see SHA224.
func (m *Module) SHA256() hash.Hash { return m.mustHash("sha256") }

// SHA384 returns a new SHA-384 hash.Hash; see SHA224.
func (m *Module) SHA384() hash.Hash { return m.mustHash("sha384") }

// SHA512 returns a new SHA-512 hash.Hash; see SHA224.
func (m *Module) SHA512() hash.Hash { return m.mustHash("sha512") }

// SM3 returns a new SM3 hash.Hash (GB/T 32905); see SHA224.
func (m *Module) SM3() hash.Hash { return m.mustHash("sm3") }

// Algorithm is the digest's registry name.
func (h *Hash) Algorithm() string { return h.alg }

// Size is the digest length in bytes.
func (h *Hash) Size() int { return h.size }

// BlockSize is the algorithm's block size in bytes.
func (h *Hash) BlockSize() int { return h.blockSize }

// Close frees the digest context. Close is idempotent; a closed Hash refuses every call.
func (h *Hash) Close() error {
	h.h.close(func(up unsafe.Pointer) {
		p := (*C.regula_digest_ctx)(up)
		C.regula_digest_free(p)
		h.initialCleanup.Stop()
		C.regula_digest_free(h.initial)
		h.initial = nil
	})
	return nil
}

// Write adds p to the digest. It fails only if the module refuses, and then the digest stays
// failed until Reset.
func (h *Hash) Write(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	ctx, err := h.handle("digest update")
	if err != nil {
		return 0, err
	}
	runtime.LockOSThread()
	rc := C.regula_digest_update(ctx, ptr(p), C.size_t(len(p)))
	err = lastError(rc, "digest update")
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	if err != nil {
		h.err = err
		return 0, err
	}
	return len(p), nil
}

// Sum appends the digest of what was written so far to b, without changing the state (it
// finishes a copy made by regula_digest_copy).
func (h *Hash) Sum(b []byte) []byte {
	out, _, err := h.SumIndicated(b)
	if err != nil {
		panic(err)
	}
	return out
}

// SumIndicated is Sum returning the service indicator, and the module's refusal as an error.
func (h *Hash) SumIndicated(b []byte) ([]byte, Indicator, error) {
	const op = "digest final"
	if h.err != nil {
		return nil, Indicator{}, h.err
	}
	ctx, err := h.handle(op)
	if err != nil {
		return nil, Indicator{}, err
	}
	var digest [C.REGULA_MAX_DIGEST_LEN]byte
	var n C.size_t
	var ind C.regula_indicator
	var cp *C.regula_digest_ctx
	runtime.LockOSThread()
	rc := C.regula_digest_copy(ctx, &cp)
	if rc == C.REGULA_OK {
		rc = C.regula_digest_final(cp, (*C.uint8_t)(&digest[0]), C.size_t(len(digest)), &n, &ind)
	}
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	C.regula_digest_free(cp)
	h.h.mu.RUnlock()
	if err != nil {
		return nil, Indicator{}, err
	}
	return append(b, digest[:n]...), indicator(&ind), nil
}

// Reset restarts the digest from a pristine context copied when the Hash was made, so it
// works after the Module is closed too.
func (h *Hash) Reset() {
	ctx, err := h.handle("digest reset")
	if err != nil {
		h.err = err
		return
	}
	var fresh *C.regula_digest_ctx
	runtime.LockOSThread()
	rc := C.regula_digest_copy(h.initial, &fresh)
	err = lastError(rc, "digest reset")
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	if err != nil {
		h.err = err
		return
	}
	h.h.mu.Lock()
	h.h.cleanup.Stop()
	C.regula_digest_free(ctx)
	h.h.p = unsafe.Pointer(fresh)
	h.h.cleanup = runtime.AddCleanup(h, func(p *C.regula_digest_ctx) { C.regula_digest_free(p) }, fresh)
	h.h.mu.Unlock()
	h.err = nil
}

// Clone returns an independent copy of the digest state (regula_digest_copy).
func (h *Hash) Clone() (hash.Cloner, error) {
	if h.err != nil {
		return nil, h.err
	}
	ctx, err := h.handle("digest copy")
	if err != nil {
		return nil, err
	}
	var cp *C.regula_digest_ctx
	runtime.LockOSThread()
	rc := C.regula_digest_copy(ctx, &cp)
	err = lastError(rc, "digest copy")
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	c := &Hash{alg: h.alg, size: h.size, blockSize: h.blockSize}
	var initial *C.regula_digest_ctx
	runtime.LockOSThread()
	rc = C.regula_digest_copy(h.initial, &initial)
	err = lastError(rc, "digest copy")
	runtime.UnlockOSThread()
	if err != nil {
		C.regula_digest_free(cp)
		return nil, err
	}
	c.initial = initial
	c.h.p = unsafe.Pointer(cp)
	c.h.cleanup = runtime.AddCleanup(c, func(p *C.regula_digest_ctx) { C.regula_digest_free(p) }, cp)
	c.initialCleanup = runtime.AddCleanup(c, func(p *C.regula_digest_ctx) { C.regula_digest_free(p) }, initial)
	return c, nil
}

// Digest hashes data in one call and returns the digest with its service indicator.
func (m *Module) Digest(alg string, data []byte) ([]byte, Indicator, error) {
	mp, err := m.get("digest")
	if err != nil {
		return nil, Indicator{}, err
	}
	calg := C.CString(alg)
	defer C.free(unsafe.Pointer(calg))
	var digest [C.REGULA_MAX_DIGEST_LEN]byte
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_digest(mp, calg, ptr(data), C.size_t(len(data)), (*C.uint8_t)(&digest[0]), C.size_t(len(digest)), &n, &ind)
	err = lastError(rc, "digest "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, Indicator{}, err
	}
	return append([]byte(nil), digest[:n]...), indicator(&ind), nil
}

// handle holds the C handle for one call (release with h.h.mu.RUnlock), or fails after Close.
func (h *Hash) handle(op string) (*C.regula_digest_ctx, error) {
	p, err := h.h.acquire(op)
	return (*C.regula_digest_ctx)(p), err
}
