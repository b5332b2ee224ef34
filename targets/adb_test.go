package targets

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/adbsim"
)

// simulated starts an adb server and one simulated device (programs run natively: these tests push shell scripts)
// and opens it as the android target.
func simulated(t *testing.T, opts adbsim.Options) (*ADB, *adbsim.Device) {
	t.Helper()
	return simulatedWith(t, opts, Overrides{})
}

// simulatedWith is simulated with the command line's overrides.
func simulatedWith(t *testing.T, opts adbsim.Options, o Overrides) (*ADB, *adbsim.Device) {
	t.Helper()
	srv := adbsim.StartServer(t)
	opts.QEMU = nil
	dev := adbsim.Start(t, opts)
	srv.Connect(t, dev, "device")
	t.Setenv("ANDROID_SERIAL", "")
	a, err := NewADB(context.Background(), "android", BuiltIn["android"], o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, dev
}

// pushScript pushes a shell script as the program.
func pushScript(t *testing.T, a *ADB, name, body string) string {
	t.Helper()
	local := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(local, []byte("#!/bin/sh\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	remote, err := a.Push(context.Background(), local)
	if err != nil {
		t.Fatal(err)
	}
	return remote
}

func TestADBRun(t *testing.T) {
	a, dev := simulated(t, adbsim.Emulator())
	if a.Serial() != dev.Addr() || a.Platform().ABI != "arm64-v8a" {
		t.Errorf("serial %s, platform %+v; want %s, arm64-v8a", a.Serial(), a.Platform(), dev.Addr())
	}
	// Pushed with mode 0755 (gadb's PushFile would make it 0664, not executable), stdout and stderr apart, the
	// arguments one word each, a non-zero status, and more output than one adb packet holds.
	prog := pushScript(t, a, "prog", `printf '%s|' "$@"; echo; echo oops >&2; head -c 600000 /dev/zero | tr '\0' x; exit 3`)
	var stdout, stderr bytes.Buffer
	err := a.Run(context.Background(), prog, []string{"a b", "it's", "$HOME"}, &stdout, &stderr)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Status != 3 {
		t.Fatalf("Run: %v, want exit status 3", err)
	}
	first, rest, _ := strings.Cut(stdout.String(), "\n")
	if first != "a b|it's|$HOME|" || len(rest) != 600000 || stderr.String() != "oops\n" {
		t.Errorf("stdout %q + %d bytes, stderr %q", first, len(rest), stderr.String())
	}
	prog = pushScript(t, a, "segv", `kill -SEGV $$`)
	if err := a.Run(context.Background(), prog, nil, &stdout, &stderr); !errors.As(err, &exit) || exit.Signal != "SIGSEGV" {
		t.Errorf("a program killed by SIGSEGV: %v", err)
	}

	local := filepath.Join(t.TempDir(), "pulled")
	if err := a.Pull(context.Background(), prog, local); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(local); !strings.Contains(string(b), "kill -SEGV") {
		t.Errorf("pulled %q", b)
	}
	if err := a.Pull(context.Background(), "/data/local/tmp/none", local); err == nil || !strings.Contains(err.Error(), dev.Addr()) {
		t.Errorf("pulling a missing file: %v", err)
	}

	dir := filepath.Join(dev.Root(), filepath.Dir(prog))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still on the device after Close: %v", dir, err)
	}
}

// TestADBKill cancels a run whose program hangs: the program must be gone from the device, not just the stream.
func TestADBKill(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(map[bool]string{false: "shell_v2", true: "legacy"}[legacy], func(t *testing.T) {
			opts := adbsim.Emulator()
			opts.NoShellV2 = legacy
			testKill(t, opts)
		})
	}
}

func testKill(t *testing.T, opts adbsim.Options) {
	a, dev := simulated(t, opts)
	prog := pushScript(t, a, "hang", "echo started; exec sleep 600\n")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout bytes.Buffer
	done := make(chan error)
	go func() { done <- a.Run(ctx, prog, nil, &stdout, &stdout) }()
	for deadline := time.Now().Add(10 * time.Second); len(dev.Running()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the program never started")
		}
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(dev.Running()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still run on the device after the run was cancelled", dev.Running())
		}
	}
}

func TestADBFacts(t *testing.T) {
	opts := adbsim.Emulator()
	opts.ThermalStatus = 2
	a, _ := simulated(t, opts)
	d, err := a.Device(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	an := d.Android
	if an == nil || an.Model != "sdk_gphone64_arm64" || an.SDK != "34" || an.Release != "14" || an.ABI != "arm64-v8a" ||
		!strings.HasPrefix(an.Fingerprint, "google/") || an.ThermalStatus == nil || *an.ThermalStatus != 2 ||
		an.BatteryCelsius == nil || *an.BatteryCelsius != 28.5 {
		t.Fatalf("android facts %+v", an)
	}
	if !d.Emulated || d.Arch != "aarch64" || d.Cores != 4 || d.OS != "Android 14 (SDK 34)" {
		t.Errorf("device %+v", d)
	}
	if len(d.CPUFreqs) != 4 || d.CPUFreqs[3].CPU != 3 || d.CPUFreqs[3].Governor != "schedutil" ||
		d.CPUFreqs[3].CurKHz != 1500000 || d.CPUFreqs[3].MaxKHz != 1800000 {
		t.Errorf("cpufreq %+v", d.CPUFreqs)
	}
	if len(d.Thermal) != 2 || d.Thermal[0].Zone != "cpu-thermal" || d.Thermal[0].Celsius != 41.5 {
		t.Errorf("thermal %+v", d.Thermal)
	}
	w := strings.Join(d.Warnings, "\n")
	if !strings.Contains(w, "clocks are not locked (cpu0,1,2,3 schedutil 300-1800 MHz)") || !strings.Contains(w, "thermal throttling (status moderate)") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// TestADBLegacyShell runs on an adbd without shell_v2 (before Android 7): the exit status and stderr still come back.
func TestADBLegacyShell(t *testing.T) {
	opts := adbsim.Emulator()
	opts.NoShellV2 = true
	a, _ := simulated(t, opts)
	prog := pushScript(t, a, "prog", `echo one; printf two; echo bad >&2; exit 7`)
	var stdout, stderr bytes.Buffer
	var exit *ExitError
	if err := a.Run(context.Background(), prog, nil, &stdout, &stderr); !errors.As(err, &exit) || exit.Status != 7 {
		t.Fatalf("Run: %v, want exit status 7", err)
	}
	if stdout.String() != "one\ntwo\n" || stderr.String() != "bad\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	stdout.Reset()
	prog = pushScript(t, a, "ok", `echo fine`)
	if err := a.Run(context.Background(), prog, nil, &stdout, &stderr); err != nil || stdout.String() != "fine\n" {
		t.Errorf("Run: %v, stdout %q", err, stdout.String())
	}
}

// TestADBChoosingDevice covers the errors a user meets before anything runs.
func TestADBChoosingDevice(t *testing.T) {
	srv := adbsim.StartServer(t)
	t.Setenv("ANDROID_SERIAL", "")
	open := func(serial string) error {
		_, err := NewADB(context.Background(), "android", Spec{Kind: "adb"}, Overrides{Serial: serial})
		return err
	}
	if err := open(""); err == nil || !strings.Contains(err.Error(), "no Android device attached") {
		t.Errorf("no device: %v", err)
	}
	opts := adbsim.Emulator()
	opts.Unauthorized = true
	locked := adbsim.Start(t, opts)
	srv.Connect(t, locked, "unauthorized")
	if err := open(""); err == nil || !strings.Contains(err.Error(), "device "+locked.Addr()+" is unauthorized: unlock the device and accept") {
		t.Errorf("unauthorized: %v", err)
	}
	opts = adbsim.Emulator()
	opts.Offline = true
	silent := adbsim.Start(t, opts)
	srv.Connect(t, silent, "offline")
	if err := open(silent.Addr()); err == nil || !strings.Contains(err.Error(), "device "+silent.Addr()+" is offline: adbd on the device does not answer") {
		t.Errorf("offline: %v", err)
	}
	good := adbsim.Start(t, adbsim.Emulator())
	srv.Connect(t, good, "device")
	err := open("")
	for _, want := range []string{"3 devices attached", good.Addr() + " (device, sdk_gphone64_arm64)", locked.Addr() + " (unauthorized)", "--serial or ANDROID_SERIAL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("several devices: %v, want %q in it", err, want)
		}
	}
	if err := open("emulator-5554"); err == nil || !strings.Contains(err.Error(), "no device emulator-5554 (adb devices lists ") {
		t.Errorf("unknown serial: %v", err)
	}
	named := Spec{Kind: "adb", Serial: good.Addr()}
	if a, err := NewADB(context.Background(), "pixel", named, Overrides{}); err != nil || a.Serial() != good.Addr() {
		t.Errorf("a config target naming %s: %v", good.Addr(), err)
	}
	t.Setenv("ANDROID_SERIAL", good.Addr())
	if err := open(""); err != nil {
		t.Errorf("ANDROID_SERIAL=%s: %v", good.Addr(), err)
	}
}

// TestADBRunPrefixIsWords: the run prefix reaches adbd's shell as quoted words, as on every target; before, adb put
// it into the shell line as it was, so that $(...) and | in it ran on the device.
func TestADBRunPrefixIsWords(t *testing.T) {
	a, _ := simulatedWith(t, adbsim.Emulator(), Overrides{RunPrefix: "env BENCH=$(id)|x;y"})
	prog := pushScript(t, a, "prog", `echo "BENCH=$BENCH"`)
	var stdout, stderr bytes.Buffer
	if err := a.Run(context.Background(), prog, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v: %s", err, stderr.String())
	}
	if stdout.String() != "BENCH=$(id)|x;y\n" {
		t.Errorf("stdout %q: the prefix was read by a shell", stdout.String())
	}
	d, err := a.Device(context.Background())
	if err != nil || d.RunPrefix != "env BENCH=$(id)|x;y" {
		t.Errorf("device run prefix %q, %v", d.RunPrefix, err)
	}
	if _, err := NewADB(context.Background(), "android", BuiltIn["android"], Overrides{RunPrefix: `env A="x y"`}); err == nil ||
		!strings.Contains(err.Error(), "shell syntax") {
		t.Errorf("a prefix with quotes: %v", err)
	}
}
