package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// A lock of the clocks changes settings that outlive bench-bridge, so it keeps what it changed in a file on the
// device first, and gives them back from that file: at the end of the run, on Ctrl-C, and when a run was killed or
// lost its connection, at the next connection to the device (as left run directories are removed). The file's first
// line names the bench-bridge that holds the clocks: "owner HOST PID UNIXTIME"; each other line is "set FILE VALUE",
// written back in order.

// lockShare is where in a cluster's range the lock holds it: the lowest frequency it can be set to that is at least
// half its top one, as androidx Microbenchmark's lockClocks.sh chooses, so that it holds without heating up.
const lockShare = 0.5

// cpuControl is the CPUs of one device, over a way to run a short script in its shell.
type cpuControl struct {
	label string // how errors name the device
	sysfs string // where the device's sysfs is: DefaultSysfs, or a spec's Sysfs
	saved string // the file on the device that keeps the settings a lock changed
	log   io.Writer
	// sh runs script in the device's shell within its bound and returns its stdout; a non-zero exit is an error
	// with its stderr.
	sh func(ctx context.Context, script string) ([]byte, error)
	// trySu lets root come from su where the shell is not root (a remote device's shell has no terminal for su to
	// ask a password on; this machine's may).
	trySu bool

	mu        sync.Mutex
	recovered bool                     // the settings a dead run left were looked for
	root      func(string) string      // wraps a script to run as root; nil until asked
	locked    []artifact.LockedCluster // what this run holds, until restored
}

// Cores implements CPUs.
func (c *cpuControl) Cores(ctx context.Context) ([]Core, error) {
	c.recoverLeft(ctx)
	out, err := c.sh(ctx, coresScript(c.sysfs))
	if err != nil {
		return nil, fmt.Errorf("%s: listing the cores: %w", c.label, err)
	}
	return parseCores(out), nil
}

// State implements CPUs.
func (c *cpuControl) State(ctx context.Context) (State, error) {
	c.recoverLeft(ctx)
	out, err := c.sh(ctx, stateScript(c.sysfs))
	if err != nil {
		return State{}, fmt.Errorf("%s: reading the device's state: %w", c.label, err)
	}
	return parseState(out), nil
}

// LockClocks implements CPUs: every core of the clusters of cores gets the governor that holds one frequency
// (userspace with scaling_setspeed, else performance with min = max) at the cluster's lock frequency (lockShare).
func (c *cpuControl) LockClocks(ctx context.Context, cores []int) ([]artifact.LockedCluster, error) {
	all, err := c.Cores(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := lockPlan(all, clusters(all, cores))
	if err != nil {
		return nil, fmt.Errorf("%s: --lock-clocks: %w", c.label, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	root, err := c.asRoot(ctx)
	if err != nil {
		return nil, err
	}
	owner := fmt.Sprintf("owner %s %d %d", hostName(), os.Getpid(), time.Now().Unix())
	if _, err := c.sh(ctx, root(lockScript(c.saved, owner, c.sysfs, plan))); err != nil {
		return nil, fmt.Errorf("%s: locking the clocks: %w", c.label, err)
	}
	c.locked = plan
	return plan, nil
}

// RestoreClocks implements CPUs. Settings it cannot give back stay saved on the device, for the next connection.
func (c *cpuControl) RestoreClocks(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.locked) == 0 {
		return nil
	}
	if err := c.restore(ctx); err != nil {
		return fmt.Errorf("%s: restoring the clock settings: %w; they stay saved in %s on the device, and bench-bridge "+
			"restores them at its next connection to it", c.label, err, c.saved)
	}
	c.locked = nil
	return nil
}

// restore writes back the saved settings and removes the file.
func (c *cpuControl) restore(ctx context.Context) error {
	root, err := c.asRoot(ctx)
	if err == nil {
		_, err = c.sh(ctx, root(restoreScript(c.saved)))
	}
	return err
}

// recoverLeft gives back, once per connection, the settings a run that is gone left locked on the device, or that
// this process left when it lost an earlier connection to it (a new connection holds no lock yet). Settings that
// another machine's bench-bridge holds are left alone: that machine cannot be asked whether its run still goes on.
func (c *cpuControl) recoverLeft(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recovered {
		return
	}
	c.recovered = true
	out, err := c.sh(ctx, "f="+shellPath(c.saved)+"; [ -f \"$f\" ] && { read -r l < \"$f\"; echo \"$l\"; }; true")
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return
	}
	host, pid, since, ok := parseClocksOwner(lastLine(out))
	switch {
	case ok && host != hostName():
		fmt.Fprintf(c.log, "%s: warning: bench-bridge on %s (pid %d) has held the device's clocks since %s; they are "+
			"left as they are\n", c.label, host, pid, since.Format(time.RFC3339))
		return
	case ok && pid != os.Getpid() && !processGone(pid):
		return // a run of this machine's that still goes on
	}
	if err := c.restore(ctx); err != nil {
		fmt.Fprintf(c.log, "%s: warning: could not restore the clock settings an earlier run left locked: %v\n", c.label, err)
		return
	}
	fmt.Fprintf(c.log, "%s: restored the clock settings an earlier run left locked on the device (%s)\n", c.label, c.saved)
}

// hostName names this machine in a saved file's owner line, as one word.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown"
	}
	return strings.Join(strings.Fields(h), "_")
}

// parseClocksOwner reads a saved clocks file's first line: "owner HOST PID UNIXTIME".
func parseClocksOwner(line string) (host string, pid int, since time.Time, ok bool) {
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "owner" {
		return "", 0, time.Time{}, false
	}
	pid, err1 := strconv.Atoi(f[2])
	unix, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, time.Time{}, false
	}
	return f[1], pid, time.Unix(unix, 0).UTC(), true
}

// asRoot finds how to run a script as root on the device: its shell is root, or su makes it so. Without root it
// says what can be done instead. The caller holds c.mu.
func (c *cpuControl) asRoot(ctx context.Context) (func(string) string, error) {
	if c.root != nil {
		return c.root, nil
	}
	script := "u=$(id -u 2>/dev/null); echo \"uid $u\"; echo \"sdk $(getprop ro.build.version.sdk 2>/dev/null)\"; "
	if c.trySu {
		script += "if [ \"$u\" != 0 ] && command -v su >/dev/null 2>&1; then " +
			"echo \"su_c $(su -c 'id -u' </dev/null 2>/dev/null)\"; echo \"su_0 $(su 0 sh -c 'id -u' </dev/null 2>/dev/null)\"; fi; "
	}
	out, err := c.sh(ctx, script+"true")
	if err != nil {
		return nil, fmt.Errorf("%s: asking for root: %w", c.label, err)
	}
	facts := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			facts[k] = strings.TrimSpace(v)
		}
	}
	switch {
	case facts["uid"] == "0":
		c.root = func(s string) string { return s }
	case facts["su_c"] == "0":
		c.root = func(s string) string { return "su -c " + shellQuote(s) }
	case facts["su_0"] == "0":
		c.root = func(s string) string { return "su 0 sh -c " + shellQuote(s) }
	default:
		return nil, unrooted(c.label, facts["uid"], facts["sdk"])
	}
	return c.root, nil
}

// fixedPerformanceSDK is the first Android SDK with the power service's fixed performance mode (Android 11).
const fixedPerformanceSDK = 30

// unrooted is the error of --lock-clocks on a device that gives no root, with what can be done instead.
func unrooted(label, uid, sdk string) error {
	msg := fmt.Sprintf("%s: --lock-clocks needs root, and the device's shell runs as uid %s with no su that gives root", label, uid)
	if n, err := strconv.Atoi(sdk); err == nil && n >= fixedPerformanceSDK {
		return errors.New(msg + "; Android 11 and later can hold the CPUs steady without root in fixed performance " +
			"mode: adb shell cmd power set-fixed-performance-mode-enabled true before the run (false after it), and " +
			"run without --lock-clocks; --cooldown then measures again the processes that ran in another state")
	}
	return errors.New(msg + "; lock them as root, or run without --lock-clocks and let --cooldown measure again the " +
		"processes that ran in another state")
}

// lockPlan chooses, for every cluster among cores, the frequency and the governor that hold it.
func lockPlan(all []Core, cores []int) ([]artifact.LockedCluster, error) {
	var plan []artifact.LockedCluster
	done := map[int]bool{}
	for _, c := range all {
		if !slices.Contains(cores, c.ID) || done[c.ID] {
			continue
		}
		cluster := artifact.LockedCluster{Cores: clusters(all, []int{c.ID}), MaxKHz: c.MaxKHz}
		for _, id := range cluster.Cores {
			done[id] = true
		}
		switch {
		case slices.Contains(c.Governors, "userspace"):
			cluster.Governor = "userspace"
		case slices.Contains(c.Governors, "performance"):
			cluster.Governor = "performance"
		case c.MaxKHz == 0:
			return nil, fmt.Errorf("cpu%d has no cpufreq: its clocks cannot be set", c.ID)
		default:
			return nil, fmt.Errorf("cpu%d has neither the userspace nor the performance governor (it has %s)", c.ID,
				strings.Join(c.Governors, ", "))
		}
		cluster.KHz = lockFrequency(c)
		if cluster.KHz <= 0 {
			return nil, fmt.Errorf("cpu%d reports no frequencies (cpuinfo_max_freq, scaling_available_frequencies)", c.ID)
		}
		plan = append(plan, cluster)
	}
	return plan, nil
}

// lockFrequency is the lowest frequency core can be set to that is at least lockShare of its top one; without a
// list of the frequencies it can be set to, that share of its top one.
func lockFrequency(core Core) int64 {
	top := core.MaxKHz
	for _, f := range core.Freqs {
		top = max(top, f)
	}
	want := int64(float64(top) * lockShare)
	best := int64(0)
	for _, f := range core.Freqs {
		if f >= want && (best == 0 || f < best) {
			best = f
		}
	}
	if best == 0 {
		return want
	}
	return best
}

// The scripts' shell functions are named bb_*: mksh has r and others as built-in aliases.

// restoreFn is a shell function bb_restore that writes every "set FILE VALUE" line of file $f back, in order, and
// removes $f. A value the kernel refuses at first (a min above the max of the moment) takes on the second pass the
// saved file holds; one it refuses for good (a speed the governor of the moment has no use for) is skipped.
const restoreFn = "bb_restore() { while read -r w p v; do [ \"$w\" = set ] && echo \"$v\" > \"$p\" 2>/dev/null; done < \"$f\"; rm -f \"$f\"; }; "

// restoreScript gives back the settings saved in file; nothing when there is none.
func restoreScript(file string) string {
	return "f=" + shellPath(file) + "; " + restoreFn + "[ -f \"$f\" ] || exit 0; bb_restore"
}

// lockScript saves the cpufreq settings of every core of plan in file (refusing when the file already holds some),
// then sets each cluster's governor and frequency and checks that the kernel kept them; on any failure it gives
// back what it saved. A min and a max are written max, min, max, so that one order or the other is accepted.
func lockScript(file, owner, sysfs string, plan []artifact.LockedCluster) string {
	var save, lock strings.Builder
	for _, cl := range plan {
		for _, id := range cl.Cores {
			d := shellPath(path.Join(sysfs, "devices/system/cpu", "cpu"+strconv.Itoa(id), "cpufreq"))
			fmt.Fprintf(&save, "bb_save %s && ", d)
			fmt.Fprintf(&lock, "bb_lock %s %d %s && ", d, cl.KHz, cl.Governor)
		}
	}
	// bb_save saves one core's settings as set lines: min and max twice (see restoreFn), the governor, and the speed
	// scaling_setspeed shows (a userspace governor's, else what the kernel prints for none).
	sFn := "bb_save() { g=$(cat \"$1/scaling_governor\") && lo=$(cat \"$1/scaling_min_freq\") && hi=$(cat \"$1/scaling_max_freq\") || return 1; " +
		"{ for k in 1 2; do echo \"set $1/scaling_min_freq $lo\"; echo \"set $1/scaling_max_freq $hi\"; done; " +
		"echo \"set $1/scaling_governor $g\"; [ ! -r \"$1/scaling_setspeed\" ] || echo \"set $1/scaling_setspeed $(cat \"$1/scaling_setspeed\")\"; } >> \"$f.tmp\"; }; "
	// bb_lock sets one core: governor, then max, min, max, then the userspace governor's speed; and reads them back.
	lFn := "bb_lock() { echo $3 > \"$1/scaling_governor\" || return 1; echo $2 > \"$1/scaling_max_freq\" 2>/dev/null; " +
		"echo $2 > \"$1/scaling_min_freq\" && echo $2 > \"$1/scaling_max_freq\" || return 1; " +
		"[ $3 != userspace ] || echo $2 > \"$1/scaling_setspeed\" || return 1; " +
		"[ \"$(cat \"$1/scaling_governor\")\" = $3 ] && [ \"$(cat \"$1/scaling_min_freq\")\" = $2 ] && [ \"$(cat \"$1/scaling_max_freq\")\" = $2 ] || " +
		"{ echo \"$1: the kernel kept $(cat \"$1/scaling_governor\") at $(cat \"$1/scaling_min_freq\")-$(cat \"$1/scaling_max_freq\") kHz\" >&2; return 1; }; }; "
	return "f=" + shellPath(file) + "; " + restoreFn + sFn + lFn +
		"if [ -e \"$f\" ]; then echo \"the clocks are held: $(head -n 1 \"$f\")\" >&2; exit 3; fi; " +
		"mkdir -p \"$(dirname \"$f\")\" && echo " + shellQuote(owner) + " > \"$f.tmp\" && " + save.String() +
		"mv \"$f.tmp\" \"$f\" || { echo \"could not save the cpufreq settings to $f\" >&2; rm -f \"$f.tmp\"; exit 1; }; " +
		lock.String() + "exit 0; bb_restore; exit 1"
}
