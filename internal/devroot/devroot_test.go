package devroot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/adbsim"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestAndroidRunsARMPrograms starts real adbd, connects the real adb server to it and runs an arm64 program on it
// through binfmt_misc, with the Android-like userland around it.
func TestAndroidRunsARMPrograms(t *testing.T) {
	cc := testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross")
	dev := StartAndroid(t)
	srv := adbsim.StartServer(t)
	srv.ConnectAddr(t, dev.Serial, "device")
	prog := filepath.Join(t.TempDir(), "hello")
	src := prog + ".c"
	os.WriteFile(src, []byte("#include <stdio.h>\nint main(void){puts(\"hello from arm64\");return 3;}\n"), 0o644)
	if out, err := exec.Command(cc, "-static", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := srv.ADB("-s", dev.Serial, "push", prog, "/data/local/tmp/hello"); err != nil {
		t.Fatalf("adb push: %v\n%s", err, out)
	}
	out, err := srv.ADB("-s", dev.Serial, "shell", "/data/local/tmp/hello; echo status=$?; getprop ro.product.cpu.abi; "+
		"getprop ro.kernel.qemu; echo sh=$(readlink /proc/$$/exe); command -v ls")
	if err != nil {
		t.Fatalf("adb shell: %v\n%s", err, out)
	}
	for _, want := range []string{"hello from arm64\nstatus=3\narm64-v8a\n\nsh=/usr/bin/mksh\n/system/bin/ls"} {
		if !strings.Contains(out, want) {
			t.Errorf("adb shell printed %q, want %q", out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dev.Root(), "data/local/tmp/hello")); err != nil {
		t.Errorf("the pushed file is not on the device: %v", err)
	}
	if out, _ := srv.ADB("-s", dev.Serial, "shell", "echo preload=$LD_PRELOAD"); !strings.Contains(out, "preload=\n") {
		t.Errorf("adbd's shell inherits LD_PRELOAD: %q", out)
	}
	dev.Vanish()
	if dev.Root() != "" || len(dev.processes()) > 0 {
		t.Errorf("processes left after Vanish: %v", dev.processes())
	}
}

// TestBoardRunsARMPrograms logs in to dropbear on the busybox board with the test's key, checking its host key, and
// runs an ARMv7 softfp program through binfmt_misc.
func TestBoardRunsARMPrograms(t *testing.T) {
	cc := testenv.Require(t, "arm-linux-gnueabi-gcc", "apt-get install gcc-arm-linux-gnueabi libc6-dev-armel-cross")
	ssh := testenv.Require(t, "ssh", "apt-get install openssh-client")
	b := StartBoard(t)
	prog := filepath.Join(b.Root(), "tmp/hello")
	src := filepath.Join(t.TempDir(), "hello.c")
	os.WriteFile(src, []byte("#include <stdio.h>\nint main(void){puts(\"hello from armel\");return 3;}\n"), 0o644)
	if out, err := exec.Command(cc, "-march=armv7-a", "-mfloat-abi=softfp", "-static", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	host, port, _ := strings.Cut(b.Addr, ":")
	out, err := exec.Command(ssh, "-F", "none", "-i", b.Identity, "-o", "UserKnownHostsFile="+b.KnownHosts,
		"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-p", port, "root@"+host,
		"/tmp/hello; echo status=$?; readlink /bin/ps; ls /usr/lib/openssh 2>&1; uname -m").CombinedOutput()
	if want := "hello from armel\nstatus=3\n/bin/busybox\n"; err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("ssh: %v\n%s\nwant %q\ndropbear:\n%s", err, out, want, b.Log())
	}
}
