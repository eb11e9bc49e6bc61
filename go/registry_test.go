package regula_test

import (
	"bytes"
	"crypto"
	"crypto/sha512"
	"encoding/json"
	"errors"
	"hash"
	"os"
	"strings"
	"testing"

	"regula.example/regula"
)

func TestAlgorithmInfo(t *testing.T) {
	rows := regula.Algorithms()
	if len(rows) == 0 {
		t.Fatal("Algorithms() is empty")
	}
	m := load(t, "default")
	for _, row := range rows {
		for _, name := range []string{row.Name, strings.ToUpper(row.Name)} {
			got, err := regula.AlgorithmInfo(name)
			if err != nil || got != row {
				t.Fatalf("AlgorithmInfo(%q) = %+v, %v; Algorithms() has %+v", name, got, err, row)
			}
		}
		if row.KeyMin > row.KeyMax || row.NonceMin > row.NonceMax || row.TagMin > row.TagMax {
			t.Errorf("%s: a minimum above its maximum: %+v", row.Name, row)
		}
		// A digest's hash.Hash reports the row's sizes, and the digest is that long.
		if row.Family == "digest" {
			h, err := m.NewHash(row.Name)
			if errors.Is(err, regula.ErrNotApproved) {
				continue
			}
			if err != nil {
				t.Fatalf("NewHash(%s): %v", row.Name, err)
			}
			if h.Size() != row.OutputLen || h.BlockSize() != row.BlockLen || len(h.Sum(nil)) != row.OutputLen {
				t.Errorf("%s: hash.Hash sizes %d/%d, row %d/%d", row.Name, h.Size(), h.BlockSize(), row.OutputLen, row.BlockLen)
			}
		}
	}

	// Known answers from the standards: FIPS 180-4 (SHA-256: 32-byte digest, 64-byte block;
	// PKCS#11 CKM_SHA256 = 0x250), FIPS 204 Table 2 (ML-DSA-65: 1952-byte public key,
	// 3309-byte signature), SP 800-38C (AES-CCM: nonce 7-13, tag 4-16).
	sha256, _ := regula.AlgorithmInfo("sha256")
	if sha256.OutputLen != 32 || sha256.BlockLen != 64 || sha256.PKCS11Mechanism != 0x250 || sha256.OID != "2.16.840.1.101.3.4.2.1" {
		t.Errorf("sha256: %+v", sha256)
	}
	mldsa, _ := regula.AlgorithmInfo("ml-dsa-65")
	if mldsa.PublicKeyLen != 1952 || mldsa.SignatureMaxLen != 3309 || mldsa.Family != "signature" {
		t.Errorf("ml-dsa-65: %+v", mldsa)
	}
	ccm, _ := regula.AlgorithmInfo("aes-128-ccm")
	if ccm.NonceMin != 7 || ccm.NonceMax != 13 || ccm.TagMin != 4 || ccm.TagMax != 16 || ccm.KeyMin != 16 {
		t.Errorf("aes-128-ccm: %+v", ccm)
	}

	// An unknown name is a typed error naming it; so is a digest or signature the registry
	// does not have.
	if _, err := regula.AlgorithmInfo("no-such-algorithm"); !errors.Is(err, regula.ErrInvalidInput) || !strings.Contains(err.Error(), "no-such-algorithm") {
		t.Errorf("unknown name: %v", err)
	}
	for _, name := range []string{"sha512-224", "sha3-224", "aes-128-gcm"} {
		if _, err := m.NewHash(name); !errors.Is(err, regula.ErrInvalidInput) {
			t.Errorf("NewHash(%s): %v", name, err)
		}
	}
	// A digest the registry has is reachable by name and by the standard library's identifier,
	// and agrees with crypto/sha512 (SHA-512/256, FIPS 180-4 §6.7).
	for _, get := range []func() (hash.Hash, error){
		func() (hash.Hash, error) { return m.NewHash("sha512-256") },
		func() (hash.Hash, error) { return m.NewHashFor(crypto.SHA512_256) },
	} {
		h, err := get()
		if err != nil {
			t.Fatalf("sha512-256: %v", err)
		}
		h.Write([]byte("abc"))
		want := sha512.Sum512_256([]byte("abc"))
		if got := h.Sum(nil); h.Size() != 32 || !bytes.Equal(got, want[:]) {
			t.Errorf("sha512-256(abc) = %x (size %d), want %x", got, h.Size(), want)
		}
	}
	if _, err := m.GenerateKey("sha256"); !errors.Is(err, regula.ErrInvalidInput) {
		t.Errorf("GenerateKey(sha256): %v", err)
	}
}

// TestAlgorithmsMatchRegulaInfo compares every row with `regula info --json`, whose path
// scripts/test-go gives in REGULA_INFO_JSON.
func TestAlgorithmsMatchRegulaInfo(t *testing.T) {
	path := os.Getenv("REGULA_INFO_JSON")
	if path == "" {
		t.Skip("REGULA_INFO_JSON (the output of `regula info --json`) is not set; scripts/test-go sets it")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type lengths struct{ Min, Max int }
	var info struct {
		Implementations []struct {
			Row struct {
				Name, Family, Provider string
				OID                    *string
				Hash                   *string
				OpenSSL                *struct{ Names string }
				ACVP                   *struct{ Algorithm, Revision string }
				PKCS11                 []struct{ Value uint32 }
				Sizes                  struct {
					Key, Nonce, Tag                          *lengths
					IV, Block, Output, Signature, Ciphertext *int
					PublicKey                                *int `json:"public_key"`
				}
			}
		}
	}
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	rows := regula.Algorithms()
	if len(rows) != len(info.Implementations) || len(rows) == 0 {
		t.Fatalf("Algorithms() has %d rows, regula info %d", len(rows), len(info.Implementations))
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	size := func(n *int) int {
		if n == nil {
			return 0
		}
		return *n
	}
	span := func(l *lengths) [2]int {
		if l == nil {
			return [2]int{}
		}
		return [2]int{l.Min, l.Max}
	}
	for i, item := range info.Implementations {
		r := item.Row
		want := regula.AlgorithmRow{
			Name: r.Name, Family: r.Family, Provider: r.Provider, OID: str(r.OID), Hash: str(r.Hash),
			IVLen: size(r.Sizes.IV), BlockLen: size(r.Sizes.Block), OutputLen: size(r.Sizes.Output),
			PublicKeyLen: size(r.Sizes.PublicKey), SignatureMaxLen: size(r.Sizes.Signature),
			CiphertextLen: size(r.Sizes.Ciphertext), PKCS11Count: len(r.PKCS11),
		}
		want.KeyMin, want.KeyMax = span(r.Sizes.Key)[0], span(r.Sizes.Key)[1]
		want.NonceMin, want.NonceMax = span(r.Sizes.Nonce)[0], span(r.Sizes.Nonce)[1]
		want.TagMin, want.TagMax = span(r.Sizes.Tag)[0], span(r.Sizes.Tag)[1]
		if r.OpenSSL != nil {
			want.OpenSSLName, _, _ = strings.Cut(r.OpenSSL.Names, ":")
		}
		if r.ACVP != nil {
			want.ACVPAlgorithm, want.ACVPRevision = r.ACVP.Algorithm, r.ACVP.Revision
		}
		if len(r.PKCS11) > 0 {
			want.PKCS11Mechanism = r.PKCS11[0].Value
		}
		if rows[i] != want {
			t.Errorf("row %d:\n Go:          %+v\n regula info: %+v", i, rows[i], want)
		}
	}
}
