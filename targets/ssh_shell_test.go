package targets

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// awkward are words a shell would love to interpret.
var awkward = []string{
	"plain", "", "two words", "it's", `"double"`, `back\slash`, "semi;colon; touch INJECTED", "$(touch INJECTED)",
	"`touch INJECTED`", "$HOME", "*", "a\nnewline", "--flag", "'", "''", "-", "tab\there", "&& touch INJECTED", "|", "~",
}

// TestRunScriptInARealShell runs the wrapper with sh: the program gets every argument as it was, the pid line comes
// first, and nothing is executed that was not asked for.
func TestRunScriptInARealShell(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `work dir 'q' "d"; touch INJECTED`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, `prog $(touch INJECTED) it's;x`)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\npwd\nprintf '[%s]\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	pf := newPidFilter(&stdout)
	cmd := exec.Command("sh", "-c", runScript(dir, []string{"env", "A=it's ok"}, prog, awkward))
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = pf, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	want := dir + "\n"
	for _, a := range awkward {
		want += "[" + a + "]\n"
	}
	if stdout.String() != want {
		t.Errorf("got\n%s\nwant\n%s", stdout.String(), want)
	}
	if pf.Pid() <= 0 {
		t.Errorf("no pid from the wrapper")
	}
	for _, d := range []string{dir, filepath.Dir(dir), cmd.Dir} {
		if _, err := os.Stat(filepath.Join(d, "INJECTED")); err == nil {
			t.Errorf("a quoted word was executed: %s/INJECTED exists", d)
		}
	}
}

func TestShellPathKeepsHome(t *testing.T) {
	out, err := exec.Command("sh", "-c", "HOME=/h; echo "+shellPath("~/a b")+" "+shellPath("~")+" "+shellPath("/~/x")).Output()
	if err != nil || string(out) != "/h/a b /h /~/x\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestMkdirScriptMakesAFreshDirectory(t *testing.T) {
	work := filepath.Join(t.TempDir(), "a b", "it's")
	var dirs []string
	for range 2 {
		out, err := exec.Command("sh", "-c", mkdirScript(work)).Output()
		if err != nil {
			t.Fatal(err)
		}
		d := strings.TrimSpace(string(out))
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Dir(d) != work {
			t.Fatalf("mkdir script printed %q (%v)", d, err)
		}
		dirs = append(dirs, d)
	}
	if dirs[0] == dirs[1] {
		t.Errorf("two runs share %s", dirs[0])
	}
}

func TestPidFilterInPieces(t *testing.T) {
	var out bytes.Buffer
	f := newPidFilter(&out)
	for _, p := range []string{"bench-bri", "dge-pid 4", "2\nbench-bridge-protocol 1\n", "begin x\n"} {
		f.Write([]byte(p))
	}
	if f.Pid() != 42 || out.String() != "bench-bridge-protocol 1\nbegin x\n" {
		t.Errorf("pid %d, out %q", f.Pid(), out.String())
	}
	// Output that does not start with the marker passes through whole.
	out.Reset()
	f = newPidFilter(&out)
	f.Write([]byte("sh: cd: no such directory\n"))
	if f.Pid() != 0 || out.String() != "sh: cd: no such directory\n" {
		t.Errorf("pid %d, out %q", f.Pid(), out.String())
	}
}

func TestParseSSHProbe(t *testing.T) {
	out := []byte(strings.Join([]string{
		"loadavg=0.52 0.31 0.20",
		"libc=glibc 2.36",
		"cpufreq=0 ondemand 1188000 192000 1512000",
		"cpufreq=1 - 0 0 0",
		"cpufreq=x broken",
		"thermal=41000 cpu-thermal",
		"thermal=38 battery",
		"thermal=n/a gpu",
	}, "\n"))
	var d artifact.Device
	parseSSHProbe(out, &d)
	if d.LoadAvg != "0.52 0.31 0.20" || d.Libc != "glibc 2.36" {
		t.Errorf("load %q libc %q", d.LoadAvg, d.Libc)
	}
	if len(d.CPUFreqs) != 2 || d.CPUFreqs[0] != (artifact.CPUFreq{CPU: 0, Governor: "ondemand", CurKHz: 1188000, MinKHz: 192000, MaxKHz: 1512000}) ||
		d.CPUFreqs[1] != (artifact.CPUFreq{CPU: 1}) {
		t.Errorf("cpufreqs %+v", d.CPUFreqs)
	}
	if len(d.Thermal) != 2 || d.Thermal[0] != (artifact.Thermal{Zone: "cpu-thermal", Celsius: 41}) || d.Thermal[1].Celsius != 38 {
		t.Errorf("thermal %+v", d.Thermal)
	}
}

// TestProbeScriptsRunHere runs both probe scripts in this machine's sh: they must parse and give the load average.
func TestProbeScriptsRunHere(t *testing.T) {
	out, err := exec.Command("sh", "-c", ProbeScript+sshProbeScript).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d := ParseProbe(out)
	parseSSHProbe(out, &d)
	if d.Kernel == "" || d.Cores < 1 || len(strings.Fields(d.LoadAvg)) != 3 {
		t.Errorf("device %+v from\n%s", d, out)
	}
}

func TestEmulates(t *testing.T) {
	for prefix, want := range map[string]bool{
		"qemu-arm -cpu cortex-a8": true, "/usr/bin/qemu-aarch64": true, "taskset -c 1 qemu-arm": true,
		"taskset -c 1": false, "nice -n -5": false, "": false,
	} {
		if got := emulates(strings.Fields(prefix)); got != want {
			t.Errorf("emulates(%q) = %v", prefix, got)
		}
	}
}
