package devroot

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestUserlandsRunTheirShell logs in to sshd in each ARM userland root with the test's key, checking its host key:
// the login shell is the architecture's busybox, whose emulated uname answers for the ARM CPU while the kernel's
// /proc/sys/kernel/arch names this machine's, and sftp works.
func TestUserlandsRunTheirShell(t *testing.T) {
	ssh := testenv.Require(t, "ssh", "apt-get install openssh-client")
	sftp := testenv.Require(t, "sftp", "apt-get install openssh-client")
	for _, tt := range []struct {
		u     Userland
		uname string
	}{{ARM64, "aarch64"}, {ARMHF, "armv7l"}, {ARMEL, "armv7l"}} {
		t.Run(tt.u.Arch, func(t *testing.T) {
			b := StartUserland(t, tt.u)
			host, port, _ := strings.Cut(b.Addr, ":")
			opts := []string{"-F", "none", "-i", b.Identity, "-o", "UserKnownHostsFile=" + b.KnownHosts,
				"-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes"}
			out, err := exec.Command(ssh, append(opts, "-p", port, "root@"+host,
				"uname -m; cat /proc/sys/kernel/arch; readlink /bin/sh; echo $0")...).CombinedOutput()
			if want := tt.uname + "\nx86_64\n/bin/busybox\n/bin/sh\n"; err != nil || string(out) != want {
				t.Fatalf("ssh: %v\n%q\nwant %q\nsshd:\n%s", err, out, want, b.Log())
			}
			out, err = exec.Command(sftp, append(opts, "-P", port, "-b", "-", "root@"+host)...).CombinedOutput()
			if err != nil {
				t.Errorf("sftp: %v\n%s", err, out)
			}
		})
	}
}
