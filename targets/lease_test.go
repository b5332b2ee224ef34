package targets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// shellTransport runs each command in a real shell of this machine, as a device's shell runs it: the lease's scripts
// meet the shells of the devices (shells) without a device.
type shellTransport struct{ sh []string }

func (s shellTransport) exec(ctx context.Context, command string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, s.sh[0], append(s.sh[1:], "-c", command)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

func (shellTransport) push(context.Context, io.Reader, string) error { return errNoStdin }
func (shellTransport) pull(context.Context, string, io.Writer) error { return errNoStdin }
func (shellTransport) close() error                                  { return nil }

// shellScripts runs cpuControl's scripts in a real shell of this machine, as a device's shell runs them.
func shellScripts(sh ...string) func(ctx context.Context, script string) ([]byte, error) {
	return func(ctx context.Context, script string) ([]byte, error) {
		var out bytes.Buffer
		err := execOK(ctx, shellTransport{sh}, script, nil, &out)
		return out.Bytes(), err
	}
}

// shellDevice is a device whose shell is sh and whose workdir is a fresh directory.
func shellDevice(t *testing.T, sh []string) (*device, string) {
	t.Helper()
	workdir := filepath.Join(t.TempDir(), "work dir; it's")
	r, err := newDevice(deviceParts{name: "dev", label: "device " + shellName(sh), machine: "test:" + workdir, workdir: workdir,
		tr: shellTransport{sh}})
	if err != nil {
		t.Fatal(err)
	}
	return r, workdir
}

// quickLeases makes the lease's clocks fast for the test.
func quickLeases(t *testing.T) {
	renew, poll, stale := leaseRenew, leasePoll, leaseStale
	leaseRenew, leasePoll, leaseStale = 20*time.Millisecond, 20*time.Millisecond, 400*time.Millisecond
	t.Cleanup(func() { leaseRenew, leasePoll, leaseStale = renew, poll, stale })
}

// TestLeaseOneRunAtATime holds a device in every shell a device has: a second run gives up after its wait, naming
// the holder, even though the holder keeps renewing for longer than a lease left behind would stand still; a third
// waits, and takes the device once the first releases it. Nothing is left in the workdir after the last release.
func TestLeaseOneRunAtATime(t *testing.T) {
	quickLeases(t)
	for _, sh := range shells(t) {
		t.Run(shellName(sh), func(t *testing.T) {
			dev, workdir := shellDevice(t, sh)
			ctx := context.Background()
			first, err := Acquire(ctx, dev, LeaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var log testenv.Buffer
			_, err = Acquire(ctx, dev, LeaseOptions{Wait: 2 * leaseStale, Log: &log})
			var held *HeldError
			if !errors.As(err, &held) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
				t.Fatalf("a second run on a held device: %v, want a HeldError naming this process\n%s", err, log.String())
			}
			if !strings.Contains(log.String(), "device "+shellName(sh)+" is held by another run (host ") {
				t.Errorf("the waiting run was not told who holds the device:\n%s", log.String())
			}
			got := make(chan *Lease)
			go func() {
				l, err := Acquire(ctx, dev, LeaseOptions{Log: &log})
				if err != nil {
					t.Error(err)
				}
				got <- l
			}()
			for !strings.Contains(log.String(), "waiting until it is free") {
				time.Sleep(10 * time.Millisecond)
			}
			select {
			case <-got:
				t.Fatal("the third run took the device while the first held it")
			default:
			}
			if err := first.Release(); err != nil {
				t.Fatal(err)
			}
			third := <-got
			if third == nil {
				t.FailNow()
			}
			owner, err := os.ReadFile(filepath.Join(workdir, leaseName, "owner"))
			if err != nil || strings.TrimSpace(string(owner)) != third.owner.String() {
				t.Errorf("the lease names %q (%v), want the third run %q", owner, err, third.owner.String())
			}
			if err := third.Release(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(workdir); len(left) != 0 {
				t.Errorf("left in the workdir: %v", left)
			}
		})
	}
}

// TestLeaseLeftBehind: a lease whose process of this machine is gone is taken over at once; one of another machine
// once its counter has stood still for leaseStale; each takeover says whose lease it was and why.
func TestLeaseLeftBehind(t *testing.T) {
	quickLeases(t)
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	gone := me()
	gone.PID = exited.Process.Pid
	elsewhere := leaseOwner{Host: "lab-host-2", Boot: "another-boot", PID: os.Getpid(), Start: time.Now().UTC()}
	for _, tc := range []struct {
		name  string
		owner leaseOwner
		why   string
	}{
		{"gone process", gone, "its process is gone"},
		{"other machine", elsewhere, "it was not renewed for"},
	} {
		for _, sh := range shells(t) {
			t.Run(tc.name+"/"+shellName(sh), func(t *testing.T) {
				dev, workdir := shellDevice(t, sh)
				lease := filepath.Join(workdir, leaseName)
				if err := os.MkdirAll(lease, 0o755); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(lease, "owner"), []byte(tc.owner.String()+"\n"), 0o644)
				os.WriteFile(filepath.Join(lease, "renewed"), []byte("7\n"), 0o644)
				var log testenv.Buffer
				l, err := Acquire(context.Background(), dev, LeaseOptions{Wait: 20 * leaseStale, Log: &log})
				if err != nil {
					t.Fatalf("%v\n%s", err, log.String())
				}
				defer l.Release()
				want := "took over the lease of host " + tc.owner.Host + ", pid " + strconv.Itoa(tc.owner.PID)
				if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), tc.why) {
					t.Errorf("log lacks %q and %q:\n%s", want, tc.why, log.String())
				}
				if left, _ := filepath.Glob(lease + ".stale.*"); len(left) > 0 {
					t.Errorf("the old lease is left aside: %v", left)
				}
			})
		}
	}
}

// TestLeaseLost: a holder whose lease another run has replaced learns it at its next renewal, with the other run
// named.
func TestLeaseLost(t *testing.T) {
	quickLeases(t)
	sh := shells(t)[0]
	dev, workdir := shellDevice(t, sh)
	l, err := Acquire(context.Background(), dev, LeaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := leaseOwner{Host: "lab-host-2", PID: 4242, Start: time.Now().UTC()}
	if err := os.WriteFile(filepath.Join(workdir, leaseName, "owner"), []byte(other.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(time.Minute):
		t.Fatal("the holder never noticed its lease was taken")
	}
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "host lab-host-2, pid 4242") {
		t.Errorf("lost lease: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if owner, _ := os.ReadFile(filepath.Join(workdir, leaseName, "owner")); !strings.Contains(string(owner), "lab-host-2") {
		t.Errorf("releasing a lost lease removed the other run's: %q", owner)
	}
}

// TestLeaseFollowsTheCapabilities: Acquire leases what a target's Capabilities give a lease site for, a remote
// device (its lease in the workdir while it is held), and holds nothing of the local machine, which declares none.
func TestLeaseFollowsTheCapabilities(t *testing.T) {
	dev, workdir := shellDevice(t, []string{testenv.Require(t, "sh", "apt-get install dash")})
	if dev.Capabilities().lease == nil {
		t.Fatal("a remote device declares no lease site")
	}
	l, err := Acquire(context.Background(), dev, LeaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(workdir, leaseName, "owner")); err != nil {
		t.Errorf("the held device has no lease: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(workdir, leaseName)); !os.IsNotExist(err) {
		t.Errorf("the lease is left after its release: %v", err)
	}
	local, err := NewLocal("local-test", Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if local.Capabilities().lease != nil {
		t.Error("the local machine declares a lease site")
	}
	l, err = Acquire(context.Background(), local, LeaseOptions{})
	if err != nil || l.site.shell != nil || l.Release() != nil {
		t.Errorf("the local machine was leased: %v", err)
	}
}

// TestParseOwner reads back what an owner writes, and reads a lease without an owner as nobody.
func TestParseOwner(t *testing.T) {
	o := leaseOwner{Host: "lab1", Boot: "b00t", PID: 99, Start: time.Date(2026, 12, 1, 10, 2, 3, 4, time.UTC)}
	if got := parseOwner(o.String()); got != o {
		t.Errorf("parseOwner(%q) = %+v", o.String(), got)
	}
	if got := parseOwner(""); got != (leaseOwner{}) || !strings.Contains(got.describe(), "no owner") {
		t.Errorf("an empty owner reads as %+v (%s)", got, got.describe())
	}
}

// TestLeaseGuardsTheRunDirectory: the lease and the run's directory agree in every order. A run that gives the device
// back leaves neither (its directory goes first, while the lease still guards it), however long the run goes on with
// other devices; a run killed while it holds the device leaves both, and the next run takes the lease over, saying
// whose it was, before its own directory's sweep removes the one left.
func TestLeaseGuardsTheRunDirectory(t *testing.T) {
	quickLeases(t)
	t.Setenv("BENCH_BRIDGE_CACHE", t.TempDir()) // the run directories' records
	sh := shells(t)[0]
	ctx := context.Background()

	dev, workdir := shellDevice(t, sh)
	l, err := Acquire(ctx, dev, LeaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := dev.runDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(workdir); len(left) != 0 {
		t.Errorf("the device was given back with %v left in the workdir (the run directory was %s)", left, dir)
	}
	if left := leftRunDirs(dev.machine); len(left) != 0 {
		t.Errorf("records of a directory already removed: %v", left)
	}

	// A run killed while it held the device: its lease, its directory and the directory's record, all of a process
	// that is gone.
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	killed := me()
	killed.PID = exited.Process.Pid
	lease := filepath.Join(workdir, leaseName)
	stale := filepath.Join(workdir, runDirPrefix+"killed")
	for _, d := range []string{lease, stale} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(lease, "owner"), []byte(killed.String()+"\n"), 0o644)
	rd, _ := recordsDir()
	os.WriteFile(filepath.Join(rd, "killed"), []byte(dev.machine+"\n"+strconv.Itoa(killed.PID)+"\n"+stale+"\n"), 0o600)

	next, _ := shellDevice(t, sh)
	next.workdir, next.machine = dev.workdir, dev.machine
	var log testenv.Buffer
	next.log = &log
	l, err = Acquire(ctx, next, LeaseOptions{Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if _, err := next.runDir(ctx); err != nil {
		t.Fatal(err)
	}
	took := strings.Index(log.String(), "took over the lease of "+killed.describe())
	removed := strings.Index(log.String(), "removed "+stale+", left on the device by an earlier run")
	if took < 0 || removed < took {
		t.Errorf("the next run should take the lease over, then remove the directory left:\n%s", log.String())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(workdir); len(left) != 0 {
		t.Errorf("left in the workdir: %v", left)
	}
}
