package targets

import (
	"context"
	"io"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/fakesys"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// phoneTree lays a phone's sysfs tree out in a fresh directory and returns it.
func phoneTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := fakesys.Phone(root); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestRemoteSysfsFromItsMaking: the sysfs root a remote target is made with is what its cores, its state and its
// probe read, from the start.
func TestRemoteSysfsFromItsMaking(t *testing.T) {
	sh := testenv.Require(t, "sh", "apt-get install dash")
	root := phoneTree(t)
	pr := linuxProbe
	pr.inline = true // the test's transport pushes nothing
	r, err := newRemote("dev", "device sh", "test:sh", Platform{}, t.TempDir(), "", root, io.Discard, shellTransport{[]string{sh}}, pr)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cpus := r.Capabilities().CPUs
	cores, err := cpus.Cores(ctx)
	if err != nil || len(cores) != 8 || cores[7].MaxKHz != fakesys.BigMaxKHz {
		t.Fatalf("cores %+v, %v", cores, err)
	}
	if s, err := cpus.State(ctx); err != nil || s.FreqKHz[0] != fakesys.LittleCurKHz || len(s.Thermal) != len(fakesys.Thermal) {
		t.Errorf("state %+v, %v", s, err)
	}
	d, err := r.Device(ctx)
	if err != nil || len(d.CPUFreqs) != 8 || d.CPUFreqs[4].CurKHz != fakesys.BigCurKHz || len(d.Thermal) != len(fakesys.Thermal) {
		t.Errorf("device %+v, %v", d, err)
	}
}
