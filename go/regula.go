// Package regula is the Go binding of Regula, a cryptographic module with a policy in front of
// it (FIPS 140-3, GM/T and default profiles, power-on self-tests and a service indicator) over
// AWS-LC.
//
// The package is a translation layer over the C ABI of libregula (crates/regula-ffi, linked
// statically with cgo): every decision — whether the policy approves a service, the error
// state after a failed self-test, the indicator of each operation — is the module's, so a Go
// caller sees exactly what a Rust or C caller sees. No cryptography is implemented in Go.
//
// The types plug into the standard library's interfaces: [Module.NewAEAD] returns a
// [crypto/cipher.AEAD], [Module.NewHash] a [hash.Hash], [PrivateKey] is a [crypto.Signer] and
// [crypto.MessageSigner] (so crypto/tls and crypto/x509 can use a key held by the module),
// [Module.Random] an [io.Reader] over the module's DRBG.
//
// Errors wrap [ErrNotApproved], [ErrAuthentication], [ErrInvalidInput] and [ErrErrorState]
// (test with [errors.Is]); the message is the module's own and never holds secret bytes.
//
// Handles own C memory. Close frees them (key handles wipe their key material); a handle
// that is not closed is freed by a cleanup once it is unreachable. Every type here is safe
// for concurrent use, except [Hash] (like every hash.Hash).
//
// Building: the package links libregula.a. Inside the Regula repository,
// `cargo build --release -p regula-ffi` is enough; elsewhere point cgo at an installed
// prefix (`cargo cinstall -p regula-ffi --prefix P --libdir lib`):
//
//	CGO_CFLAGS="$(pkg-config --cflags regula)" CGO_LDFLAGS="$(pkg-config --libs-only-L regula)" go build
package regula

/*
#cgo CFLAGS: -I${SRCDIR}/../crates/regula-ffi/include
#cgo LDFLAGS: -L${SRCDIR}/../target/release -l:libregula.a -lgcc_s -lutil -lrt -lpthread -lm -ldl
#include <stdlib.h>
#include <regula.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Sentinel errors, one per status class of the C ABI (and exit code of the regula command).
var (
	// ErrAuthentication: an AEAD tag, MAC or signature did not verify, or the backend failed
	// (REGULA_ERR_CRYPTO, exit code 1). It deliberately says nothing more.
	ErrAuthentication = errors.New("regula: authentication failed")
	// ErrInvalidInput: unknown algorithm, wrong key or nonce length, an algorithm of another
	// family, a policy file that does not parse (REGULA_ERR_INVALID_INPUT, exit code 2).
	ErrInvalidInput = errors.New("regula: invalid input")
	// ErrNotApproved: the module's policy does not allow this use of the algorithm
	// (REGULA_ERR_NOT_APPROVED, exit code 3).
	ErrNotApproved = errors.New("regula: not approved by the policy")
	// ErrErrorState: a self-test failed and the module refuses every service
	// (REGULA_ERR_ERROR_STATE, exit code 4).
	ErrErrorState = errors.New("regula: module in error state")
	// ErrInternal: a panic inside the library was caught at the C boundary, or an output
	// buffer was too small (a bug in this binding).
	ErrInternal = errors.New("regula: internal error")
)

// Error is the error of a failed module call: the operation, the status code of the C ABI and
// the module's message. errors.Is(err, ErrNotApproved) etc. select on the status.
type Error struct {
	Op      string // e.g. "aead seal", "load"
	Code    int    // REGULA_ERR_* status code
	Message string // regula_last_error_message(); never secret bytes
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("regula: %s: %s", e.Op, strings.TrimPrefix(e.Unwrap().Error(), "regula: "))
	}
	return fmt.Sprintf("regula: %s: %s", e.Op, e.Message)
}

// Unwrap returns the sentinel error of the status code.
func (e *Error) Unwrap() error {
	switch e.Code {
	case C.REGULA_ERR_CRYPTO:
		return ErrAuthentication
	case C.REGULA_ERR_INVALID_INPUT:
		return ErrInvalidInput
	case C.REGULA_ERR_NOT_APPROVED:
		return ErrNotApproved
	case C.REGULA_ERR_ERROR_STATE:
		return ErrErrorState
	default:
		return ErrInternal
	}
}

// lastError turns a status code into an error. The caller must hold its goroutine on the OS
// thread that made the failing call (runtime.LockOSThread), because the C library keeps the
// message per thread.
func lastError(rc C.int, op string) error {
	if rc == C.REGULA_OK {
		return nil
	}
	return &Error{Op: op, Code: int(rc), Message: C.GoString(C.regula_last_error_message())}
}

// ptr is the address of b's data for C (nil for a nil slice; C reads nothing at length 0).
func ptr(b []byte) *C.uint8_t {
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b)))
}

// Indicator is the service indicator of one operation, as the module records it.
type Indicator struct {
	Algorithm string // registry name, e.g. "aes-256-gcm"
	Service   string // e.g. "encrypt", "digest", "signature-generation"
	Policy    string // the module's policy, e.g. "fips-140-3"
	Approved  bool   // whether the policy approves this use
}

// The indicator's strings are static in the library, so each distinct indicator is converted
// to Go strings once.
var indicators sync.Map // C.regula_indicator -> Indicator

func indicator(ind *C.regula_indicator) Indicator {
	if v, ok := indicators.Load(*ind); ok {
		return v.(Indicator)
	}
	v := Indicator{
		Algorithm: C.GoString(ind.algorithm),
		Service:   C.GoString(ind.service),
		Policy:    C.GoString(ind.policy),
		Approved:  ind.approved != 0,
	}
	indicators.Store(*ind, v)
	return v
}

// Algorithm names as C strings, made once: a name the library accepted is kept (the registry
// is finite); others are freed after the call.
var (
	cnames     sync.Map // string -> *C.char
	cnamesMu   sync.Mutex
	cnameCount int
)

// cname returns alg as a C string and a function to call when the call is done with it.
func cname(alg string) (*C.char, func(ok bool)) {
	if p, ok := cnames.Load(alg); ok {
		return p.(*C.char), keepName
	}
	p := C.CString(alg)
	return p, func(ok bool) {
		cnamesMu.Lock()
		defer cnamesMu.Unlock()
		if _, dup := cnames.Load(alg); ok && !dup && cnameCount < 512 {
			cnames.Store(alg, p)
			cnameCount++
			return
		}
		C.free(unsafe.Pointer(p))
	}
}

func keepName(bool) {}

// IndicatorState aggregates the indicators of a scope since its last reset.
type IndicatorState int

const (
	// IndicatorUnset: no operation since the last reset.
	IndicatorUnset IndicatorState = C.REGULA_INDICATOR_UNSET
	// IndicatorApproved: every operation since the last reset was approved.
	IndicatorApproved IndicatorState = C.REGULA_INDICATOR_APPROVED
	// IndicatorNotApproved: at least one operation was not approved (sticky until reset).
	IndicatorNotApproved IndicatorState = C.REGULA_INDICATOR_NOT_APPROVED
)

func (s IndicatorState) String() string {
	switch s {
	case IndicatorUnset:
		return "unset"
	case IndicatorApproved:
		return "approved"
	case IndicatorNotApproved:
		return "not approved"
	}
	return fmt.Sprintf("IndicatorState(%d)", int(s))
}

// State is the module's state.
type State int

const (
	// StateOperational: the self-tests passed; services are offered as the policy allows.
	StateOperational State = C.REGULA_STATE_OPERATIONAL
	// StateError: a self-test failed; every service returns ErrErrorState.
	StateError State = C.REGULA_STATE_ERROR
)

func (s State) String() string {
	switch s {
	case StateOperational:
		return "operational"
	case StateError:
		return "error"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// handle guards a C handle: operations hold it shared, Close exclusively, so that Close never
// frees a handle under a running call and a call after Close fails instead of touching freed
// memory.
type handle struct {
	mu      sync.RWMutex
	p       unsafe.Pointer // the C handle
	cleanup runtime.Cleanup
}

// acquire returns the handle for one call (release with h.mu.RUnlock), or an error after Close.
func (h *handle) acquire(op string) (unsafe.Pointer, error) {
	h.mu.RLock()
	if h.p == nil {
		h.mu.RUnlock()
		return nil, &Error{Op: op, Code: C.REGULA_ERR_INVALID_INPUT, Message: "handle is closed"}
	}
	return h.p, nil
}

// close frees the handle once with free; later calls do nothing.
func (h *handle) close(free func(unsafe.Pointer)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p != nil {
		h.cleanup.Stop()
		free(h.p)
		h.p = nil
	}
}

// Module is a loaded policy with its self-test state, counters and indicator scope.
// A Module made by [Module.NewScope] records into that scope.
type Module struct {
	h     handle
	scope *Scope // non-nil for a scope's module view, which the scope owns
}

// Load loads a policy — "default", "fips-140-3", "gm" or the path of a TOML policy file — and
// runs the power-on self-tests. If a self-test fails, Load returns the module (in its error
// state, to be queried with FailedSelfTest) together with an error wrapping ErrErrorState.
func Load(policy string) (*Module, error) {
	cpolicy := C.CString(policy)
	defer C.free(unsafe.Pointer(cpolicy))
	var p *C.regula_module
	runtime.LockOSThread()
	rc := C.regula_module_load(cpolicy, &p)
	err := lastError(rc, "load "+policy)
	runtime.UnlockOSThread()
	if p == nil {
		return nil, err
	}
	m := &Module{}
	m.h.p = unsafe.Pointer(p)
	m.h.cleanup = runtime.AddCleanup(m, func(p *C.regula_module) { C.regula_module_free(p) }, p)
	return m, err
}

// Close frees the module handle. Keys, hashes and scopes made from it stay usable (they hold
// the loaded module). Close is idempotent.
func (m *Module) Close() error {
	if m.scope != nil {
		return nil // the scope owns this view; close the Scope
	}
	m.h.close(func(p unsafe.Pointer) { C.regula_module_free((*C.regula_module)(p)) })
	return nil
}

// get holds the module handle for one call; release it with m.release.
func (m *Module) get(op string) (*C.regula_module, error) {
	return m.handle(op)
}

func (m *Module) release() { m.h.mu.RUnlock() }

// Policy is the policy's name, e.g. "fips-140-3" (or a policy file's name).
func (m *Module) Policy() string {
	p, err := m.get("policy")
	if err != nil {
		return ""
	}
	defer m.release()
	return C.GoString(C.regula_module_policy(p))
}

// State is StateOperational or StateError. It can change to the error state after load when
// a pairwise consistency test fails at key generation.
func (m *Module) State() State {
	p, err := m.get("state")
	if err != nil {
		return 0
	}
	defer m.release()
	return State(C.regula_module_state(p))
}

// FailedSelfTest is the name of the self-test that put the module in its error state, or "".
func (m *Module) FailedSelfTest() string {
	p, err := m.get("state")
	if err != nil {
		return ""
	}
	defer m.release()
	if s := C.regula_module_failed_selftest(p); s != nil {
		return C.GoString(s)
	}
	return ""
}

// IndicatorState is the aggregate indicator of this module handle's own scope: everything
// made directly from it since the last [Module.ResetIndicator].
func (m *Module) IndicatorState() IndicatorState {
	if m.scope != nil {
		return m.scope.State()
	}
	p, err := m.get("indicator")
	if err != nil {
		return IndicatorUnset
	}
	defer m.release()
	return IndicatorState(C.regula_module_indicator_state(p))
}

// Info describes the library build.
type Info struct {
	Version           string // Regula's version
	Backend           string // e.g. "AWS-LC 5.12.0"
	FIPSModuleLinked  bool   // the FIPS build (aws-lc-fips-sys)
	FIPSMode          bool   // AWS-LC runs in FIPS mode
	FIPSModuleVersion uint32 // 0 if none
}

// BuildInfo describes the linked library: default or FIPS build, AWS-LC version, FIPS mode.
func BuildInfo() (Info, error) {
	var ci C.regula_info
	runtime.LockOSThread()
	rc := C.regula_module_info(nil, &ci)
	err := lastError(rc, "info")
	runtime.UnlockOSThread()
	if err != nil {
		return Info{}, err
	}
	return Info{
		Version:           C.GoString(ci.version),
		Backend:           C.GoString(ci.backend),
		FIPSModuleLinked:  ci.fips_module_linked != 0,
		FIPSMode:          ci.fips_mode != 0,
		FIPSModuleVersion: uint32(ci.fips_module_version),
	}, nil
}

// Scope is a handle on a loaded module with its own sticky indicator, e.g. one per request.
// Everything made through [Scope.Module] records into it. It is not tied to a goroutine or
// thread.
type Scope struct {
	h      handle
	module *Module
}

// NewScope makes a scope on m whose indicator starts unset.
func (m *Module) NewScope() (*Scope, error) {
	p, err := m.get("scope")
	if err != nil {
		return nil, err
	}
	var sp *C.regula_scope
	runtime.LockOSThread()
	rc := C.regula_scope_new(p, &sp)
	err = lastError(rc, "scope")
	runtime.UnlockOSThread()
	m.release()
	if err != nil {
		return nil, err
	}
	s := &Scope{}
	s.h.p = unsafe.Pointer(sp)
	s.h.cleanup = runtime.AddCleanup(s, func(p *C.regula_scope) { C.regula_scope_free(p) }, sp)
	view := &Module{scope: s}
	view.h.p = unsafe.Pointer(C.regula_scope_module(sp))
	s.module = view
	return s, nil
}

// Module is the scope as a module: keys, hashes and other objects made from it record their
// operations into this scope. It is valid until the scope is closed.
func (s *Scope) Module() *Module { return s.module }

// State is the aggregate over the scope's operations since its last reset.
func (s *Scope) State() IndicatorState {
	p, err := s.handle("scope")
	if err != nil {
		return IndicatorUnset
	}
	defer s.h.mu.RUnlock()
	return IndicatorState(C.regula_scope_indicator_state(p))
}

// Reset sets the scope's sticky indicator back to unset.
func (s *Scope) Reset() {
	p, err := s.handle("scope")
	if err != nil {
		return
	}
	defer s.h.mu.RUnlock()
	C.regula_scope_reset(p)
}

// Close frees the scope; objects made through it stay usable. Close is idempotent.
func (s *Scope) Close() error {
	s.module.h.close(func(unsafe.Pointer) {}) // the view is owned by the scope
	s.h.close(func(p unsafe.Pointer) { C.regula_scope_free((*C.regula_scope)(p)) })
	return nil
}

// handle holds the C handle for one call (release with m.h.mu.RUnlock), or fails after Close.
func (m *Module) handle(op string) (*C.regula_module, error) {
	p, err := m.h.acquire(op)
	return (*C.regula_module)(p), err
}

// handle holds the C handle for one call (release with s.h.mu.RUnlock), or fails after Close.
func (s *Scope) handle(op string) (*C.regula_scope, error) {
	p, err := s.h.acquire(op)
	return (*C.regula_scope)(p), err
}
