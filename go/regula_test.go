package regula_test

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"errors"
	"hash"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"regula.example/regula"
)

var modules sync.Map

// load loads a policy once per test binary (loading runs the self-tests).
func load(t testing.TB, policy string) *regula.Module {
	t.Helper()
	if m, ok := modules.Load(policy); ok {
		return m.(*regula.Module)
	}
	m, err := regula.Load(policy)
	if err != nil {
		t.Fatalf("Load(%q): %v", policy, err)
	}
	if m.State() != regula.StateOperational || m.Policy() != policy {
		t.Fatalf("Load(%q): state %v, policy %q", policy, m.State(), m.Policy())
	}
	actual, _ := modules.LoadOrStore(policy, m)
	return actual.(*regula.Module)
}

func random(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func stdGCM(t testing.TB, key []byte) cipher.AEAD {
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	g, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// AES-GCM sealed by Regula opens with crypto/cipher and the other way round, for several
// key, message and AAD sizes, and Regula's ciphertext equals the standard library's.
func TestAESGCMAgainstStdlib(t *testing.T) {
	m := load(t, "default")
	for _, keyLen := range []int{16, 32} {
		alg := map[int]string{16: "aes-128-gcm", 32: "aes-256-gcm"}[keyLen]
		for _, n := range []int{0, 1, 15, 16, 17, 64, 1000, 8192, 65537} {
			key, nonce, msg, aad := random(t, keyLen), random(t, 12), random(t, n), random(t, n%37)
			a, err := m.NewAEAD(alg, key)
			if err != nil {
				t.Fatal(err)
			}
			if a.NonceSize() != 12 || a.Overhead() != 16 {
				t.Fatalf("%s: nonce %d overhead %d", alg, a.NonceSize(), a.Overhead())
			}
			std := stdGCM(t, key)
			prefix := []byte("prefix")
			sealed := a.Seal(append([]byte(nil), prefix...), nonce, msg, aad)
			want := std.Seal(append([]byte(nil), prefix...), nonce, msg, aad)
			if !bytes.Equal(sealed, want) {
				t.Fatalf("%s n=%d: Regula's ciphertext differs from crypto/cipher's", alg, n)
			}
			got, err := std.Open(nil, nonce, sealed[len(prefix):], aad)
			if err != nil || !bytes.Equal(got, msg) {
				t.Fatalf("%s n=%d: crypto/cipher cannot open Regula's ciphertext: %v", alg, n, err)
			}
			got, err = a.Open(prefix, nonce, want[len(prefix):], aad)
			if err != nil || !bytes.Equal(got, append(append([]byte(nil), prefix...), msg...)) {
				t.Fatalf("%s n=%d: Regula cannot open crypto/cipher's ciphertext: %v", alg, n, err)
			}
			// In place, as cipher.AEAD allows: dst = plaintext[:0].
			buf := append(make([]byte, 0, n+16), msg...)
			inPlace := a.Seal(buf[:0], nonce, buf, aad)
			if !bytes.Equal(inPlace, want[len(prefix):]) {
				t.Fatalf("%s n=%d: in-place seal differs", alg, n)
			}
			opened, err := a.Open(inPlace[:0], nonce, inPlace, aad)
			if err != nil || !bytes.Equal(opened, msg) {
				t.Fatalf("%s n=%d: in-place open: %v", alg, n, err)
			}
		}
	}
}

// Any flipped bit of the ciphertext, tag, nonce or AAD is an authentication failure, and no
// plaintext comes back.
func TestAEADFlippedBit(t *testing.T) {
	m := load(t, "default")
	key, nonce, msg, aad := random(t, 32), random(t, 12), []byte("attack at dawn"), []byte("header")
	for _, alg := range []string{"aes-256-gcm", "chacha20-poly1305"} {
		if alg == "chacha20-poly1305" {
			key = random(t, 32)
		}
		a, err := m.NewAEAD(alg, key)
		if err != nil {
			t.Fatal(err)
		}
		sealed := a.Seal(nil, nonce, msg, aad)
		for i := range len(sealed) * 8 {
			bad := append([]byte(nil), sealed...)
			bad[i/8] ^= 1 << (i % 8)
			out, err := a.Open(nil, nonce, bad, aad)
			if !errors.Is(err, regula.ErrAuthentication) || out != nil {
				t.Fatalf("%s: flipped bit %d: err %v, out %x", alg, i, err, out)
			}
		}
		badNonce := append([]byte(nil), nonce...)
		badNonce[0] ^= 0x80
		if _, err := a.Open(nil, badNonce, sealed, aad); !errors.Is(err, regula.ErrAuthentication) {
			t.Fatalf("%s: flipped nonce: %v", alg, err)
		}
		if _, err := a.Open(nil, nonce, sealed, []byte("Header")); !errors.Is(err, regula.ErrAuthentication) {
			t.Fatalf("%s: changed AAD: %v", alg, err)
		}
		// The standard library agrees that a flipped tag fails.
		if alg == "aes-256-gcm" {
			bad := append([]byte(nil), sealed...)
			bad[len(bad)-1] ^= 1
			if _, err := stdGCM(t, key).Open(nil, nonce, bad, aad); err == nil {
				t.Fatal("crypto/cipher opened a flipped tag")
			}
		}
	}
}

// Under fips-140-3 a caller-chosen GCM nonce is refused (Seal panics with ErrNotApproved);
// the module-generated nonce form is approved and opens with crypto/cipher.
func TestAESGCMUnderFIPS(t *testing.T) {
	m := load(t, "fips-140-3")
	key, msg, aad := random(t, 32), []byte("FIPS payload"), []byte("aad")
	a, err := m.NewAEAD("aes-256-gcm", key)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = a.(*regula.AEAD).SealIndicated(nil, random(t, 12), msg, aad)
	if !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("caller nonce under fips-140-3: %v, want ErrNotApproved", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !errors.Is(r.(error), regula.ErrNotApproved) {
				t.Fatalf("Seal with a caller nonce under fips-140-3: panic %v, want ErrNotApproved", r)
			}
		}()
		a.Seal(nil, random(t, 12), msg, aad)
	}()

	r, err := m.NewAEADWithRandomNonce("aes-256-gcm", key)
	if err != nil {
		t.Fatal(err)
	}
	if r.NonceSize() != 0 || r.Overhead() != 28 {
		t.Fatalf("random-nonce AEAD: nonce %d overhead %d", r.NonceSize(), r.Overhead())
	}
	sealed, ind, err := r.(*regula.AEAD).SealIndicated(nil, nil, msg, aad)
	if err != nil || !ind.Approved || ind.Algorithm != "aes-256-gcm" || ind.Policy != "fips-140-3" {
		t.Fatalf("generated nonce: %v, indicator %+v", err, ind)
	}
	got, err := stdGCM(t, key).Open(nil, sealed[:12], sealed[12:], aad)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("crypto/cipher cannot open the random-nonce ciphertext: %v", err)
	}
	// Go's own random-nonce GCM has the same layout, so each opens the other's output.
	block, _ := aes.NewCipher(key)
	goRandom, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := goRandom.Open(nil, nil, sealed, aad); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("cipher.NewGCMWithRandomNonce cannot open Regula's output: %v", err)
	}
	if got, err := r.Open(nil, nil, goRandom.Seal(nil, nil, msg, aad), aad); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("Regula cannot open cipher.NewGCMWithRandomNonce's output: %v", err)
	}
	// Two seals never reuse a nonce.
	again := r.Seal(nil, nil, msg, aad)
	if bytes.Equal(again[:12], sealed[:12]) {
		t.Fatal("the module generated the same nonce twice")
	}
	// Opening with a caller's nonce is approved.
	_, ind, err = a.(*regula.AEAD).OpenIndicated(nil, sealed[:12], sealed[12:], aad)
	if err != nil || !ind.Approved {
		t.Fatalf("open under fips-140-3: %v, %+v", err, ind)
	}
}

func TestPolicyRefusals(t *testing.T) {
	fips, def := load(t, "fips-140-3"), load(t, "default")
	_, err := fips.NewHash("md5")
	if !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("md5 under fips-140-3: %v, want ErrNotApproved", err)
	}
	var rerr *regula.Error
	if !errors.As(err, &rerr) || !strings.Contains(rerr.Message, "md5") || errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("md5 refusal should name the algorithm and be only ErrNotApproved: %v", err)
	}
	if _, _, err := fips.Digest("md5", []byte("abc")); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("one-shot md5 under fips-140-3: %v", err)
	}
	if _, err := fips.NewAEAD("chacha20-poly1305", make([]byte, 32)); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("chacha20-poly1305 under fips-140-3: %v", err)
	}
	gm := load(t, "gm")
	if _, err := gm.NewHash("sha256"); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("sha256 under gm: %v", err)
	}
	// Under default, md5 is served and flagged; RFC 1321's "abc" vector.
	d, ind, err := def.Digest("md5", []byte("abc"))
	if err != nil || ind.Approved || ind.Algorithm != "md5" {
		t.Fatalf("md5 under default: %v, %+v", err, ind)
	}
	if want := "900150983cd24fb0d6963f7d28e17f72"; hexs(d) != want {
		t.Fatalf("md5(abc) = %x", d)
	}
	// Unknown algorithms and wrong key sizes are input errors.
	if _, err := def.NewAEAD("aes-256-gcm", make([]byte, 31)); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("31-byte AES-256 key: %v", err)
	}
	if _, err := def.NewMAC("hmac-nope", []byte("k")); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("unknown MAC: %v", err)
	}
	if _, err := regula.Load("no-such-policy"); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("unknown policy: %v", err)
	}
}

func hexs(b []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 0, 2*len(b))
	for _, c := range b {
		s = append(s, digits[c>>4], digits[c&15])
	}
	return string(s)
}

// SHA-256 and SHA-512 agree with crypto/sha256 and crypto/sha512 for every write pattern;
// Sum does not finish the digest, Clone and Reset behave like the standard library's.
func TestHashAgainstStdlib(t *testing.T) {
	m := load(t, "fips-140-3")
	for _, c := range []struct {
		name string
		std  func() hash.Hash
		reg  func() hash.Hash
	}{
		{"sha256", sha256.New, m.SHA256},
		{"sha512", sha512.New, m.SHA512},
		{"sha384", sha512.New384, m.SHA384},
		{"sha224", sha256.New224, m.SHA224},
	} {
		data := random(t, 3000)
		std, reg := c.std(), c.reg()
		if reg.Size() != std.Size() || reg.BlockSize() != std.BlockSize() {
			t.Fatalf("%s: size %d/%d block %d/%d", c.name, reg.Size(), std.Size(), reg.BlockSize(), std.BlockSize())
		}
		for i := 0; i < len(data); {
			n := min(len(data)-i, 1+i%129)
			std.Write(data[i : i+n])
			if _, err := reg.Write(data[i : i+n]); err != nil {
				t.Fatal(err)
			}
			i += n
			if i%7 == 0 || i == len(data) {
				if got, want := reg.Sum([]byte{1}), std.Sum([]byte{1}); !bytes.Equal(got, want) {
					t.Fatalf("%s after %d bytes: %x, want %x", c.name, i, got, want)
				}
			}
		}
		clone, err := reg.(hash.Cloner).Clone()
		if err != nil {
			t.Fatal(err)
		}
		clone.Write([]byte("more"))
		std.Write([]byte("more"))
		if got, want := clone.Sum(nil), std.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s clone: %x, want %x", c.name, got, want)
		}
		reg.Reset()
		std.Reset()
		reg.Write([]byte("abc"))
		std.Write([]byte("abc"))
		if got, want := reg.Sum(nil), std.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s after Reset: %x, want %x", c.name, got, want)
		}
		sum, ind, err := reg.(*regula.Hash).SumIndicated(nil)
		if err != nil || !ind.Approved || ind.Algorithm != c.name || !bytes.Equal(sum, std.Sum(nil)) {
			t.Fatalf("%s SumIndicated: %v %+v", c.name, err, ind)
		}
	}
	// The crypto.Hash-style constructor and the one-shot digest.
	h, err := m.NewHashFor(crypto.SHA512)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(h, "abc")
	want := sha512.Sum512([]byte("abc"))
	if !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("NewHashFor(crypto.SHA512) differs from crypto/sha512")
	}
	d, _, err := m.Digest("sha256", []byte("abc"))
	if w := sha256.Sum256([]byte("abc")); err != nil || !bytes.Equal(d, w[:]) {
		t.Fatalf("Digest(sha256): %v", err)
	}
}

func TestHMACAgainstStdlib(t *testing.T) {
	m := load(t, "fips-140-3")
	for _, c := range []struct {
		alg string
		std func() hash.Hash
	}{{"hmac-sha256", sha256.New}, {"hmac-sha512", sha512.New}, {"hmac-sha384", sha512.New384}} {
		for _, keyLen := range []int{16, 32, 64, 200} {
			key, data := random(t, keyLen), random(t, 1+keyLen*13)
			k, err := m.NewMAC(c.alg, key)
			if err != nil {
				t.Fatal(err)
			}
			tag, ind, err := k.SignIndicated(data)
			if err != nil || !ind.Approved {
				t.Fatalf("%s: %v %+v", c.alg, err, ind)
			}
			mac := hmac.New(c.std, key)
			mac.Write(data)
			want := mac.Sum(nil)
			if !bytes.Equal(tag, want) {
				t.Fatalf("%s key %d: %x, want %x", c.alg, keyLen, tag, want)
			}
			if err := k.Verify(data, want); err != nil {
				t.Fatalf("%s: Verify of crypto/hmac's tag: %v", c.alg, err)
			}
			want[0] ^= 1
			if err := k.Verify(data, want); !errors.Is(err, regula.ErrAuthentication) {
				t.Fatalf("%s: Verify of a flipped tag: %v", c.alg, err)
			}
			k.Close()
			if _, err := k.Sign(data); err == nil {
				t.Fatal("Sign after Close succeeded")
			}
		}
	}
}

// AES-CMAC, RFC 4493 example 2 (the NIST SP 800-38B AES-128 key).
func TestCMACVector(t *testing.T) {
	m := load(t, "fips-140-3")
	key := unhex(t, "2b7e151628aed2a6abf7158809cf4f3c")
	msg := unhex(t, "6bc1bee22e409f96e93d7e117393172a")
	k, err := m.NewMAC("aes-128-cmac", key)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := k.Sign(msg)
	if err != nil || hexs(tag) != "070a16b46b4d4144f79bdd9dd04a287c" {
		t.Fatalf("AES-CMAC: %x, %v", tag, err)
	}
}

// GMAC is GCM with the data as AAD and an empty message (SP 800-38D): the tag equals the one
// crypto/cipher's GCM makes.
func TestGMACAgainstStdlib(t *testing.T) {
	m := load(t, "default")
	key, nonce, data := random(t, 16), random(t, 12), random(t, 300)
	k, err := m.NewMAC("aes-128-gmac", key)
	if err != nil {
		t.Fatal(err)
	}
	tag, ind, err := k.SignWithNonce(nonce, data)
	if err != nil {
		t.Fatal(err)
	}
	if want := stdGCM(t, key).Seal(nil, nonce, nil, data); !bytes.Equal(tag, want) {
		t.Fatalf("GMAC %x, want %x", tag, want)
	}
	if ind.Algorithm != "aes-128-gmac" {
		t.Fatalf("indicator %+v", ind)
	}
}

func unhex(t testing.TB, s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		var v byte
		for _, c := range s[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			case c >= 'a' && c <= 'f':
				v |= byte(c - 'a' + 10)
			default:
				t.Fatalf("bad hex %q", s)
			}
		}
		b[i] = v
	}
	return b
}

// ECDSA signatures made by the module verify with crypto/ecdsa; signatures made by
// crypto/ecdsa verify with the module, and a changed message does not.
func TestECDSAAgainstStdlib(t *testing.T) {
	m := load(t, "fips-140-3")
	for _, c := range []struct {
		alg  string
		hash crypto.Hash
	}{{"ecdsa-p256", crypto.SHA256}, {"ecdsa-p384", crypto.SHA384}, {"ecdsa-p521", crypto.SHA512}} {
		k, err := m.GenerateKey(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		pub, ok := k.Public().(*ecdsa.PublicKey)
		if !ok {
			t.Fatalf("%s: Public() is %T", c.alg, k.Public())
		}
		msg := []byte("message for " + c.alg)
		sig, err := crypto.SignMessage(k, nil, msg, c.hash)
		if err != nil {
			t.Fatal(err)
		}
		h := c.hash.New()
		h.Write(msg)
		digest := h.Sum(nil)
		if !ecdsa.VerifyASN1(pub, digest, sig) {
			t.Fatalf("%s: crypto/ecdsa rejects the module's signature", c.alg)
		}
		h.Write([]byte("x"))
		if ecdsa.VerifyASN1(pub, h.Sum(nil), sig) {
			t.Fatalf("%s: crypto/ecdsa accepts the signature for another message", c.alg)
		}
		// The other way: a crypto/ecdsa key and signature, checked by the module.
		goKey, _ := ecdsa.GenerateKey(pub.Curve, rand.Reader)
		goSig, _ := ecdsa.SignASN1(rand.Reader, goKey, digest)
		spki, _ := x509.MarshalPKIXPublicKey(&goKey.PublicKey)
		if _, err := m.Verify(c.alg, spki, msg, goSig); err != nil {
			t.Fatalf("%s: the module rejects crypto/ecdsa's signature: %v", c.alg, err)
		}
		if _, err := m.Verify(c.alg, spki, append(msg, 'x'), goSig); !errors.Is(err, regula.ErrAuthentication) {
			t.Fatalf("%s: wrong message: %v", c.alg, err)
		}
		// A precomputed digest cannot be signed, and a mismatched hash is refused.
		if _, err := k.Sign(nil, digest, c.hash); !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("%s: Sign(digest): %v", c.alg, err)
		}
		if _, err := k.SignMessage(nil, msg, crypto.SHA1); !errors.Is(err, regula.ErrInvalidInput) {
			t.Fatalf("%s: SignMessage with SHA-1 opts: %v", c.alg, err)
		}
		// A key imported from crypto/x509's PKCS #8 signs too.
		der, _ := x509.MarshalPKCS8PrivateKey(goKey)
		imported, err := m.ImportKey(c.alg, der)
		if err != nil {
			t.Fatal(err)
		}
		sig, err = imported.SignMessage(nil, msg, c.hash)
		if err != nil || !ecdsa.VerifyASN1(&goKey.PublicKey, digest, sig) {
			t.Fatalf("%s: imported key: %v", c.alg, err)
		}
	}
}

func TestEd25519AgainstStdlib(t *testing.T) {
	m := load(t, "fips-140-3")
	k, err := m.GenerateKey("ed25519")
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := k.Public().(ed25519.PublicKey)
	if !ok {
		t.Fatalf("Public() is %T", k.Public())
	}
	msg := []byte("an Ed25519 message")
	sig, err := k.Sign(nil, msg, crypto.Hash(0))
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(pub, msg, sig) {
		t.Fatal("crypto/ed25519 rejects the module's signature")
	}
	if ed25519.Verify(pub, append(msg, '!'), sig) {
		t.Fatal("crypto/ed25519 accepts it for another message")
	}
	// RFC 8032 §7.1 TEST 1 through an imported key: the module's signature is the RFC's.
	seed := unhex(t, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	der, _ := x509.MarshalPKCS8PrivateKey(ed25519.NewKeyFromSeed(seed))
	imported, err := m.ImportKey("ed25519", der)
	if err != nil {
		t.Fatal(err)
	}
	sig, err = imported.Sign(nil, nil, crypto.Hash(0))
	want := "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
	if err != nil || hexs(sig) != want {
		t.Fatalf("RFC 8032 TEST 1: %x, %v", sig, err)
	}
	// Ed25519ctx and Ed25519ph are not offered: refused, never signed without the context.
	if _, err := imported.Sign(nil, msg, &ed25519.Options{Context: "ctx"}); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("Ed25519 with a context: %v", err)
	}
	if _, err := imported.Sign(nil, msg, &ed25519.Options{Hash: crypto.SHA512}); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("Ed25519ph: %v", err)
	}
	goSig := ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg)
	if _, err := m.Verify("ed25519", imported.PublicKeyDER(), msg, goSig); err != nil {
		t.Fatalf("the module rejects crypto/ed25519's signature: %v", err)
	}
}

func TestRSAPSSAgainstStdlib(t *testing.T) {
	if testing.Short() {
		t.Skip("RSA key generation")
	}
	m := load(t, "fips-140-3")
	k, err := m.GenerateRSAKey("rsa-pss-sha256", 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub := k.Public().(*rsa.PublicKey)
	msg := []byte("an RSA message")
	opts := &rsa.PSSOptions{Hash: crypto.SHA256, SaltLength: rsa.PSSSaltLengthEqualsHash}
	sig, err := crypto.SignMessage(k, nil, msg, opts)
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(msg)
	if err := rsa.VerifyPSS(pub, crypto.SHA256, d[:], sig, opts); err != nil {
		t.Fatalf("crypto/rsa rejects the module's PSS signature: %v", err)
	}
	if _, err := k.SignMessage(nil, msg, crypto.SHA256); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("PSS key with PKCS #1 v1.5 opts: %v", err)
	}
}

func TestRandomReader(t *testing.T) {
	m := load(t, "fips-140-3")
	a, b := make([]byte, 64), make([]byte, 64)
	if _, err := io.ReadFull(m.Random(), a); err != nil {
		t.Fatal(err)
	}
	m.Random().Read(b)
	if bytes.Equal(a, b) || bytes.Equal(a, make([]byte, 64)) {
		t.Fatal("DRBG output repeats or is zero")
	}
	ind, err := m.RandomIndicated(b)
	if err != nil || !ind.Approved || ind.Algorithm != "ctr-drbg" {
		t.Fatalf("%v %+v", err, ind)
	}
	// Usable where the standard library takes a rand source.
	if _, err := ecdsa.GenerateKey(ecdsaCurve(), m.Random()); err != nil {
		t.Fatal(err)
	}
}

// Indicator scopes: sticky "not approved" after a flagged operation, per scope.
func TestScopeIndicator(t *testing.T) {
	m := load(t, "default")
	s, err := m.NewScope()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.State() != regula.IndicatorUnset {
		t.Fatalf("new scope: %v", s.State())
	}
	if _, _, err := s.Module().Digest("sha256", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if s.State() != regula.IndicatorApproved {
		t.Fatalf("after sha256: %v", s.State())
	}
	h, _ := s.Module().NewHash("md5")
	h.Write([]byte("x"))
	h.Sum(nil)
	if s.State() != regula.IndicatorNotApproved || s.Module().IndicatorState() != regula.IndicatorNotApproved {
		t.Fatalf("after md5: %v", s.State())
	}
	other, _ := m.NewScope()
	defer other.Close()
	if other.State() != regula.IndicatorUnset {
		t.Fatal("scopes share their state")
	}
	s.Reset()
	if s.State() != regula.IndicatorUnset {
		t.Fatal("Reset did not clear the scope")
	}
}

// The module in its error state (a self-test broken on purpose, in a child process) refuses
// every service with ErrErrorState.
func TestErrorState(t *testing.T) {
	if os.Getenv("REGULA_BREAK_SELFTEST") != "" {
		m, err := regula.Load("default")
		if !errors.Is(err, regula.ErrErrorState) || m == nil || m.State() != regula.StateError {
			t.Fatalf("Load with a broken self-test: %v", err)
		}
		if m.FailedSelfTest() != os.Getenv("REGULA_BREAK_SELFTEST") {
			t.Fatalf("failed self-test %q", m.FailedSelfTest())
		}
		if _, err := m.NewHash("sha256"); !errors.Is(err, regula.ErrErrorState) {
			t.Fatalf("hash in error state: %v", err)
		}
		if _, err := m.NewAEAD("aes-256-gcm", make([]byte, 32)); !errors.Is(err, regula.ErrErrorState) {
			t.Fatalf("aead in error state: %v", err)
		}
		if _, err := m.Random().Read(make([]byte, 8)); !errors.Is(err, regula.ErrErrorState) {
			t.Fatalf("random in error state: %v", err)
		}
		if _, err := m.GenerateKey("ecdsa-p256"); !errors.Is(err, regula.ErrErrorState) {
			t.Fatalf("keygen in error state: %v", err)
		}
		return
	}
	for _, name := range []string{"AES-GCM", "SHA2-256"} {
		cmd := childTest(t, "TestErrorState", "REGULA_BREAK_SELFTEST="+name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("REGULA_BREAK_SELFTEST=%s: %v\n%s", name, err, out)
		}
	}
}

func TestBuildInfo(t *testing.T) {
	info, err := regula.BuildInfo()
	if err != nil || info.Version == "" || !strings.Contains(info.Backend, "AWS-LC") {
		t.Fatalf("%+v %v", info, err)
	}
	t.Logf("%+v", info)
}
