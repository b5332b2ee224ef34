package targets_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/fakesys"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/targets"
)

// open connects to srv the way a config target does.
func open(t *testing.T, srv *sshdtest.Server, spec targets.Spec, o targets.Overrides) (targets.Target, error) {
	t.Helper()
	spec.Kind = "ssh"
	if spec.Host == "" {
		spec.Host = srv.Host()
	}
	if spec.Identity == "" {
		spec.Identity = srv.Identity
	}
	if spec.KnownHosts == "" {
		spec.KnownHosts = srv.KnownHosts
	}
	if spec.Workdir == "" {
		spec.Workdir = t.TempDir() // what a lost connection leaves behind goes with the test
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tgt, err := targets.Open(ctx, "board", map[string]targets.Spec{"board": spec}, o)
	if err == nil {
		t.Cleanup(func() { tgt.Close() })
	}
	return tgt, err
}

func mustOpen(t *testing.T, srv *sshdtest.Server, spec targets.Spec) targets.Target {
	t.Helper()
	tgt, err := open(t, srv, spec, targets.Overrides{})
	if err != nil {
		t.Fatalf("%v\nsshd:\n%s", err, srv.Log())
	}
	return tgt
}

// script writes a shell script to push.
func script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSSHTarget pushes, runs, pulls and cleans up through a real sshd, with and without sftp, with a workdir and a
// program name full of shell syntax.
func TestSSHTarget(t *testing.T) {
	for _, noSFTP := range []bool{false, true} {
		name := map[bool]string{false: "sftp", true: "shell-upload"}[noSFTP]
		t.Run(name, func(t *testing.T) {
			srv := sshdtest.Start(t, sshdtest.Options{NoSFTP: noSFTP})
			work := filepath.Join(t.TempDir(), `work 'dir'; touch INJECTED`)
			tgt := mustOpen(t, srv, targets.Spec{Workdir: work, RunPrefix: "env BENCH=1"})
			ctx := context.Background()

			prog := script(t, `prog "a b"; $(touch INJECTED) it's`, `echo "BENCH=$BENCH in $(pwd)"
printf '[%s]\n' "$@"
echo "to stderr" >&2
echo measured > result.txt
exit "${EXIT:-0}"
`)
			remote, err := tgt.Push(ctx, prog)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(filepath.Dir(remote)) != work || filepath.Base(remote) != filepath.Base(prog) {
				t.Fatalf("pushed to %q, want a fresh directory in %q", remote, work)
			}
			args := []string{"two words", "semi;colon; touch INJECTED", "$(touch INJECTED)", "`touch INJECTED`", "it's",
				`"dq"`, `back\slash`, "", "$HOME", "*", "a\nb", "&& touch INJECTED"}
			var stdout, stderr bytes.Buffer
			if err := tgt.Run(ctx, remote, args, &stdout, &stderr); err != nil {
				t.Fatalf("run: %v\nstderr: %s", err, stderr.String())
			}
			want := "BENCH=1 in " + filepath.Dir(remote) + "\n"
			for _, a := range args {
				want += "[" + a + "]\n"
			}
			if stdout.String() != want || stderr.String() != "to stderr\n" {
				t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", stdout.String(), want, stderr.String())
			}
			for _, d := range []string{work, filepath.Dir(remote), os.Getenv("HOME")} {
				if _, err := os.Stat(filepath.Join(d, "INJECTED")); err == nil {
					t.Errorf("an argument was executed: %s/INJECTED", d)
				}
			}

			local := filepath.Join(t.TempDir(), "result.txt")
			if err := tgt.Pull(ctx, filepath.Join(filepath.Dir(remote), "result.txt"), local); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(local); string(b) != "measured\n" {
				t.Errorf("pulled %q", b)
			}

			crash := script(t, "crash", "echo dying >&2; kill -SEGV $$\n")
			rcrash, err := tgt.Push(ctx, crash)
			if err != nil {
				t.Fatal(err)
			}
			var exit *targets.ExitError
			stderr.Reset()
			err = tgt.Run(ctx, rcrash, nil, &bytes.Buffer{}, &stderr)
			if !errors.As(err, &exit) || exit.Signal != "SIGSEGV" || stderr.String() != "dying\n" {
				t.Errorf("crash: %v (%#v), stderr %q", err, exit, stderr.String())
			}
			err = tgt.Run(ctx, "/bin/sh", []string{"-c", "exit 3"}, &bytes.Buffer{}, &bytes.Buffer{})
			if !errors.As(err, &exit) || exit.Status != 3 || exit.Signal != "" {
				t.Errorf("exit 3: %v", err)
			}

			dev, err := tgt.Device(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if dev.Kernel == "" || dev.Cores < 1 || dev.LoadAvg == "" || dev.Libc == "" || dev.RunPrefix != "env BENCH=1" || dev.Emulated {
				t.Errorf("device %+v", dev)
			}

			if err := tgt.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Dir(remote)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("close left %s behind (%v)", filepath.Dir(remote), err)
			}
			if _, err := os.Stat(work); err != nil {
				t.Errorf("close removed the workdir itself: %v", err)
			}
		})
	}
}

// TestSSHLegacyAlgorithms: a server limited to the algorithms of a 2011 device is refused unless the target opts in.
func TestSSHLegacyAlgorithms(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{Legacy: true})
	_, err := open(t, srv, targets.Spec{}, targets.Overrides{})
	if err == nil || !strings.Contains(err.Error(), "legacy_algorithms = true") || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("without the opt-in: %v", err)
	}
	tgt := mustOpen(t, srv, targets.Spec{LegacyAlgorithms: true})
	var out bytes.Buffer
	if err := tgt.Run(context.Background(), "uname", []string{"-s"}, &out, &bytes.Buffer{}); err != nil || out.String() != "Linux\n" {
		t.Fatalf("with the opt-in: %q, %v\nsshd:\n%s", out.String(), err, srv.Log())
	}
}

// TestSSHSpecSysfs: the spec's sysfs is the remote target's from when it is opened: its cores, its state and its
// probe read the phone's tree there, not /sys.
func TestSSHSpecSysfs(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	root := t.TempDir()
	if err := fakesys.Phone(root); err != nil {
		t.Fatal(err)
	}
	tgt := mustOpen(t, srv, targets.Spec{Sysfs: root})
	ctx := context.Background()
	cpus := tgt.Capabilities().CPUs
	cores, err := cpus.Cores(ctx)
	if err != nil || len(cores) != 8 || cores[7].MaxKHz != fakesys.BigMaxKHz {
		t.Fatalf("cores %+v, %v", cores, err)
	}
	if s, err := cpus.State(ctx); err != nil || s.FreqKHz[0] != fakesys.LittleCurKHz || len(s.Thermal) != len(fakesys.Thermal) {
		t.Errorf("state %+v, %v", s, err)
	}
	d, err := tgt.Device(ctx)
	if err != nil || len(d.CPUFreqs) != 8 || d.CPUFreqs[4].CurKHz != fakesys.BigCurKHz || len(d.Thermal) != len(fakesys.Thermal) {
		t.Errorf("device %+v, %v", d, err)
	}
}

// TestSSHAuthFailure says what to do when the device refuses the key.
func TestSSHAuthFailure(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	other := sshdtest.Start(t, sshdtest.Options{})
	t.Setenv("SSH_AUTH_SOCK", "")
	_, err := open(t, srv, targets.Spec{Identity: other.Identity}, targets.Overrides{})
	if err == nil || !strings.Contains(err.Error(), "authorized_keys") {
		t.Fatalf("wrong key: %v", err)
	}
}

// TestSSHKillsHungProgram: when the context ends, the program and its children are gone on the device, not only
// the local session; a program that ignores SIGTERM (and so its child) is killed with SIGKILL after the short wait.
func TestSSHKillsHungProgram(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	tgt := mustOpen(t, srv, targets.Spec{})
	for name, trap := range map[string]string{"stops on SIGTERM": "", "ignores SIGTERM": "trap '' TERM\n"} {
		t.Run(name, func(t *testing.T) { killHung(t, tgt, trap) })
	}
}

func killHung(t *testing.T, tgt targets.Target, trap string) {
	pids := filepath.Join(t.TempDir(), "pids")
	hung := script(t, "hung", trap+"sleep 300 &\necho \"$$ $!\" > "+pids+"\necho started\nwhile :; do wait; done\n")
	remote, err := tgt.Push(context.Background(), hung)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- tgt.Run(ctx, remote, nil, writerFunc(func(p []byte) {
			if strings.Contains(string(p), "started") {
				close(started)
			}
		}), &bytes.Buffer{})
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the program ended on its own: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not start")
	}
	b, _ := os.ReadFile(pids)
	var procs []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		procs = append(procs, n)
	}
	if len(procs) != 2 || !alive(procs[0]) || !alive(procs[1]) {
		t.Fatalf("pids %q", b)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("cancelled run: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range procs {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(p) {
			t.Errorf("process %d still runs on the device", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// TestSSHDroppedConnection: a connection that dies mid-run is a transport error naming the device, not an exit.
func TestSSHDroppedConnection(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	proxy := srv.Proxy(t)
	tgt := mustOpen(t, srv, targets.Spec{Host: srv.User + "@" + proxy.Addr})
	err := tgt.Run(context.Background(), "/bin/sh", []string{"-c", "echo started; exec sleep 30"}, writerFunc(func(p []byte) {
		if strings.Contains(string(p), "started") {
			proxy.Cut()
		}
	}), &bytes.Buffer{})
	var exit *targets.ExitError
	if err == nil || errors.As(err, &exit) || !strings.Contains(err.Error(), proxy.Addr) || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("dropped connection: %v", err)
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

type writerFunc func([]byte)

func (w writerFunc) Write(p []byte) (int, error) { w(p); return len(p), nil }

// TestSSHAgent logs in with a key that only a real ssh-agent holds.
func TestSSHAgent(t *testing.T) {
	srv := sshdtest.Start(t, sshdtest.Options{})
	agentBin := testenv.Require(t, "ssh-agent", "apt-get install openssh-client")
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command(agentBin, "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("HOME", t.TempDir()) // no ~/.ssh/id_* to fall back on
	var out []byte
	var err error
	for range 50 { // the agent's socket appears shortly after it starts
		if out, err = exec.Command("ssh-add", srv.Identity).CombinedOutput(); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	if _, err := open(t, srv, targets.Spec{Identity: filepath.Join(t.TempDir(), "missing")}, targets.Overrides{}); err == nil ||
		!strings.Contains(err.Error(), "identity") {
		t.Fatalf("a missing identity file: %v", err)
	}
	spec := targets.Spec{Kind: "ssh", Host: srv.Host(), KnownHosts: srv.KnownHosts}
	tg, err := targets.Open(context.Background(), "board", map[string]targets.Spec{"board": spec}, targets.Overrides{})
	if err != nil {
		t.Fatalf("with the agent's key: %v", err)
	}
	tg.Close()
}
