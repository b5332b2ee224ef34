package devroot

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestLabHostServesItsPhones starts a lab host with two phones: adb on this machine, pointed at the lab's server
// with -H and -P, lists both and runs a command on each, though this machine has no link to either phone.
func TestLabHostServesItsPhones(t *testing.T) {
	lab := StartLabHost(t, 2)
	adb := func(args ...string) string {
		t.Helper()
		argv := append([]string{"-H", lab.Addr, "-P", strconv.Itoa(lab.Port)}, args...)
		out, err := runWithDeadline(exec.Command("adb", argv...), timeoutShort)
		if err != nil {
			t.Fatalf("adb %s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		return string(out)
	}
	list := adb("devices")
	for _, p := range lab.Phones {
		if !strings.Contains(list, p.Serial+"\tdevice") {
			t.Errorf("adb devices on this machine lacks %s:\n%s", p.Serial, list)
		}
		if out := adb("-s", p.Serial, "shell", "echo hello from $(getprop ro.product.model)"); !strings.Contains(out, "hello from Devroot 1") {
			t.Errorf("adb shell on %s: %q", p.Serial, out)
		}
	}
}
