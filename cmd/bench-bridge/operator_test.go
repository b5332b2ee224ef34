package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

func TestDoctorFindsPresentAndMissingParts(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc")
	stdout, stderr, code := run(t, "doctor", localName())
	if code != 0 || !strings.Contains(stdout, "ok       "+localName()+"    compiler (host)") || !strings.Contains(stdout, "reachable, runs programs") {
		t.Fatalf("doctor with every part present: exit %d\n%s\n%s", code, stdout, stderr)
	}

	t.Setenv("CC", "no-such-cc-for-bench-bridge")
	stdout, stderr, code = run(t, "doctor", localName(), "nowhere", "--quickjs-src", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "a required part is missing") {
		t.Fatalf("doctor with parts missing: exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		`MISSING  linux    compiler (host)            toolchain host: C compiler "no-such-cc-for-bench-bridge" not found`,
		"fix: CC is no-such-cc-for-bench-bridge: install it, or unset CC to use the system's compiler (Debian: apt-get install gcc libc6-dev)",
		"MISSING  -        QuickJS source",
		"fix: point --quickjs-src",
		"MISSING  nowhere  definition                 unknown target",
		"fix: declare it under [targets.nowhere] in bench-bridge.toml",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestPlainProgressWhenNotATerminal checks that output for logs (CI) has no cursor control, one line per case.
func TestPlainProgressWhenNotATerminal(t *testing.T) {
	requireCC(t)
	out := filepath.Join(t.TempDir(), "floor.json")
	_, stderr, code := run(t, "floor", localName(), "--cases", "callback", "--runs", "1", "--samples", "3", "--min-time", "2ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\r\033") {
		t.Errorf("terminal control characters in non-terminal output: %q", stderr)
	}
	if !strings.Contains(stderr, "floor-"+localName()+": callback ") || !strings.Contains(stderr, "(2/2)") {
		t.Errorf("want a plain line per case with its count:\n%s", stderr)
	}
	_, stderr, _ = run(t, "floor", localName(), "--cases", "callback", "--runs", "1", "--samples", "3", "--min-time", "2ms", "--out", out, "--quiet")
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("--quiet printed %q", stderr)
	}
}

// interruptRun runs a real bench-bridge process with args, sends it SIGINT once the first case (ref_js_loop) is measured,
// and checks that it stops within 30 s with exit status 130 and an artifact at out that keeps the finished case,
// marks the running one interrupted and says it is incomplete.
func interruptRun(t *testing.T, out string, args ...string) {
	t.Helper()
	cmd := exec.Command(cli(t), append(args, "--out", out)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "ref_js_loop") { // the first case is measured; the second is running
			break
		}
	}
	var rest strings.Builder
	copied := make(chan struct{})
	go func() { io.Copy(&rest, stderr); close(copied) }()
	// The program's line that begins the second case may come a moment after the first case's result (over adb it
	// often does): wait a little, well inside the second case, which lasts at least twice samples x min-time (the
	// reference loop is measured beside it).
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("bench-bridge did not stop within 30 s of SIGINT")
	}
	<-copied
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130\n%s", code, rest.String())
	}
	a := readArtifact(t, out)
	if a.Complete || a.Case("ref_js_loop") == nil || len(a.Failures) != 1 || a.Failures[0].Reason != "interrupted" {
		t.Errorf("artifact after SIGINT: complete=%v cases=%d failures=%+v\nstderr after SIGINT:\n%s", a.Complete, len(a.Cases), a.Failures, rest.String())
	}
}

// TestInterruptKeepsWhatWasMeasured interrupts a run on this machine.
func TestInterruptKeepsWhatWasMeasured(t *testing.T) {
	requireCC(t)
	interruptRun(t, filepath.Join(t.TempDir(), "floor.json"), "floor", localName(), "--runs", "1", "--samples", "6", "--min-time", "50ms")
}

// TestInterruptOnAndroid interrupts a run on real adbd: besides the artifact, the program must be killed on the device
// and the per-build directory removed.
func TestInterruptOnAndroid(t *testing.T) {
	dev := android(t)
	interruptRun(t, filepath.Join(t.TempDir(), "floor-android.json"), "floor", "android", "--runs", "1", "--samples", "20", "--min-time", "20ms")
	assertNothingRuns(t, dev.Running)
	assertCleanedUp(t, dev.Root())
}
