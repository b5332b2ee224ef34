// Package testenv lets tests demand the real parts they need: in CI (CI=true) a missing part fails the test, on a
// developer's machine it skips the test with the command that installs it. It also keeps the edit loop's -short run
// to the tests that need no real device and time nothing, leaves a few tests to the nightly's scripts/test --full,
// and lets the tests of a package share a part.
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

// SkipInShort skips the test under -short, the edit loop's quick run (scripts/test --quick): the test starts a real
// device or server, builds and runs bench programs, or times something; what says which. CI never runs -short.
func SkipInShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the test " + what)
	}
}

// Full reports whether the run is scripts/test --full, the nightly workflow's (BENCH_BRIDGE_FULL=1).
func Full() bool { return os.Getenv("BENCH_BRIDGE_FULL") == "1" }

// SkipUnlessFull skips the test but in scripts/test --full: the test repeats, with another part or setting, what a
// test of the landing run proves, and the nightly workflow runs it; why says what it adds. docs/contributing.md lists
// these tests.
func SkipUnlessFull(t testing.TB, why string) {
	t.Helper()
	if !Full() {
		t.Skip("scripts/test --full and the nightly run it: " + why)
	}
}
