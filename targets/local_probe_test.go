package targets

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestLocalLinuxDeviceHasLoadAndLibc: on Linux the local target records the load average and the C library, as an
// ssh device does.
func TestLocalLinuxDeviceHasLoadAndLibc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the local target reads load and libc on Linux")
	}
	l, err := NewLocal("linux", Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Device(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(strings.Fields(d.LoadAvg)) != 3 || d.Libc == "" {
		t.Fatalf("load_avg %q, libc %q: want three load averages and the C library", d.LoadAvg, d.Libc)
	}
}
