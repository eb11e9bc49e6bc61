package regula_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log"
	"os"
	"strings"
	"testing"

	"regula.example/regula"
)

// The README's "Using Regula from Go" example: its body is copied there verbatim (a test
// checks), and `go test` runs it and compares the output.
func Example() {
	m, err := regula.Load("fips-140-3") // runs the power-on self-tests
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	// AES-256-GCM as a crypto/cipher.AEAD, with nonces generated inside the module: the
	// approved form under FIPS 140-3 (a caller's nonce is refused there).
	key := make([]byte, 32)
	if _, err := io.ReadFull(m.Random(), key); err != nil { // the module's DRBG
		log.Fatal(err)
	}
	aead, err := m.NewAEADWithRandomNonce("aes-256-gcm", key)
	if err != nil {
		log.Fatal(err)
	}
	sealed := aead.Seal(nil, nil, []byte("hello from Go"), []byte("header"))
	plain, err := aead.Open(nil, nil, sealed, []byte("header"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%d bytes sealed)\n", plain, len(sealed))

	// SHA-256 as a hash.Hash, with the service indicator of the operation.
	h := m.SHA256()
	io.WriteString(h, "abc")
	sum, ind, err := h.(*regula.Hash).SumIndicated(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%x… %s approved=%v under %s\n", sum[:4], ind.Algorithm, ind.Approved, ind.Policy)

	// MD5 is refused by the policy.
	_, err = m.NewHash("md5")
	fmt.Println("md5 refused:", errors.Is(err, regula.ErrNotApproved))

	// An ECDSA P-256 key held by the module, as a crypto.Signer for crypto/tls or crypto/x509
	// (tls.Certificate{PrivateKey: signer, ...}).
	signer, err := m.GenerateKey("ecdsa-p256")
	if err != nil {
		log.Fatal(err)
	}
	defer signer.Close()
	msg := []byte("signed inside the module")
	sig, err := crypto.SignMessage(signer, nil, msg, crypto.SHA256)
	digest := sha256.Sum256(msg)
	fmt.Println("crypto/ecdsa verifies:", err == nil && ecdsa.VerifyASN1(signer.Public().(*ecdsa.PublicKey), digest[:], sig))
	// Output:
	// hello from Go (41 bytes sealed)
	// ba7816bf… sha256 approved=true under fips-140-3
	// md5 refused: true
	// crypto/ecdsa verifies: true
}

// The README holds Example's body verbatim (dedented), between its markers.
func TestReadmeHasExample(t *testing.T) {
	fset := token.NewFileSet()
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile(fset, "example_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Example" {
			start, end := fset.Position(fn.Body.Lbrace).Offset+2, fset.Position(fn.Body.Rbrace).Offset
			body = string(src[start:end])
		}
	}
	body, _, _ = strings.Cut(body, "\t// Output:")
	var lines []string
	for line := range strings.SplitSeq(strings.TrimRight(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(line, "\t"))
	}
	snippet := strings.Join(lines, "\n")
	if len(lines) < 10 {
		t.Fatalf("could not find Example's body:\n%s", snippet)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "<!-- using-regula-from-go:begin -->")
	section, _, ok2 := strings.Cut(section, "<!-- using-regula-from-go:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no using-regula-from-go markers")
	}
	if !strings.Contains(section, snippet) {
		t.Fatalf("README.md's Go example differs from Example's body; it should contain:\n%s", snippet)
	}
}
