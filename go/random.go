package regula

/*
#include <regula.h>
*/
import "C"

import (
	"io"
	"runtime"
)

// Random returns an io.Reader over the module's SP 800-90A DRBG ("ctr-drbg"): every Read
// fills the whole buffer or fails with the module's refusal. Safe for concurrent use.
func (m *Module) Random() io.Reader { return drbg{m} }

type drbg struct{ m *Module }

// Read fills p from the DRBG.
func (r drbg) Read(p []byte) (int, error) {
	if _, err := r.m.RandomIndicated(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RandomIndicated fills p from the module's DRBG and returns the service indicator.
func (m *Module) RandomIndicated(p []byte) (Indicator, error) {
	mp, err := m.get("random")
	if err != nil {
		return Indicator{}, err
	}
	var ind C.regula_indicator
	runtime.LockOSThread()
	rc := C.regula_random(mp, ptr(p), C.size_t(len(p)), &ind)
	err = lastError(rc, "random")
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return Indicator{}, err
	}
	return indicator(&ind), nil
}

var _ io.Reader = drbg{}
