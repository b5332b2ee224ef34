package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/devroot"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestMain runs the tests, then ends what they shared: the devices and the built command.
func TestMain(m *testing.M) {
	stopADB := ownADBPort()
	code := m.Run()
	sharedAndroid.Close()
	sharedBoard.Close()
	builtCLI.Close()
	stopADB()
	os.Exit(code)
}

// ownADBPort points the tests' adb servers at a free port of their own (ANDROID_ADB_SERVER_PORT, which a test that
// has a device of its own sets again), and returns what kills the server there. `bench-bridge targets` and doctor
// start an adb server when none answers, as adb does: on the default port 5037 it outlived the tests, and a later
// run with another adb version (a Debian 13 root on this machine) met it there ("protocol fault").
func ownADBPort() (stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return func() {}
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	os.Setenv("ANDROID_ADB_SERVER_PORT", port)
	return func() {
		if _, err := exec.LookPath("adb"); err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		exec.CommandContext(ctx, "adb", "-P", port, "kill-server").Run() // none there: adb says so, and nothing is lost
	}
}

// cliBuildFlags are go build's flags for the command that tests run as a process of its own; under -race it is
// built with the detector too (race_test.go), so that its signal handling is raced as well.
var cliBuildFlags []string

// builtCLI is bench-bridge built once, for every test that runs it as a process: to signal it, or through
// scripts/bench and scripts/nightly (BENCH_BRIDGE_BIN).
var builtCLI = testenv.NewShared("bench-bridge, built", func(t testing.TB) string {
	bin := filepath.Join(t.TempDir(), "bench-bridge")
	args := append(append([]string{"build"}, cliBuildFlags...), "-o", bin, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
})

// cli returns the path of the built bench-bridge, building it on first use.
func cli(t *testing.T) string {
	t.Helper()
	testenv.SkipInShort(t, "runs bench-bridge as a process of its own")
	return builtCLI.Get(t)
}

// requireCC is for a test that builds bench programs with this machine's compiler and runs them: -short skips it,
// and CI fails it when there is no compiler.
func requireCC(t *testing.T) {
	t.Helper()
	testenv.SkipInShort(t, "builds and runs bench programs")
	testenv.Require(t, "cc", "apt-get install gcc libc6-dev (scripts/setup does it)")
}

// androidDevice is Debian's real adbd and a real adb server of the tests' own connected to it.
type androidDevice struct {
	*devroot.Android
	server *adbsim.Server
}

// connectAndroid starts adbd (a trixie root with mksh, toybox and a getprop that says it is an arm64 phone, not an
// emulator) and an adb server connected to it, for as long as t lasts.
func connectAndroid(t testing.TB) androidDevice {
	dev := devroot.StartAndroid(t)
	srv := adbsim.NewServer(t)
	srv.ConnectAddr(t, dev.Serial, "device")
	return androidDevice{dev, srv}
}

// sharedAndroid is the device of every test that leaves it running.
var sharedAndroid = testenv.NewShared("adbd and its adb server", connectAndroid)

// android returns the shared device, with the test's environment pointing bench-bridge at its adb server. The bench
// programs are cross-built with Debian's aarch64 compiler and run on the device through binfmt_misc and
// qemu-aarch64-static, as a kernel runs foreign binaries: only uname -m against the ABI shows the emulation.
func android(t *testing.T) *devroot.Android {
	t.Helper()
	requireAArch64(t)
	return useAndroid(t, sharedAndroid.Get(t))
}

// ownAndroid starts a device for the test alone: one the test takes away.
func ownAndroid(t *testing.T) *devroot.Android {
	t.Helper()
	requireAArch64(t)
	return useAndroid(t, connectAndroid(t))
}

func requireAArch64(t *testing.T) {
	t.Helper()
	testenv.SkipInShort(t, "runs bench programs on real adbd")
	testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross (scripts/setup does it)")
}

func useAndroid(t *testing.T, d androidDevice) *devroot.Android {
	t.Setenv("ANDROID_ADB_SERVER_PORT", strconv.Itoa(d.server.Port))
	t.Setenv("ANDROID_SERIAL", "")
	return d.Android
}

// sharedBoard is the dropbear + busybox board of every test that needs one; none takes it away.
var sharedBoard = testenv.NewShared("the dropbear board", devroot.StartBoard)

// requireEngine fails (in CI) or skips t where this machine lacks what engine's floor is built with, saying how to
// install it.
func requireEngine(t *testing.T, name string) {
	t.Helper()
	e, err := engines.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Check(engines.Local()); !st.Have {
		testenv.Missing(t, e.Title+": "+st.Detail+": "+st.Fix)
	}
}
