package regula

/*
#include <stdlib.h>
#include <regula.h>

// A Go hash.Hash is two digest contexts: the running one and an empty one Reset copies (so
// Reset needs no module). These helpers do each Hash method in one cgo call; they only move
// contexts around, the digest is the library's.
typedef struct {
	regula_digest_ctx *cur, *initial;
} regula_go_hash;

static void regula_go_hash_free(regula_go_hash *h) {
	if (h == NULL) return;
	regula_digest_free(h->cur);
	regula_digest_free(h->initial);
	free(h);
}

static int regula_go_hash_wrap(regula_digest_ctx *cur, regula_digest_ctx *initial, regula_go_hash **out) {
	regula_go_hash *h = calloc(1, sizeof *h);
	if (h == NULL) {
		regula_digest_free(cur);
		regula_digest_free(initial);
		return REGULA_ERR_INTERNAL;
	}
	h->cur = cur;
	h->initial = initial;
	*out = h;
	return REGULA_OK;
}

static int regula_go_hash_new(const regula_module *m, const char *alg, regula_go_hash **out) {
	regula_digest_ctx *cur = NULL, *initial = NULL;
	int rc = regula_digest_new(m, alg, &cur);
	if (rc == REGULA_OK) rc = regula_digest_copy(cur, &initial);
	if (rc != REGULA_OK) {
		regula_digest_free(cur);
		return rc;
	}
	return regula_go_hash_wrap(cur, initial, out);
}

static int regula_go_hash_clone(const regula_go_hash *h, regula_go_hash **out) {
	regula_digest_ctx *cur = NULL, *initial = NULL;
	int rc = regula_digest_copy(h->cur, &cur);
	if (rc == REGULA_OK) rc = regula_digest_copy(h->initial, &initial);
	if (rc != REGULA_OK) {
		regula_digest_free(cur);
		return rc;
	}
	return regula_go_hash_wrap(cur, initial, out);
}

// Finishes a copy of the running context, leaving it as it was.
static int regula_go_hash_sum(const regula_go_hash *h, uint8_t *out, size_t cap, size_t *len, regula_indicator *ind) {
	regula_digest_ctx *copy = NULL;
	int rc = regula_digest_copy(h->cur, &copy);
	if (rc == REGULA_OK) rc = regula_digest_final(copy, out, cap, len, ind);
	regula_digest_free(copy);
	return rc;
}

static int regula_go_hash_reset(regula_go_hash *h) {
	regula_digest_ctx *fresh = NULL;
	int rc = regula_digest_copy(h->initial, &fresh);
	if (rc != REGULA_OK) return rc;
	regula_digest_free(h->cur);
	h->cur = fresh;
	return REGULA_OK;
}
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

// NewHash starts a digest of algorithm alg. The returned value is a *Hash.
func (m *Module) NewHash(alg string) (hash.Hash, error) {
	return m.newHash(alg)
}

// NewHashFor is NewHash for a standard library hash identifier (crypto.SHA256, …).
func (m *Module) NewHashFor(h crypto.Hash) (hash.Hash, error) {
	alg, ok := cryptoHashes()[h]
	if !ok {
		return nil, invalid("digest", fmt.Sprintf("%v has no module digest", h))
	}
	return m.newHash(alg)
}

func (m *Module) newHash(alg string) (*Hash, error) {
	// The sizes come from the algorithm's registry row.
	info, err := AlgorithmInfo(alg)
	if err != nil || info.Family != "digest" {
		return nil, invalid("digest", fmt.Sprintf("unknown digest %q", alg))
	}
	alg = info.Name
	mp, err := m.get("digest")
	if err != nil {
		return nil, err
	}
	calg, done := cname(alg)
	var gh *C.regula_go_hash
	runtime.LockOSThread()
	rc := C.regula_go_hash_new(mp, calg, &gh)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, "digest "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, err
	}
	return wrapHash(alg, info.OutputLen, info.BlockLen, gh), nil
}

func wrapHash(alg string, size, blockSize int, gh *C.regula_go_hash) *Hash {
	h := &Hash{alg: alg, size: size, blockSize: blockSize}
	h.h.p = unsafe.Pointer(gh)
	h.h.cleanup = runtime.AddCleanup(h, func(p *C.regula_go_hash) { C.regula_go_hash_free(p) }, gh)
	return h
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

// Close frees the digest contexts. Close is idempotent; a closed Hash refuses every call.
func (h *Hash) Close() error {
	h.h.close(func(p unsafe.Pointer) { C.regula_go_hash_free((*C.regula_go_hash)(p)) })
	return nil
}

// Write adds p to the digest. It fails only if the module refuses, and then the digest stays
// failed until Reset.
func (h *Hash) Write(p []byte) (int, error) {
	if h.err != nil {
		return 0, h.err
	}
	gh, err := h.handle("digest update")
	if err != nil {
		return 0, err
	}
	runtime.LockOSThread()
	rc := C.regula_digest_update(gh.cur, ptr(p), C.size_t(len(p)))
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
	out, err := h.sum(b, nil)
	if err != nil {
		panic(err)
	}
	return out
}

// SumIndicated is Sum returning the service indicator, and the module's refusal as an error.
func (h *Hash) SumIndicated(b []byte) ([]byte, Indicator, error) {
	var ind C.regula_indicator
	out, err := h.sum(b, &ind)
	if err != nil {
		return nil, Indicator{}, err
	}
	return out, indicator(&ind), nil
}

func (h *Hash) sum(b []byte, ind *C.regula_indicator) ([]byte, error) {
	const op = "digest final"
	if h.err != nil {
		return nil, h.err
	}
	gh, err := h.handle(op)
	if err != nil {
		return nil, err
	}
	// Written in place at the end of b when it has room, like the standard library's hashes.
	ret, out := sliceForAppend(b, h.size)
	var n C.size_t
	runtime.LockOSThread()
	rc := C.regula_go_hash_sum(gh, ptr(out), C.size_t(len(out)), &n, ind)
	err = lastError(rc, op)
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return ret[:len(b)+int(n)], nil
}

// Reset restarts the digest from the empty context kept since the Hash was made, so it works
// after the Module is closed too.
func (h *Hash) Reset() {
	gh, err := h.handle("digest reset")
	if err != nil {
		h.err = err
		return
	}
	runtime.LockOSThread()
	rc := C.regula_go_hash_reset(gh)
	err = lastError(rc, "digest reset")
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	h.err = err
}

// Clone returns an independent copy of the digest state (regula_digest_copy).
func (h *Hash) Clone() (hash.Cloner, error) {
	if h.err != nil {
		return nil, h.err
	}
	gh, err := h.handle("digest copy")
	if err != nil {
		return nil, err
	}
	var cp *C.regula_go_hash
	runtime.LockOSThread()
	rc := C.regula_go_hash_clone(gh, &cp)
	err = lastError(rc, "digest copy")
	runtime.UnlockOSThread()
	h.h.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return wrapHash(h.alg, h.size, h.blockSize, cp), nil
}

// handle holds the C state for one call (release with h.h.mu.RUnlock), or fails after Close.
func (h *Hash) handle(op string) (*C.regula_go_hash, error) {
	p, err := h.h.acquire(op)
	return (*C.regula_go_hash)(p), err
}

// Digest hashes data in one call and returns the digest with its service indicator.
func (m *Module) Digest(alg string, data []byte) ([]byte, Indicator, error) {
	mp, err := m.get("digest")
	if err != nil {
		return nil, Indicator{}, err
	}
	calg, done := cname(alg)
	var digest [C.REGULA_MAX_DIGEST_LEN]byte
	var n C.size_t
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_digest(mp, calg, ptr(data), C.size_t(len(data)), (*C.uint8_t)(&digest[0]), C.size_t(len(digest)), &n, &ind)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err = lastError(rc, "digest "+alg)
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, Indicator{}, err
	}
	return append([]byte(nil), digest[:n]...), indicator(&ind), nil
}
