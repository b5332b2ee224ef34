package testenv

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// Chromium finds Debian's chromium: missing, the test fails under CI and is skipped elsewhere.
func Chromium(t testing.TB) string {
	t.Helper()
	return Require(t, "chromium", "apt-get install chromium (scripts/setup installs it)")
}

// RunChromium runs a headless Chromium with a profile of its own and nothing to fetch from the network.
func RunChromium(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %q: %v\n%s", args, err, stderr.String())
	}
	return out
}
