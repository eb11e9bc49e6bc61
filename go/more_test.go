package regula_test

import (
	"bytes"
	"crypto"
	"crypto/hmac"
	"crypto/mlkem"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"regula.example/regula"
)

// ML-KEM against crypto/mlkem both ways: Go encapsulates to the module's key and the module
// decapsulates the same shared key; the module encapsulates to Go's key and Go decapsulates it.
func TestMLKEMAgainstStdlib(t *testing.T) {
	m := load(t, "fips-140-3")
	k, err := m.GenerateKEMKey("ml-kem-768")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	goEK, err := mlkem.NewEncapsulationKey768(k.Encapsulator().Bytes())
	if err != nil {
		t.Fatalf("crypto/mlkem rejects the module's encapsulation key: %v", err)
	}
	goShared, ct := goEK.Encapsulate()
	shared, ind, err := k.DecapsulateIndicated(ct)
	if err != nil || !bytes.Equal(shared, goShared) || !ind.Approved {
		t.Fatalf("module decapsulation of crypto/mlkem's ciphertext: %v, equal %v", err, bytes.Equal(shared, goShared))
	}
	// Implicit rejection: a changed ciphertext gives another key, not an error.
	ct[0] ^= 1
	if other, err := k.Decapsulate(ct); err != nil || bytes.Equal(other, goShared) {
		t.Fatalf("changed ciphertext: %v", err)
	}

	goDK, err := mlkem.GenerateKey768()
	if err != nil {
		t.Fatal(err)
	}
	var enc crypto.Encapsulator = m.NewEncapsulationKey("ml-kem-768", goDK.EncapsulationKey().Bytes())
	shared, ct = enc.Encapsulate()
	goShared, err = goDK.Decapsulate(ct)
	if err != nil || !bytes.Equal(shared, goShared) {
		t.Fatalf("crypto/mlkem decapsulation of the module's ciphertext: %v", err)
	}
	// crypto.Decapsulator is satisfied.
	var _ crypto.Decapsulator = k
}

// Under gm: SM3 (GB/T 32905 example 1), SM4-GCM round trip with a flipped tag refused, SM2
// signatures with the default and another user ID; AES and SHA-256 are refused.
func TestGMPolicy(t *testing.T) {
	m := load(t, "gm")
	h := m.SM3()
	h.Write([]byte("abc"))
	if got := hexs(h.Sum(nil)); got != "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0" {
		t.Fatalf("SM3(abc) = %s", got)
	}
	key, nonce := random(t, 16), random(t, 12)
	a, err := m.NewAEAD("sm4-gcm", key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, ind, err := a.(*regula.AEAD).SealIndicated(nil, nonce, []byte("GM payload"), nil)
	if err != nil || !ind.Approved || ind.Policy != "gm" {
		t.Fatalf("sm4-gcm seal: %v %+v", err, ind)
	}
	if got, err := a.Open(nil, nonce, sealed, nil); err != nil || string(got) != "GM payload" {
		t.Fatalf("sm4-gcm open: %v", err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := a.Open(nil, nonce, sealed, nil); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("sm4-gcm flipped tag: %v", err)
	}
	if _, err := m.NewAEAD("aes-128-gcm", key); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("aes-128-gcm under gm: %v", err)
	}

	k, err := m.GenerateKey("sm2-sign")
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := k.Public().(*regula.PublicKey)
	if !ok || pub.Algorithm != "sm2-sign" {
		t.Fatalf("SM2 Public() is %T", k.Public())
	}
	msg := []byte("message digest")
	sig, err := k.Sign(nil, msg, crypto.Hash(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Verify("sm2-sign", pub.DER, msg, sig); err != nil {
		t.Fatalf("SM2 verify: %v", err)
	}
	if _, err := m.Verify("sm2-sign", pub.DER, append(msg, '!'), sig); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("SM2 verify of another message: %v", err)
	}
	// A signature made as another signer does not verify under the default ID.
	sig2, _, err := k.SignWithID([]byte("ALICE123@YAHOO.COM"), msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Verify("sm2-sign", pub.DER, msg, sig2); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("SM2 signature with another user ID verified under the default ID: %v", err)
	}
	if _, err := m.NewMAC("hmac-sm3", random(t, 32)); err != nil {
		t.Fatal(err)
	}
}

func TestMLDSA(t *testing.T) {
	m := load(t, "fips-140-3")
	k, err := m.GenerateKey("ml-dsa-65")
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("post-quantum")
	sig, err := crypto.SignMessage(k, nil, msg, crypto.Hash(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 3309 { // FIPS 204 Table 2: ML-DSA-65 signature size
		t.Fatalf("ML-DSA-65 signature is %d bytes", len(sig))
	}
	ind, err := m.Verify("ml-dsa-65", k.PublicKeyDER(), msg, sig)
	if err != nil || !ind.Approved {
		t.Fatalf("ML-DSA verify: %v %+v", err, ind)
	}
	sig[10] ^= 1
	if _, err := m.Verify("ml-dsa-65", k.PublicKeyDER(), msg, sig); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("ML-DSA flipped signature: %v", err)
	}
}

// Goroutines sharing one module, AEAD and MAC key get the standard library's answers.
func TestConcurrentUse(t *testing.T) {
	m := load(t, "fips-140-3")
	key := random(t, 32)
	a, err := m.NewAEAD("aes-256-gcm", key)
	if err != nil {
		t.Fatal(err)
	}
	mac, err := m.NewMAC("hmac-sha256", key)
	if err != nil {
		t.Fatal(err)
	}
	std := stdGCM(t, key)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				nonce := random(t, 12)
				msg := []byte(fmt.Sprintf("goroutine %d message %d", g, i))
				sealed, err := std.Open(nil, nonce, std.Seal(nil, nonce, msg, nil), nil)
				if err != nil {
					errs <- err
					return
				}
				got, err := a.Open(nil, nonce, std.Seal(nil, nonce, msg, nil), nil)
				if err != nil || !bytes.Equal(got, sealed) {
					errs <- fmt.Errorf("goroutine %d: open %v", g, err)
					return
				}
				tag, err := mac.Sign(msg)
				want := hmac.New(sha256.New, key)
				want.Write(msg)
				if err != nil || !bytes.Equal(tag, want.Sum(nil)) {
					errs <- fmt.Errorf("goroutine %d: hmac %v", g, err)
					return
				}
				h := m.SHA256()
				h.Write(msg)
				if d := sha256.Sum256(msg); !bytes.Equal(h.Sum(nil), d[:]) {
					errs <- fmt.Errorf("goroutine %d: sha256 differs", g)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// The C library keeps the error message per OS thread. Goroutines failing at once, with
// goroutines moving between threads, each get the message of their own failure.
func TestErrorMessagesPerGoroutine(t *testing.T) {
	m := load(t, "default")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 100 {
				name := fmt.Sprintf("no-such-digest-%d-%d", g, i)
				_, _, err := m.Digest(name, nil)
				var rerr *regula.Error
				if !errors.As(err, &rerr) || !strings.Contains(rerr.Message, name) {
					errs <- fmt.Errorf("goroutine %d: %v does not name %s", g, err, name)
					return
				}
				runtime.Gosched()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Close while other goroutines seal: no crash, and calls after Close fail cleanly.
func TestCloseWhileInUse(t *testing.T) {
	m := load(t, "default")
	a, err := m.NewAEAD("aes-128-gcm", random(t, 16))
	if err != nil {
		t.Fatal(err)
	}
	ra := a.(*regula.AEAD)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			nonce := make([]byte, 12)
			for range 500 {
				if _, _, err := ra.SealIndicated(nil, nonce, []byte("x"), nil); err != nil {
					if !errors.Is(err, regula.ErrInvalidInput) {
						t.Errorf("seal racing Close: %v", err)
					}
					return
				}
			}
		})
	}
	ra.Close()
	wg.Wait()
	if _, _, err := ra.SealIndicated(nil, make([]byte, 12), nil, nil); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("seal after Close: %v", err)
	}
	ra.Close() // idempotent
	// A module closed before its keys: the keys keep working.
	m2, err := regula.Load("default")
	if err != nil {
		t.Fatal(err)
	}
	k, err := m2.NewMAC("hmac-sha256", random(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	h, _ := m2.NewHash("sha256")
	m2.Close()
	if _, err := k.Sign([]byte("after the module's Close")); err != nil {
		t.Fatalf("key after module Close: %v", err)
	}
	h.Write([]byte("abc"))
	h.Reset()
	h.Write([]byte("abc"))
	if d := sha256.Sum256([]byte("abc")); !bytes.Equal(h.Sum(nil), d[:]) {
		t.Fatal("hash after module Close")
	}
	if _, err := m2.NewHash("sha256"); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("closed module: %v", err)
	}
}

// Handles that are never closed are freed by their cleanups (run here with the GC; the
// test's point is that nothing crashes or double-frees).
func TestCleanupsRun(t *testing.T) {
	m := load(t, "default")
	for range 200 {
		a, _ := m.NewAEAD("aes-256-gcm", make([]byte, 32))
		a.Seal(nil, make([]byte, 12), []byte("x"), nil)
		h := m.SHA256()
		h.Write([]byte("x"))
		h.Sum(nil)
		closed := m.SHA512()
		closed.(*regula.Hash).Close()
	}
	runtime.GC()
	runtime.GC()
}
