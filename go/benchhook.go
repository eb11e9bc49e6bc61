package regula

/*
#include <regula.h>

// The C side of the per-call overhead measurement: n seals of len bytes in a C loop, so the
// Go benchmark can subtract what the library itself takes per call.
static int regula_go_bench_seal(const regula_aead_key *key, uint8_t *buf, size_t len, size_t cap, long n) {
	static const uint8_t nonce[REGULA_AEAD_NONCE_LEN];
	size_t out_len;
	for (long i = 0; i < n; i++) {
		int rc = regula_aead_seal(key, nonce, sizeof nonce, NULL, 0, buf, len, buf, cap, &out_len, NULL);
		if (rc != REGULA_OK) return rc;
	}
	return REGULA_OK;
}
*/
import "C"

import "runtime"

// benchSealC seals a size-byte buffer n times from a loop in C (for the benchmarks only): the
// library's own cost per call, without crossing from Go each time.
func benchSealC(a *AEAD, size, n int) error {
	buf := make([]byte, size+a.tagSize)
	kp, err := a.handle("bench")
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	rc := C.regula_go_bench_seal(kp, ptr(buf), C.size_t(size), C.size_t(len(buf)), C.long(n))
	err = lastError(rc, "bench seal")
	runtime.UnlockOSThread()
	a.h.mu.RUnlock()
	return err
}

// benchNullCall crosses into the library and back with the least work there is (the key's
// tag length), for the benchmarks only.
func benchNullCall(a *AEAD) int {
	kp, err := a.handle("bench")
	if err != nil {
		return 0
	}
	n := int(C.regula_aead_tag_len(kp))
	a.h.mu.RUnlock()
	return n
}
