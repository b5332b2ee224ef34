package devroot

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// debianMirror is where debootstrap and apt get trixie.
const debianMirror = "http://deb.debian.org/debian"

// androidPackages make the root Android-like: AOSP's adbd as Debian builds it, mksh (Android's shell), toybox
// (Android's command set) and strace, which userdebug builds of Android carry (profile android uses it).
var androidPackages = []string{"adbd", "mksh", "toybox", "strace"}

// getprop answers the ro.* properties of a physical arm64 phone. ro.kernel.qemu is not set: the device does not say
// it is an emulator; only `uname -m` (the host's kernel) against its ABI shows that its programs are emulated.
const getprop = `#!/system/bin/sh
props='ro.product.cpu.abi=arm64-v8a
ro.product.cpu.abilist=arm64-v8a
ro.product.model=Devroot 1
ro.product.manufacturer=bench-bridge
ro.product.device=devroot
ro.build.version.release=14
ro.build.version.sdk=34
ro.build.fingerprint=bench-bridge/devroot/devroot:14/UP1A/1:user/test-keys'
if [ $# -eq 0 ]; then
  echo "$props" | while IFS='=' read -r k v; do echo "[$k]: [$v]"; done
  exit 0
fi
v=$(echo "$props" | while IFS='=' read -r k v; do [ "$k" = "$1" ] && echo "$v"; done)
echo "${v:-$2}"
`

// noVsock is preloaded into adbd: adbd also listens on vsock, which no network namespace confines (the hypervisor
// could reach it), so socket(AF_VSOCK, ...) fails for it as on a machine without vsock. It takes itself out of the
// environment, so the shells and programs adbd starts do not inherit it.
const noVsock = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

__attribute__((constructor)) static void forget(void) { unsetenv("LD_PRELOAD"); }

int socket(int domain, int type, int protocol) {
	static int (*real)(int, int, int);
	if (domain == AF_VSOCK) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real(domain, type, protocol);
}
`

// noVsockLib is where the root holds it.
const noVsockLib = "/usr/lib/bench-bridge-novsock.so"

// AndroidPath is the PATH adbd's shells get: toybox's commands first, as on a phone.
const AndroidPath = "/system/bin:/usr/bin:/usr/sbin"

// AndroidRoot returns the cached Android-like root, making it on first use: a minbase trixie from debootstrap with
// adbd, mksh as /bin/sh, toybox's commands in /system/bin, a getprop, /data/local/tmp and device nodes of its own.
func AndroidRoot(t testing.TB) string {
	t.Helper()
	requireRoot(t)
	testenv.Require(t, "debootstrap", "apt-get install debootstrap (scripts/setup does it)")
	testenv.Require(t, "cc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	return cached(t, "android-trixie", makeAndroidRoot)
}

func makeAndroidRoot(dir string) error {
	// In a mount namespace of its own: the /proc and /sys debootstrap mounts in the root vanish with it.
	if err := run(timeoutRoot, "unshare", append(unshareMounts(), "debootstrap", "--variant=minbase", "trixie", dir, debianMirror)...); err != nil {
		return err
	}
	if err := mknodDevices(dir); err != nil {
		return err
	}
	// No service starts in the root while packages install.
	if err := os.WriteFile(filepath.Join(dir, "usr/sbin/policy-rc.d"), []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil {
		return err
	}
	install := append([]string{"/usr/bin/env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "--no-install-recommends"}, androidPackages...)
	if err := inRoot(dir, timeoutRoot, install...); err != nil {
		return err
	}
	if err := inRoot(dir, timeoutShort, "apt-get", "clean"); err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(dir, "var/lib/apt/lists"))
	out, err := exec.Command("chroot", dir, "toybox").Output()
	if err != nil {
		return fmt.Errorf("toybox in the root: %w", err)
	}
	bin := filepath.Join(dir, "system/bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, c := range strings.Fields(string(out)) {
		if c == "sh" || c == "toybox" {
			continue
		}
		if err := os.Symlink("/usr/bin/toybox", filepath.Join(bin, c)); err != nil {
			return err
		}
	}
	for link, target := range map[string]string{"system/bin/sh": "/usr/bin/mksh", "usr/bin/sh": "mksh"} {
		p := filepath.Join(dir, link)
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "getprop"), []byte(getprop), 0o755); err != nil {
		return err
	}
	src := filepath.Join(dir, "tmp", "novsock.c")
	if err := os.WriteFile(src, []byte(noVsock), 0o644); err != nil {
		return err
	}
	defer os.Remove(src)
	if err := run(timeoutShort, "cc", "-O2", "-shared", "-fPIC", "-o", filepath.Join(dir, noVsockLib), src, "-ldl"); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(dir, "data/local/tmp"), 0o777)
}

// inRoot runs argv chrooted in dir, in mount and pid namespaces of its own with /proc and a devpts instance of its
// own: nothing of this machine's /dev is visible to maintainer scripts.
func inRoot(dir string, timeout time.Duration, argv ...string) error {
	script := "set -e\nmount -t proc proc " + shq(dir+"/proc") + "\nmount -t devpts -o newinstance,ptmxmode=0666 devpts " +
		shq(dir+"/dev/pts") + "\nexec chroot " + shq(dir) + " " + shWords(argv)
	return run(timeout, "unshare", append(unshareMounts(), "--pid", "--fork", "--kill-child", "sh", "-c", script)...)
}

// Android is Debian's real adbd serving TCP in a network namespace of the test's own, chrooted in an overlay of the
// Android-like root.
type Android struct {
	*daemon
	// Serial is what adb connect takes and adb devices lists: the device's address in its namespace.
	Serial string
}

// StartAndroid starts adbd for the test and stops it at cleanup. ARM programs run on it through binfmt_misc
// (RequireBinfmt). The port is outside 5555-5585, which the adb server would also report as an emulator.
func StartAndroid(t testing.TB) *Android {
	t.Helper()
	RequireBinfmt(t)
	root := AndroidRoot(t)
	// adbd listens on every interface and cannot be told one address: a network namespace keeps it off this
	// machine's interfaces.
	ns := sshdtest.NewNamespace(t)
	_, devAddr := sshdtest.Link(t, nil, ns)
	port := 6000 + int(time.Now().UnixNano()%3000)
	d := newDaemon(t, root)
	d.start(t, ns.Name, []string{"ADBD_PORT=" + strconv.Itoa(port), "PATH=" + AndroidPath, "HOME=/data/local/tmp",
		"TMPDIR=/data/local/tmp", "LD_PRELOAD=" + noVsockLib}, "/usr/sbin/adbd")
	a := &Android{daemon: d, Serial: net.JoinHostPort(devAddr, strconv.Itoa(port))}
	deadline := time.Now().Add(timeoutShort)
	for !strings.Contains(d.Log(), "adbd started") {
		if d.exited() || time.Now().After(deadline) {
			t.Fatalf("adbd did not start:\n%s", d.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return a
}

// Running lists the processes on the device other than adbd itself, as "pid command".
func (a *Android) Running() []string { return a.running() }

// Vanish takes the device away at once, as a cable pulled out: adbd and everything it runs are killed.
func (a *Android) Vanish() { a.stop() }
