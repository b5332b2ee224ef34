package main

// A device lab, end to end: two real adbd phones behind a lab host's real adb server (in a network namespace of its
// own, reached with -H and -P) and the dropbear board, measured in one command; a phone taken away in the middle;
// two bench-bridge processes on one phone and one board at once. The runs measure one case once: they prove the
// plumbing, not the numbers.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/devroot"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/session"
)

// lab starts a lab host with n phones and the dropbear board, and returns the flags that reach them all: the lab's
// adb server (-H, -P) and the board's key and known host. The target words are `android --all ssh root@BOARD`.
func lab(t *testing.T, phones int) (*devroot.LabHost, *devroot.Board, []string) {
	t.Helper()
	testenv.Require(t, "aarch64-linux-gnu-gcc", "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross (scripts/setup does it)")
	testenv.Require(t, "x86_64-linux-gnu-gcc", "apt-get install gcc libc6-dev (scripts/setup does it)")
	l := devroot.StartLabHost(t, phones)
	b := devroot.StartBoard(t)
	t.Setenv("ANDROID_SERIAL", "")
	return l, b, []string{"android", "--all", "ssh", b.Host(), "-H", l.Addr, "-P", strconv.Itoa(l.Port),
		"--identity", b.Identity, "--known-hosts", b.KnownHosts, "--cases", "script_to_host_scalar"}
}

// phoneTarget is the target a phone of the lab is measured as: android, a dash and its serial as a name's word.
func phoneTarget(p *devroot.Android) string { return "android-" + session.DeviceWord(p.Serial) }

// TestLabInOneCommand measures both phones of a lab host and the board in one command, each in its own session at
// once: an artifact each, named by the phone's serial and the board's host, with each device's own facts.
func TestLabInOneCommand(t *testing.T) {
	l, b, words := lab(t, 2)
	out := filepath.Join(t.TempDir(), "{target}.json")
	args := append([]string{"floor"}, append(words, "--out", out, "--runs", "1", "--samples", "1", "--min-time", "1ms")...)
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nlab:\n%s", code, stdout, stderr, l.ServerLog())
	}
	for _, p := range l.Phones {
		a := readArtifact(t, strings.ReplaceAll(out, "{target}", phoneTarget(p)))
		if !a.Complete || len(a.Cases) != 2 || a.Device.Android == nil || a.Device.Android.Model != "Devroot 1" {
			t.Errorf("%s: complete %v, %d cases, device %+v", a.Label(), a.Complete, len(a.Cases), a.Device)
		}
	}
	if a := readArtifact(t, strings.ReplaceAll(out, "{target}", b.Addr)); !a.Complete || a.Device.Android != nil {
		t.Errorf("%s: complete %v, device %+v", a.Label(), a.Complete, a.Device)
	}
	for _, name := range []string{phoneTarget(l.Phones[0]), phoneTarget(l.Phones[1]), b.Addr} {
		if !strings.Contains(stdout, "floor "+name) {
			t.Errorf("the table has no column of %s:\n%s", name, stdout)
		}
	}
}

// TestLabPhoneTakenAway takes the second phone away (its adbd and all it runs killed, as a cable pulled out) in the
// middle of its second case: its artifact keeps the first case and is marked incomplete, the other phone and the
// board finish, and the error counts and names the lost phone.
func TestLabPhoneTakenAway(t *testing.T) {
	l, b, words := lab(t, 2)
	lost := l.Phones[1]
	out := filepath.Join(t.TempDir(), "{target}.json")
	// Long samples, so that the cut lands inside the second case, not between two.
	args := append([]string{"floor"}, append(words, "--out", out, "--runs", "1", "--samples", "1", "--min-time", "300ms")...)
	var stdout bytes.Buffer
	stderr := &cutter{when: "floor-" + phoneTarget(lost) + ": " + cases.RefCase, cut: func() { time.AfterFunc(300*time.Millisecond, lost.Vanish) }}
	code := execute(args, &stdout, stderr)
	msg := stderr.String()
	want := []string{"error: 1 of 3 targets failed: " + phoneTarget(lost) + "\n", phoneTarget(lost) + ": case script_to_host_scalar: device " + lost.Serial,
		"partial artifact with 1 cases written to " + strings.ReplaceAll(out, "{target}", phoneTarget(lost))}
	for _, w := range want {
		if code != 1 || !strings.Contains(msg, w) {
			t.Errorf("exit %d, want 1 and %q in\n%s", code, w, msg)
		}
	}
	if i := strings.Index(msg, "bench-bridge: error:"); i >= 0 {
		t.Logf("exit %d:\n%s", code, msg[i:])
	}
	if a := readArtifact(t, strings.ReplaceAll(out, "{target}", phoneTarget(lost))); a.Complete || len(a.Cases) != 1 || a.Case(cases.RefCase) == nil {
		t.Errorf("the lost phone's artifact: complete %v, %d cases", a.Complete, len(a.Cases))
	}
	for _, name := range []string{phoneTarget(l.Phones[0]), b.Addr} {
		if a := readArtifact(t, strings.ReplaceAll(out, "{target}", name)); !a.Complete || len(a.Cases) != 2 {
			t.Errorf("%s: complete %v, %d cases", name, a.Complete, len(a.Cases))
		}
	}
}

// TestOneRunPerDevice runs two bench-bridge processes on one phone and the board at once, the second as another
// lab host would (a host name of its own): it is told who holds each device, waits, and measures once the first is
// done, so that no measurement of one overlaps the other's on a device. Then a run killed (SIGKILL) in the middle
// leaves its leases behind, and the next run takes them over at once: their process is gone. The killed run has far
// more to measure than the time between the devices' first results, so that it holds both when it is killed: a device
// it had finished with is given back, run directory and lease, and there is nothing to take over.
func TestOneRunPerDevice(t *testing.T) {
	testenv.Require(t, "unshare", "apt-get install util-linux")
	l, b, words := lab(t, 1)
	bin := cli(t)
	dir := t.TempDir()
	// No warm-up (it would take as long as a sample): what holds the devices is the samples' length.
	measure := func(name, minTime string, runs int) []string {
		return append(slices.Clone(words), "--out", filepath.Join(dir, name, "{target}.json"), "--runs", strconv.Itoa(runs),
			"--samples", "1", "--min-time", minTime, "--warmup", "1ms")
	}
	devices := []string{phoneTarget(l.Phones[0]), b.Addr}
	// The first run's samples are long enough for the second to arrive while it holds both devices: seconds.
	first := startCLI(t, bin, append([]string{"floor"}, measure("first", "1s", 1)...))
	for _, d := range devices {
		first.waitFor(t, "running floor "+d+" on ")
	}
	second := startCLI(t, "unshare", append([]string{"--uts", "sh", "-c", `hostname lab-host-2 && exec "$0" "$@"`, bin, "floor"}, measure("second", "1ms", 1)...))
	first.wait(t, 0)
	second.wait(t, 0)
	host, _ := os.Hostname()
	labels := []string{"device " + l.Phones[0].Serial, b.Addr}
	second.says(t, labels, " is held by another run (host "+host+", pid "+strconv.Itoa(first.cmd.Process.Pid)+", since ")
	for _, d := range devices {
		a, b := readArtifact(t, filepath.Join(dir, "first", d+".json")), readArtifact(t, filepath.Join(dir, "second", d+".json"))
		t.Logf("%s: the first run measured from %s to %s, the second from %s to %s", d, a.StartedAt.Format(time.StampMicro),
			a.FinishedAt.Format(time.StampMicro), b.StartedAt.Format(time.StampMicro), b.FinishedAt.Format(time.StampMicro))
		if !a.Complete || !b.Complete || !a.FinishedAt.Before(b.StartedAt) {
			t.Errorf("%s: the runs overlap, or one is incomplete (complete: %v, %v)", d, a.Complete, b.Complete)
		}
	}

	const killedRuns = 200 // each at least two samples of 200ms: minutes, against seconds between the devices' first results
	killed := startCLI(t, bin, append([]string{"floor"}, measure("killed", "200ms", killedRuns)...))
	for _, d := range devices {
		killed.waitFor(t, "floor-"+d+": "+cases.RefCase)
	}
	killed.cmd.Process.Kill()
	last := fmt.Sprintf("(%d/%d)", 2*killedRuns, 2*killedRuns)
	for _, line := range strings.Split(killed.log(), "\n") {
		if strings.HasSuffix(line, last) {
			t.Fatalf("the killed run had finished with a device before it was killed, so it held nothing there:\n%s", killed.log())
		}
	}
	killed.wait(t, -1)
	next := startCLI(t, bin, append([]string{"floor"}, measure("next", "1ms", 1)...))
	next.wait(t, 0)
	next.says(t, labels, ": took over the lease of host "+host+", pid "+strconv.Itoa(killed.cmd.Process.Pid)+", since ")
}

// says checks that for each device label the process printed a line naming it and saying what.
func (p *cliProcess) says(t *testing.T, labels []string, what string) {
	t.Helper()
	for _, label := range labels {
		found := false
		for _, line := range strings.Split(p.log(), "\n") {
			if strings.Contains(line, label) && strings.Contains(line, what) {
				t.Log(line)
				found = true
			}
		}
		if !found {
			t.Errorf("no line of %s says %q:\n%s", label, what, p.log())
		}
	}
}

// cliProcess is bench-bridge running as a process of its own, its stderr read line by line.
type cliProcess struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	more  chan struct{}
	done  chan struct{}
}

// startCLI starts argv[0] with the rest as its arguments; it is killed at cleanup if still running.
func startCLI(t *testing.T, name string, args []string) *cliProcess {
	t.Helper()
	p := &cliProcess{cmd: exec.Command(name, args...), more: make(chan struct{}, 1), done: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
		p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// processBound bounds each wait on a process: a cold cache builds QuickJS for both devices first.
const processBound = 5 * time.Minute

// waitFor waits for a line containing what.
func (p *cliProcess) waitFor(t *testing.T, what string) {
	t.Helper()
	timeout := time.After(processBound)
	for !strings.Contains(p.log(), what) {
		select {
		case <-p.more:
		case <-p.done:
			if !strings.Contains(p.log(), what) { // every line is read before done
				t.Fatalf("bench-bridge ended before %q:\n%s", what, p.log())
			}
		case <-timeout:
			t.Fatalf("no %q from bench-bridge within %s:\n%s", what, processBound, p.log())
		}
	}
}

// wait waits for the process to end with status code (-1: killed by a signal).
func (p *cliProcess) wait(t *testing.T, code int) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(processBound):
		p.cmd.Process.Kill()
		t.Fatalf("bench-bridge still runs after %s:\n%s", processBound, p.log())
	}
	if got := p.cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("bench-bridge %s: exit %d, want %d:\n%s", strings.Join(p.cmd.Args[1:], " "), got, code, p.log())
	}
}

// log is what the process printed on stderr so far.
func (p *cliProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}
