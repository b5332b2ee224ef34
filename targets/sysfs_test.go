package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
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
	r, err := newDevice(deviceParts{name: "dev", label: "device sh", machine: "test:sh", workdir: t.TempDir(), sysfs: root,
		tr: shellTransport{[]string{sh}}, probe: pr})
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

// hostileSysfs are sysfs roots a config could hold that a shell would read as syntax.
var hostileSysfs = []string{"/x y", "/x'y", `/x"y`, "/x$(touch INJECTED)", "/x`touch INJECTED`", "/x;touch INJECTED",
	"/x|y", "/x&y", "/x\ny", "/x*", "/x\\y", "/$HOME", "~/sys", "sys", "relative/sys"}

// TestCheckSysfs: an absolute path of letters, digits and ._/+@,:- is a sysfs root; anything else is refused,
// naming what is wrong.
func TestCheckSysfs(t *testing.T) {
	for _, ok := range []string{"", "/sys", "/", "/fakesys", "/tmp/TestX123/001", "/data/a.b_c-d+e@f,g:h/"} {
		if err := CheckSysfs(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range hostileSysfs {
		err := CheckSysfs(bad)
		if err == nil {
			t.Errorf("%q is accepted", bad)
			continue
		}
		if want := "is not allowed"; strings.HasPrefix(bad, "/") && !strings.Contains(err.Error(), want) ||
			!strings.HasPrefix(bad, "/") && !strings.Contains(err.Error(), "want an absolute path") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestOpenChecksTheSysfs: a spec whose sysfs root is shell syntax opens no target, and the error names the target's
// sysfs key; a plain root (a phone's tree in a temporary directory) opens, and the target reads its cores there.
func TestOpenChecksTheSysfs(t *testing.T) {
	ctx := context.Background()
	for _, bad := range hostileSysfs {
		tgt, err := Open(ctx, "box", map[string]Spec{"box": {Kind: "local", Sysfs: bad}}, Overrides{})
		if want := fmt.Sprintf("targets.box.sysfs %q: ", bad); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, %v; want an error starting %s", bad, tgt, err, want)
		}
	}
	root := phoneTree(t)
	tgt, err := Open(ctx, "box", map[string]Spec{"box": {Kind: "local", Sysfs: root}}, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if cores, err := tgt.Capabilities().CPUs.Cores(ctx); err != nil || len(cores) != 8 {
		t.Errorf("cores under %s: %+v, %v", root, cores, err)
	}
}

// TestProbeScriptsWithAHostileSysfs: withSysfs puts the root into the probe scripts as one quoted word, so that even
// a root full of shell syntax (which CheckSysfs refuses before it gets there) is a path to the shell: the scripts of
// the Linux and Android probes read the phone's tree laid out under it, and nothing in its name runs. It shows too
// that every /sys path of those scripts stands outside other quotes.
func TestProbeScriptsWithAHostileSysfs(t *testing.T) {
	sh := testenv.Require(t, "sh", "apt-get install dash")
	base := t.TempDir()
	root := filepath.Join(base, `sys it's "q" $(touch INJECTED); touch INJECTED `+"`touch INJECTED` * $HOME")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fakesys.Phone(root); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]string{"linux": linuxProbe.script, "android": androidProbe.script} {
		cmd := exec.Command(sh, "-c", withSysfs(script, root))
		cmd.Dir = base
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		var d artifact.Device
		if name == "linux" {
			d = linuxProbe.parse(out)
		} else {
			d = androidProbe.parse(out)
		}
		if d.Governor != "schedutil" || len(d.CPUFreqs) != 8 || d.CPUFreqs[4].CurKHz != fakesys.BigCurKHz ||
			len(d.Thermal) != len(fakesys.Thermal) || d.Thermal[0].Zone != fakesys.Thermal[0][0] {
			t.Errorf("%s: the probe did not read the tree: %+v\n%s", name, d, out)
		}
		if name == "android" && !strings.Contains(string(out), "battery_temp="+fakesys.Battery["temp"]+"\n") {
			t.Errorf("android: the battery's temperature is not the tree's:\n%s", out)
		}
	}
	for _, dir := range []string{base, root} {
		if _, err := os.Stat(filepath.Join(dir, "INJECTED")); err == nil {
			t.Errorf("the sysfs root's name ran as shell: %s/INJECTED", dir)
		}
	}
	c := &cpuControl{label: "phone", sysfs: root, saved: filepath.Join(t.TempDir(), savedClocksName), log: io.Discard,
		sh: shellScripts(sh)}
	if cores, err := c.Cores(context.Background()); err != nil || len(cores) != 8 {
		t.Errorf("cores: %+v, %v", cores, err)
	}
	if s, err := c.State(context.Background()); err != nil || len(s.FreqKHz) != 8 || s.Battery == nil {
		t.Errorf("state: %+v, %v", s, err)
	}
}
