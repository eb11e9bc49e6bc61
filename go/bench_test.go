package regula_test

// Benchmarks (not tests): Regula through this binding against Go's standard library, for
// AES-256-GCM seal and SHA-256 at 64 B, 8 KiB and 1 MiB, and the cost per call of crossing
// from Go into the library. scripts/bench-go runs them with -count and summarises; run them
// under GODEBUG=fips140=on to compare with Go's own FIPS 140-3 module.
//
//	go test -run '^$' -bench . -count 6

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"fmt"
	"testing"

	"regula.example/regula"
)

var benchSizes = []int{64, 8 << 10, 1 << 20}

func BenchmarkAES256GCMSeal(b *testing.B) {
	m := load(b, "default")
	key, nonce := make([]byte, 32), make([]byte, 12)
	reg, err := m.NewAEAD("aes-256-gcm", key)
	if err != nil {
		b.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	std, _ := cipher.NewGCM(block)
	for _, size := range benchSizes {
		for _, impl := range []struct {
			name string
			aead cipher.AEAD
		}{{"regula", reg}, {"stdlib", std}} {
			b.Run(fmt.Sprintf("%s/%d", impl.name, size), func(b *testing.B) {
				buf := make([]byte, size, size+16)
				b.SetBytes(int64(size))
				for b.Loop() {
					impl.aead.Seal(buf[:0], nonce, buf, nil)
				}
			})
		}
	}
}

func BenchmarkSHA256(b *testing.B) {
	m := load(b, "default")
	for _, size := range benchSizes {
		data := make([]byte, size)
		b.Run(fmt.Sprintf("regula/%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			h := m.SHA256()
			var out []byte
			for b.Loop() {
				h.Reset()
				h.Write(data)
				out = h.Sum(out[:0])
			}
		})
		b.Run(fmt.Sprintf("regula-oneshot/%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				m.Digest("sha256", data)
			}
		})
		b.Run(fmt.Sprintf("stdlib/%d", size), func(b *testing.B) {
			b.SetBytes(int64(size))
			h := sha256.New()
			var out []byte
			for b.Loop() {
				h.Reset()
				h.Write(data)
				out = h.Sum(out[:0])
			}
		})
	}
}

// BenchmarkCallOverhead: "null" is one cgo call into the library doing nothing
// (regula_aead_tag_len); "seal-go" a 64-byte AES-256-GCM Seal through this binding and
// "seal-c" the same seal called from a loop in C. seal-go − seal-c is the binding's cost
// per call (cgo crossing, handle lock, thread lock, slice handling).
func BenchmarkCallOverhead(b *testing.B) {
	m := load(b, "default")
	a, err := m.NewAEAD("aes-256-gcm", make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	ra := a.(*regula.AEAD)
	b.Run("null", func(b *testing.B) {
		for b.Loop() {
			regula.BenchNullCall(ra)
		}
	})
	nonce := make([]byte, 12)
	buf := make([]byte, 64, 80)
	b.Run("seal-go/64", func(b *testing.B) {
		for b.Loop() {
			a.Seal(buf[:0], nonce, buf, nil)
		}
	})
	b.Run("seal-c/64", func(b *testing.B) {
		if err := regula.BenchSealC(ra, 64, b.N); err != nil {
			b.Fatal(err)
		}
	})
}
