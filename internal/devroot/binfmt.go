package devroot

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

const binfmtDir = "/proc/sys/fs/binfmt_misc"

// binfmtEntry is a registration that runs one foreign ELF machine through a static qemu.
type binfmtEntry struct {
	name, interpreter string
	magic, mask       []byte
}

// The magic and mask of Debian's own /usr/lib/binfmt.d/qemu-{aarch64,arm}.conf: little-endian ELF executables and
// shared objects of the machine (EM_AARCH64 183, EM_ARM 40).
var (
	binfmtAArch64 = binfmtEntry{"qemu-aarch64", "/usr/bin/qemu-aarch64-static",
		elfMagic(2, 0xb7), elfMask()}
	binfmtARM = binfmtEntry{"qemu-arm", "/usr/bin/qemu-arm-static",
		elfMagic(1, 0x28), elfMask()}
)

func elfMagic(class, machine byte) []byte {
	return []byte{0x7f, 'E', 'L', 'F', class, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, machine, 0}
}

func elfMask() []byte {
	return []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff}
}

var binfmtMu sync.Mutex

// RequireBinfmt makes ARM programs (aarch64 and 32-bit ARM) run directly on this machine, as a device's kernel runs
// them, chroots included: it mounts binfmt_misc when it is not, and registers qemu-aarch64-static and
// qemu-arm-static with the F flag (the kernel opens the interpreter at registration, so it works inside a root that
// lacks it) unless an equivalent registration is there already.
//
// This changes the whole machine, not only the test: the registrations stay after the test, as binfmt-support
// would leave them. It is idempotent; a registration of the machine's own for these magics with the F flag is used
// as it is.
func RequireBinfmt(t testing.TB) {
	t.Helper()
	testenv.SkipInShort(t, "runs ARM programs through qemu")
	requireRoot(t)
	for _, e := range []binfmtEntry{binfmtAArch64, binfmtARM} {
		if _, err := os.Stat(e.interpreter); err != nil {
			testenv.Missing(t, e.interpreter+" not found: apt-get install qemu-user-static (scripts/setup does it)")
		}
	}
	binfmtMu.Lock()
	defer binfmtMu.Unlock()
	if err := mountBinfmt(); err != nil {
		testenv.Missing(t, "binfmt_misc: "+err.Error())
	}
	for _, e := range []binfmtEntry{binfmtAArch64, binfmtARM} {
		if err := e.ensure(); err != nil {
			t.Fatalf("binfmt_misc: %v", err)
		}
	}
}

func mountBinfmt() error {
	if _, err := os.Stat(filepath.Join(binfmtDir, "register")); err == nil {
		return nil
	}
	if err := run(timeoutShort, "mount", "-t", "binfmt_misc", "binfmt_misc", binfmtDir); err != nil {
		return fmt.Errorf("not mounted and cannot be: %w", err)
	}
	return nil
}

// ensure registers e unless an enabled entry with its magic, its mask and the F flag exists. A name taken by an entry
// that does not fit (no F flag: it would not work in a chroot) is left alone; ours gets a name of its own, and the
// kernel tries the newest registration first. A registration that fails because another test process registered
// the same entry meanwhile is that entry.
func (e binfmtEntry) ensure() error {
	registered, name, err := e.find()
	if err != nil || registered {
		return err
	}
	line := fmt.Sprintf(":%s:M:0:%s:%s:%s:F", name, escape(e.magic), escape(e.mask), e.interpreter)
	if err := os.WriteFile(filepath.Join(binfmtDir, "register"), []byte(line), 0o200); err != nil {
		if registered, _, _ := e.find(); registered {
			return nil
		}
		return fmt.Errorf("registering %s: %w", e.interpreter, err)
	}
	return nil
}

// find reports whether an entry that fits e is registered, and the name to register it under otherwise.
func (e binfmtEntry) find() (registered bool, name string, err error) {
	entries, err := os.ReadDir(binfmtDir)
	if err != nil {
		return false, "", err
	}
	name = e.name
	for _, de := range entries {
		if de.Name() == "register" || de.Name() == "status" {
			continue
		}
		text, err := os.ReadFile(filepath.Join(binfmtDir, de.Name()))
		if err != nil {
			continue
		}
		if e.matches(string(text)) {
			return true, "", nil
		}
		if de.Name() == name {
			name = "bench-bridge-" + e.name
		}
	}
	return false, name, nil
}

// matches reads a registration as the kernel prints it ("enabled", "interpreter ...", "flags: F", "offset 0",
// "magic 7f454c46...", "mask ffff...").
func (e binfmtEntry) matches(text string) bool {
	fields := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, _ := strings.Cut(line, " ")
		fields[strings.TrimSuffix(k, ":")] = v
	}
	_, enabled := fields["enabled"]
	return enabled && strings.Contains(fields["flags"], "F") && fields["offset"] == "0" &&
		fields["magic"] == hex.EncodeToString(e.magic) && fields["mask"] == hex.EncodeToString(e.mask)
}

func escape(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		fmt.Fprintf(&s, `\x%02x`, c)
	}
	return s.String()
}
