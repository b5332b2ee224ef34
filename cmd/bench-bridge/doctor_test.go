package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// withoutCLibrary puts a compiler of the same name first on PATH that runs the real one without its C library's
// headers, as when the -cross libc6-dev package is not installed: it then finds the host's <math.h> and stops at
// bits/libc-header-start.h, as Debian's cross compilers do.
func withoutCLibrary(t *testing.T, cc string) {
	t.Helper()
	real := testenv.Require(t, cc, "scripts/setup installs it")
	dir := t.TempDir()
	script := "#!/bin/sh\nexec " + real + " -nostdinc -isystem /usr/include \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, cc), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestDoctorNamesTheMissingCrossLibrary: a cross compiler that is on PATH but cannot compile a C program makes
// doctor fail the target's compiler and print the apt-get line with its -cross C library, with or without a device.
func TestDoctorNamesTheMissingCrossLibrary(t *testing.T) {
	withoutCLibrary(t, "arm-linux-gnueabi-gcc")
	withoutCLibrary(t, "aarch64-linux-gnu-gcc")
	t.Setenv("ANDROID_NDK_HOME", "")
	adbsim.StartServer(t) // a real adb server of the test's own, with no device: the device is missing too
	t.Setenv("ANDROID_SERIAL", "")
	stdout, stderr, code := run(t, "doctor", "webos", "android")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"MISSING  webos    compiler (webos)           toolchain webos: arm-linux-gnueabi-gcc cannot compile and statically link a C program: /usr/include/math.h:27:10: fatal error: bits/libc-header-start.h: No such file or directory",
		"fix: apt-get install gcc-arm-linux-gnueabi libc6-dev-armel-cross",
		"MISSING  android  compiler (aarch64)         toolchain aarch64: aarch64-linux-gnu-gcc cannot compile and statically link",
		"fix: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestDoctorAndroidWebOSPassHere: with a device for each (Debian's adbd in its root, through the real adb server; a real
// sshd), doctor finds every part of both on this machine, the cross compilers included.
func TestDoctorAndroidWebOSPassHere(t *testing.T) {
	android(t)
	srv, _ := webosDevice(t, sshdtest.Options{})
	stdout, stderr, code := run(t, "doctor", "android", "webos", "--host", srv.Host(), "--identity", srv.Identity, "--known-hosts", srv.KnownHosts)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"ok       android  compiler (aarch64)         aarch64-linux-gnu-gcc compiles and statically links a C program",
		"ok       webos    compiler (webos)           arm-linux-gnueabi-gcc compiles and statically links a C program",
		"ok       android  device", "ok       webos    device",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestDoctorRunsNoShellWithThePrefix: a run prefix is looked up as one word, never given to a shell, from the
// command line or from a bench-bridge.toml in the working directory.
func TestDoctorRunsNoShellWithThePrefix(t *testing.T) {
	testenv.Require(t, "cc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	const planted = "/tmp/x"
	if err := os.Remove(planted); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	prefix := "true;touch${IFS}/tmp/x"
	stdout, stderr, code := run(t, "doctor", localName(), "--run-prefix", prefix)
	if _, err := os.Stat(planted); err == nil {
		t.Fatalf("doctor ran the prefix in a shell: %s exists", planted)
	}
	if code != 1 || !strings.Contains(stdout, "MISSING  "+localName()+"    run prefix "+prefix) || !strings.Contains(stdout, "not found on this machine") {
		t.Errorf("want the prefix's first word missing: exit %d\n%s\n%s", code, stdout, stderr)
	}

	t.Chdir(t.TempDir())
	toml := "[targets." + localName() + "]\nkind = \"local\"\nrun_prefix = '" + prefix + "'\n"
	if err := os.WriteFile("bench-bridge.toml", []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run(t, "doctor")
	if _, err := os.Stat(planted); err == nil {
		t.Fatalf("doctor ran the config's prefix in a shell: %s exists", planted)
	}
	if code != 1 || !strings.Contains(stdout, "run prefix "+prefix) {
		t.Errorf("want the config's prefix checked: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A prefix that is a command is found, and the command line's wins over the config's, as in a run.
	stdout, _, code = run(t, "doctor", "--run-prefix", "nice -n 1")
	if code != 0 || !strings.Contains(stdout, "ok       "+localName()+"    run prefix nice") {
		t.Errorf("want nice found and the config's prefix not checked: exit %d\n%s", code, stdout)
	}
}
