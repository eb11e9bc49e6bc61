package regula

import (
	"crypto"
	"crypto/rsa"
	"errors"
)

// checkPSS accepts the options a PSS key can honour: the module uses a salt as long as the
// digest (RFC 8446 §4.2.3), and a PKCS #1 v1.5 key must not be asked for PSS.
func checkPSS(pss bool, opts crypto.SignerOpts) error {
	po, isPSS := opts.(*rsa.PSSOptions)
	if !pss {
		if isPSS {
			return errors.New("a PKCS #1 v1.5 key cannot make a PSS signature")
		}
		return nil
	}
	if !isPSS {
		return errors.New("an RSA-PSS key needs *rsa.PSSOptions")
	}
	if po.SaltLength != rsa.PSSSaltLengthEqualsHash && po.SaltLength != po.Hash.Size() {
		return errors.New("the module's PSS salt is as long as the digest")
	}
	return nil
}
