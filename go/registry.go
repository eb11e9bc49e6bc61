package regula

/*
#include <regula.h>
*/
import "C"

import (
	"crypto"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// AlgorithmRow is one algorithm's registry row, as the C ABI's regula_algorithm_info reports it: the
// names and sizes the module itself uses. Strings are "" and sizes 0 where the row has no
// such fact (sizes in bytes).
type AlgorithmRow struct {
	Name          string // registry name, e.g. "aes-128-gcm"
	Family        string // "aead", "cipher", "digest", "mac", "kdf", "signature", "key-agreement", "kem", …
	Provider      string // "aws-lc" or "regula-sm"
	OID           string // dotted object identifier
	OpenSSLName   string // OpenSSL 3's canonical name, e.g. "AES-128-GCM"
	Hash          string // registry name of the hash it is built on (HMAC, HKDF, signatures)
	ACVPAlgorithm string // NIST ACVP algorithm of its test vectors
	ACVPRevision  string

	KeyMin, KeyMax     int // secret key lengths; 0 when any length is taken (HMAC, KDFs) or none
	NonceMin, NonceMax int // AEAD (and GMAC) nonce lengths
	IVLen              int // block-cipher mode IV (or XTS tweak)
	TagMin, TagMax     int // AEAD tag lengths
	BlockLen           int // cipher block, or the hash function's input block
	OutputLen          int // digest or MAC output; shared secret of a key agreement or KEM
	PublicKeyLen       int // encoded public key, where its size is fixed
	SignatureMaxLen    int // longest signature (exact for Ed25519 and ML-DSA)
	CiphertextLen      int // KEM ciphertext

	PKCS11Mechanism uint32 // CK_MECHANISM_TYPE of the operation, when PKCS11Count > 0
	PKCS11Count     int    // PKCS#11 mechanisms the row names (operation, then key generation)
}

func infoFrom(c *C.regula_algorithm_row) AlgorithmRow {
	str := func(p *C.char) string {
		if p == nil {
			return ""
		}
		return C.GoString(p)
	}
	return AlgorithmRow{
		Name: str(c.name), Family: str(c.family), Provider: str(c.provider), OID: str(c.oid),
		OpenSSLName: str(c.openssl_name), Hash: str(c.hash),
		ACVPAlgorithm: str(c.acvp_algorithm), ACVPRevision: str(c.acvp_revision),
		KeyMin: int(c.key_min), KeyMax: int(c.key_max),
		NonceMin: int(c.nonce_min), NonceMax: int(c.nonce_max), IVLen: int(c.iv_len),
		TagMin: int(c.tag_min), TagMax: int(c.tag_max), BlockLen: int(c.block_len),
		OutputLen: int(c.output_len), PublicKeyLen: int(c.public_key_len),
		SignatureMaxLen: int(c.signature_max_len), CiphertextLen: int(c.ciphertext_len),
		PKCS11Mechanism: uint32(c.pkcs11_mechanism), PKCS11Count: int(c.pkcs11_count),
	}
}

// registryRows reads every row once (the registry is fixed at build time).
var registryRows = sync.OnceValues(func() ([]AlgorithmRow, error) {
	n := int(C.regula_algorithm_count())
	rows := make([]AlgorithmRow, 0, n)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < n; i++ {
		var c C.regula_algorithm_row
		if err := lastError(C.regula_algorithm_info_at(C.size_t(i), &c), "algorithm info"); err != nil {
			return nil, err
		}
		rows = append(rows, infoFrom(&c))
	}
	return rows, nil
})

// Algorithms lists every algorithm's registry row, in registry order, whatever the policy
// (whether a policy serves one is a question for a loaded Module).
func Algorithms() []AlgorithmRow {
	rows, err := registryRows()
	if err != nil {
		// The C ABI refuses an index only past regula_algorithm_count().
		panic(err)
	}
	return slices.Clone(rows)
}

// AlgorithmInfo is the registry row of the algorithm called name (its registry name, any
// case). An unknown name is an *Error with code REGULA_ERR_INVALID_INPUT.
func AlgorithmInfo(name string) (AlgorithmRow, error) {
	const op = "algorithm info"
	cn, done := cname(name)
	var c C.regula_algorithm_row
	runtime.LockOSThread()
	rc := C.regula_algorithm_info(cn, &c)
	done(rc != C.REGULA_ERR_INVALID_INPUT)
	err := lastError(rc, op)
	runtime.UnlockOSThread()
	if err != nil {
		return AlgorithmRow{}, err
	}
	return infoFrom(&c), nil
}

// hashKey matches the standard library's hash names with the registry's: "SHA-256" and
// "sha256", "SHA3-256" and "sha3-256".
func hashKey(name string) string {
	// "SHA-512/256" (crypto.SHA512_256) and "sha512-256" (the row) meet as "sha512256".
	return strings.ToLower(strings.NewReplacer("-", "", "/", "").Replace(name))
}

// cryptoHashes pairs each standard library hash identifier with the module's digest of the
// same name, for the digests the registry has.
var cryptoHashes = sync.OnceValue(func() map[crypto.Hash]string {
	digests := map[string]string{}
	for _, info := range Algorithms() {
		if info.Family == "digest" {
			digests[hashKey(info.Name)] = info.Name
		}
	}
	hashes := map[crypto.Hash]string{}
	for h := crypto.MD4; h <= crypto.BLAKE2b_512; h++ {
		if name, ok := digests[hashKey(h.String())]; ok {
			hashes[h] = name
		}
	}
	return hashes
})

// cryptoHashFor is the standard library's identifier of the module's digest called name, or 0
// when it has none (SM3) or name is "".
func cryptoHashFor(name string) crypto.Hash {
	for h, digest := range cryptoHashes() {
		if digest == name {
			return h
		}
	}
	return 0
}
