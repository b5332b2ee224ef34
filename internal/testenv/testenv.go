// Package testenv lets tests demand the real parts they need: in CI (CI=true) a missing part fails the test, on a
// developer's machine it skips the test with the command that installs it.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI, where nothing may be skipped.
func InCI() bool { return os.Getenv("CI") == "true" }

// Require fails (in CI) or skips the test when command is not on PATH; install says how to get it.
func Require(t testing.TB, command, install string) string {
	t.Helper()
	path, err := exec.LookPath(command)
	if err == nil {
		return path
	}
	Missing(t, command+" not found: "+install)
	return ""
}

// Missing fails (in CI) or skips the test because a part it needs is missing; why says what and how to install it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("required in CI: %s", why)
	}
	t.Skip(why)
}
