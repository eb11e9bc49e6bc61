package regula_test

import (
	"crypto/elliptic"
	"os"
	"os/exec"
	"testing"
)

func ecdsaCurve() elliptic.Curve { return elliptic.P256() }

// childTest runs one test of this binary again in a child process with extra environment.
func childTest(t *testing.T, name string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
