package regula_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"regula.example/regula"
)

// An SM2 key made with `openssl genpkey -algorithm SM2`, and a ciphertext OpenSSL 3.0 made to
// its public key (the ASN.1 SM2Cipher of GM/T 0009-2012):
//
//	printf 'message from openssl' > msg
//	openssl pkeyutl -encrypt -pubin -inkey sm2_pub.pem -in msg | xxd -p
//
// The same key and ciphertext as the C test (crates/regula-ffi/tests/c/test_regula.c).
const (
	sm2Key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqBHM9VAYItBG0wawIBAQQgNkfjy+KFsySJxkws
G5tz94D5+u+uXVgcgJ7Tq6xbNh+hRANCAATwo7L15/SQISFOfUn0JX9Gfxu/3Af4
PeQdj2G7M67oumAejaeaHlLcLC1lhNk/7gfTOmuJ8jaGZxcHS8wlGt5h
-----END PRIVATE KEY-----
`
	sm2Pub = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAE8KOy9ef0kCEhTn1J9CV/Rn8bv9wH
+D3kHY9huzOu6LpgHo2nmh5S3CwtZYTZP+4H0zprifI2hmcXB0vMJRreYQ==
-----END PUBLIC KEY-----
`
	sm2OpenSSLCiphertext = "307d0220023871706f399dc91d2e5620345296331af87110a060bcb1abc805af6351fe41022100c6c3d2cbac93f0" +
		"0ec070697a607f5cefd61a2a42ec4777c829566fe73295c36a0420f715dcd6812e9381061727ffd1bd3c18157356" +
		"8f6abb7c936222037f32b6b9f10414d1950fb3182de7a6cece6e73154d20a79126a645"
)

// OpenSSL's ciphertext decrypts with OpenSSL's key; a flipped byte is refused.
func TestSM2DecryptOpenSSLCiphertext(t *testing.T) {
	m := load(t, "gm")
	k, err := m.ImportDecryptionKey("sm2-encrypt", []byte(sm2Key))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ct, _ := hex.DecodeString(sm2OpenSSLCiphertext)
	pt, ind, err := k.DecryptIndicated(ct, regula.CiphertextASN1)
	if err != nil || string(pt) != "message from openssl" {
		t.Fatalf("decrypt OpenSSL's ciphertext: %q, %v", pt, err)
	}
	if ind.Algorithm != "sm2-encrypt" || ind.Service != "decrypt" || ind.Policy != "gm" || !ind.Approved {
		t.Fatalf("indicator %+v", ind)
	}
	ct[len(ct)-1] ^= 1
	if _, err := k.Decrypt(nil, ct, nil); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("flipped byte: %v", err)
	}
	if _, err := k.Decrypt(nil, ct, crypto.SHA256); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("unsupported opts: %v", err)
	}
}

// Round trips through crypto.Decrypter, in both layouts, to a generated and an imported key.
func TestSM2EncryptDecrypt(t *testing.T) {
	m := load(t, "gm")
	gen, err := m.GenerateDecryptionKey("sm2-encrypt")
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	imp, err := m.ImportDecryptionKey("sm2-encrypt", []byte(sm2Key))
	if err != nil {
		t.Fatal(err)
	}
	defer imp.Close()
	pub, ok := gen.Public().(*regula.PublicKey)
	if !ok || pub.Algorithm != "sm2-encrypt" || len(pub.DER) != 91 {
		t.Fatalf("Public() is %T %+v", gen.Public(), gen.Public())
	}
	msg := []byte("encrypted to the public key")
	for _, c := range []struct {
		key    *regula.DecryptionKey
		public []byte
	}{{gen, pub.DER}, {imp, []byte(sm2Pub)}} {
		var d crypto.Decrypter = c.key
		for _, format := range []regula.CiphertextFormat{regula.CiphertextASN1, regula.CiphertextC1C3C2} {
			ct, ind, err := m.EncryptToPublicKey("sm2-encrypt", c.public, msg, format)
			if err != nil || ind.Service != "encrypt" || !ind.Approved {
				t.Fatalf("encrypt (format %d): %v %+v", format, err, ind)
			}
			if format == regula.CiphertextC1C3C2 && (len(ct) != len(msg)+97 || ct[0] != 0x04) {
				t.Fatalf("C1C3C2 ciphertext of %d bytes", len(ct))
			}
			var opts crypto.DecrypterOpts
			if format != regula.CiphertextASN1 {
				opts = &regula.DecrypterOpts{Format: format}
			}
			pt, err := d.Decrypt(rand.Reader, ct, opts)
			if err != nil || !bytes.Equal(pt, msg) {
				t.Fatalf("decrypt (format %d): %q, %v", format, pt, err)
			}
			if pt, err := d.Decrypt(nil, ct, format); err != nil || !bytes.Equal(pt, msg) {
				t.Fatalf("decrypt with CiphertextFormat opts: %v", err)
			}
		}
	}
	// A ciphertext made to one key does not decrypt with the other.
	ct, _, err := m.EncryptToPublicKey("sm2-encrypt", pub.DER, msg, regula.CiphertextASN1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := imp.Decrypt(nil, ct, nil); !errors.Is(err, regula.ErrAuthentication) {
		t.Fatalf("decrypt with another key: %v", err)
	}
	if _, _, err := m.EncryptToPublicKey("sm2-encrypt", pub.DER, nil, regula.CiphertextASN1); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("empty plaintext: %v", err)
	}
	gen.Close()
	if _, err := gen.Decrypt(nil, ct, nil); !errors.Is(err, regula.ErrInvalidInput) {
		t.Fatalf("decrypt after Close: %v", err)
	}
}

// SM2 encryption is not approved under fips-140-3.
func TestSM2EncryptionRefusedUnderFIPS(t *testing.T) {
	m := load(t, "fips-140-3")
	if _, err := m.GenerateDecryptionKey("sm2-encrypt"); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("generate: %v", err)
	}
	if _, err := m.ImportDecryptionKey("sm2-encrypt", []byte(sm2Key)); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("import: %v", err)
	}
	if _, _, err := m.EncryptToPublicKey("sm2-encrypt", []byte(sm2Pub), []byte("x"), regula.CiphertextASN1); !errors.Is(err, regula.ErrNotApproved) {
		t.Fatalf("encrypt: %v", err)
	}
}
