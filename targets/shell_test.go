package targets

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// awkward are words a shell would love to interpret.
var awkward = []string{
	"plain", "", "two words", "it's", `"double"`, `back\slash`, "semi;colon; touch INJECTED", "$(touch INJECTED)",
	"`touch INJECTED`", "$HOME", "*", "a\nnewline", "--flag", "'", "''", "-", "tab\there", "&& touch INJECTED", "|", "~",
}

// shells are the POSIX shells of the devices bench-bridge reaches: dash and bash as on servers, busybox ash as on
// webOS and boards, and mksh, alone and with toybox's commands first on PATH as on Android.
func shells(t *testing.T) [][]string {
	out := [][]string{{testenv.Require(t, "dash", "apt-get install dash")}, {testenv.Require(t, "bash", "apt-get install bash")},
		{testenv.Require(t, "busybox", "apt-get install busybox-static"), "sh"}, {testenv.Require(t, "mksh", "apt-get install mksh")}}
	toybox := testenv.Require(t, "toybox", "apt-get install toybox")
	bin := t.TempDir()
	list, _ := exec.Command(toybox).Output()
	for _, cmd := range strings.Fields(string(list)) {
		os.Symlink(toybox, filepath.Join(bin, cmd))
	}
	return append(out, []string{"env", "PATH=" + bin + ":" + os.Getenv("PATH"), "mksh"})
}

// shellName names a shell from shells for a subtest (and so for its temporary directories).
func shellName(sh []string) string {
	if sh[0] == "env" {
		return "mksh+toybox"
	}
	return filepath.Base(sh[0])
}

// TestRunScriptInARealShell runs the wrapper with each shell: the program gets every argument as it was, runs in
// the directory, keeps the pid the wrapper wrote, and nothing is executed that was not asked for.
func TestRunScriptInARealShell(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), `work dir 'q' "d"; touch INJECTED`)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(dir, `prog $(touch INJECTED) it's;x`)
			if err := os.WriteFile(prog, []byte("#!/bin/sh\npwd\nprintf '[%s]\\n' \"$@\"\necho $$ > own.pid\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(dir, ".run-1.pid")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(sh[0], append(sh[1:], "-c", runScript(dir, pidFile, []string{"env", "A=it's ok"}, prog, awkward))...)
			cmd.Dir = t.TempDir()
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
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
			recorded, _ := os.ReadFile(pidFile)
			own, _ := os.ReadFile(filepath.Join(dir, "own.pid"))
			if len(recorded) == 0 || string(recorded) != string(own) {
				t.Errorf("the wrapper wrote pid %q, the program has %q", recorded, own)
			}
			for _, d := range []string{dir, filepath.Dir(dir), cmd.Dir} {
				if _, err := os.Stat(filepath.Join(d, "INJECTED")); err == nil {
					t.Errorf("a quoted word was executed: %s/INJECTED exists", d)
				}
			}
		})
	}
}

// TestKillScriptKillsTheGroup runs a program that ignores SIGTERM and has a child, under each shell: with the shell
// leading a session (as under sshd and adbd), inside another process group (where the wrapper makes the program a
// group of its own with setsid), and inside another group on a device without setsid (old busybox and toybox). The
// kill script must end the program with SIGKILL after the short wait, and its child with it wherever the program
// leads a group; without setsid only the program can be found, by its pid.
func TestKillScriptKillsTheGroup(t *testing.T) {
	noSetsid := t.TempDir() // a PATH with what the scripts need but setsid
	for _, cmd := range []string{"sleep", "cat", "mkdir"} {
		if p, err := exec.LookPath(cmd); err == nil {
			os.Symlink(p, filepath.Join(noSetsid, cmd))
		}
	}
	// Every case at once, whatever -parallel says: each waits out the short wait between SIGTERM and SIGKILL, asleep.
	// The programs are all written before any case starts a process: a program written while another goroutine
	// forks can be held open in the child for a moment, and exec'ing it then fails with ETXTBSY (golang.org/issue/22315).
	stub := []byte("#!/bin/sh\ntrap '' TERM\nsleep 300 &\necho \"$$ $!\" > procs\nwhile :; do sleep 1; done\n")
	type killCase struct {
		sh           []string
		mode         string
		dir, pidFile string
		prog         string
	}
	var kcs []killCase
	for _, sh := range shells(t) {
		for _, mode := range []string{"leader", "in a group", "in a group without setsid"} {
			if sh[0] == "env" && mode == "in a group without setsid" {
				continue // its PATH is toybox's
			}
			dir := t.TempDir()
			kc := killCase{sh: sh, mode: mode, dir: dir, pidFile: filepath.Join(dir, ".run-1.pid"), prog: filepath.Join(dir, "stubborn")}
			if err := os.WriteFile(kc.prog, stub, 0o755); err != nil {
				t.Fatal(err)
			}
			kcs = append(kcs, kc)
		}
	}
	var all sync.WaitGroup
	defer all.Wait()
	for _, kc := range kcs {
		sh, mode, dir, pidFile, prog := kc.sh, kc.mode, kc.dir, kc.pidFile, kc.prog
		leader := mode == "leader"
		all.Go(func() {
			t.Run(shellName(sh)+" "+mode, func(t *testing.T) {
				cmd := exec.Command(sh[0], append(sh[1:], "-c", runScript(dir, pidFile, nil, prog, nil))...)
				stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr")) // a file: a pipe would be held by the child
				if err != nil {
					t.Fatal(err)
				}
				defer stderr.Close()
				cmd.Stderr = stderr
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: leader}
				if mode == "in a group without setsid" {
					cmd.Env = append(os.Environ(), "PATH="+noSetsid)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				var procs []int
				for deadline := time.Now().Add(20 * time.Second); len(procs) < 2; time.Sleep(20 * time.Millisecond) {
					select {
					case err := <-done:
						said, _ := os.ReadFile(stderr.Name())
						t.Fatalf("the program ended before it started its child: %v: %s", err, said)
					default:
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatal("the program did not start")
					}
					b, _ := os.ReadFile(filepath.Join(dir, "procs"))
					if !bytes.HasSuffix(b, []byte("\n")) {
						continue
					}
					for _, f := range strings.Fields(string(b)) {
						n, _ := strconv.Atoi(f)
						procs = append(procs, n)
					}
				}
				kill := exec.Command(sh[0], append(sh[1:], "-c", killScript(pidFile))...)
				kill.Env = cmd.Env
				out, err := kill.CombinedOutput()
				if err != nil {
					t.Fatalf("kill script: %v: %s", err, out)
				}
				select {
				case err := <-done:
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
						t.Errorf("the program ended with %v, want SIGKILL (it ignores SIGTERM)", err)
					}
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					t.Fatal("the program still runs after the kill script")
				}
				if mode == "in a group without setsid" {
					syscall.Kill(procs[1], syscall.SIGKILL)
					return
				}
				for deadline := time.Now().Add(10 * time.Second); alive(procs[1]) && time.Now().Before(deadline); {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(procs[1]) {
					syscall.Kill(procs[1], syscall.SIGKILL)
					t.Errorf("the program's child %d survived: the group was not killed", procs[1])
				}
			})
		})
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

func TestShellPathKeepsHome(t *testing.T) {
	out, err := exec.Command("sh", "-c", "HOME=/h; echo "+shellPath("~/a b")+" "+shellPath("~")+" "+shellPath("/~/x")).Output()
	if err != nil || string(out) != "/h/a b /h /~/x\n" {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestMkdirScriptMakesAFreshDirectory(t *testing.T) {
	for _, sh := range shells(t) {
		work := filepath.Join(t.TempDir(), "a b", "it's")
		var dirs []string
		for range 2 {
			out, err := exec.Command(sh[0], append(sh[1:], "-c", mkdirScript(work))...).Output()
			if err != nil {
				t.Fatalf("%s: %v", sh, err)
			}
			d := strings.TrimSpace(string(out))
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Dir(d) != work || !strings.HasPrefix(filepath.Base(d), runDirPrefix) {
				t.Fatalf("%s: mkdir script printed %q (%v)", sh, d, err)
			}
			dirs = append(dirs, d)
		}
		if dirs[0] == dirs[1] {
			t.Errorf("%s: two runs share %s", sh, dirs[0])
		}
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

// TestUploadScriptInARealShell: an upload through the shell gives remote its bytes whole, or fails and leaves
// remote as it was: the same command run again late with no input (dropbear closed its first session after starting
// it) or cut short does not truncate what a whole upload wrote, and leaves no part behind.
func TestUploadScriptInARealShell(t *testing.T) {
	data := []byte("#!/bin/sh\n[ -r /proc/loadavg ] && echo loaded\n" + strings.Repeat("x", 100000) + "\n")
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), `up dir 'q' "d"; $(touch INJECTED)`)
			os.MkdirAll(dir, 0o755)
			remote, cwd := filepath.Join(dir, "probe.sh"), t.TempDir()
			upload := func(in []byte) error {
				cmd := exec.Command(sh[0], append(sh[1:], "-c", uploadScript(remote, int64(len(data))))...)
				cmd.Stdin = bytes.NewReader(in)
				cmd.Dir = cwd
				return cmd.Run()
			}
			if err := upload(data); err != nil {
				t.Fatalf("a whole upload: %v", err)
			}
			for name, in := range map[string][]byte{"no input": nil, "cut short": data[:len(data)/2]} {
				if err := upload(in); err == nil {
					t.Errorf("an upload with %s succeeded", name)
				}
				if got, _ := os.ReadFile(remote); !bytes.Equal(got, data) {
					t.Errorf("after an upload with %s, the file holds %d bytes, want the %d of the whole upload", name, len(got), len(data))
				}
			}
			if left, _ := os.ReadDir(dir); len(left) != 1 {
				t.Errorf("left in the directory: %v", left)
			}
			if ran, _ := os.ReadDir(cwd); len(ran) != 0 {
				t.Errorf("the path was parsed by the shell: %v", ran)
			}
		})
	}
}
