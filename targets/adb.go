package targets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/electricbubble/gadb"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
)

// ADB runs programs on an Android device through the adb server: the android target and config targets of kind
// adb. Files move with gadb's sync client; commands run through shell_v2 (or, on adbd before Android 7, the plain
// shell with the exit status printed after a marker).
type ADB struct {
	name    string
	serial  string
	host    adbHost
	dev     gadb.Device
	tc      build.Toolchain
	shellV2 bool
	prefix  string // RunPrefix, put before the program
	workdir string // where per-build directories go
	dir     string // this build's directory, once Push made it
	runs    int
	log     io.Writer
}

// DefaultAndroidWorkdir is where programs go on the device: the one place a shell user may write and execute.
const DefaultAndroidWorkdir = "/data/local/tmp"

// shortOp bounds what should take a moment on a live device (listing, facts, clean-up), so that a device that
// stopped answering cannot hang bench-bridge.
const shortOp = 30 * time.Second

// NewADB finds the device (the serial from the flags, the config or $ANDROID_SERIAL, or the only device attached)
// and picks the toolchain for its ABI.
func NewADB(ctx context.Context, name string, spec config.Target, o Overrides) (*ADB, error) {
	a, err := newADB(ctx, name, spec, o)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	return a, nil
}

func newADB(ctx context.Context, name string, spec config.Target, o Overrides) (*ADB, error) {
	host, port, err := adbServer()
	if err != nil {
		return nil, err
	}
	a := &ADB{name: name, host: adbHost{addr: host + ":" + strconv.Itoa(port)}, prefix: spec.RunPrefix,
		workdir: DefaultAndroidWorkdir, log: o.Log}
	if a.log == nil {
		a.log = io.Discard
	}
	if o.RunPrefix != "" {
		a.prefix = o.RunPrefix
	}
	if spec.Workdir != "" {
		a.workdir = spec.Workdir
	}
	if o.Workdir != "" {
		a.workdir = o.Workdir
	}
	ctx, cancel := context.WithTimeout(ctx, shortOp)
	defer cancel()
	serial := firstSet(o.Serial, spec.Serial, os.Getenv("ANDROID_SERIAL"))
	if a.serial, err = a.pick(ctx, serial); err != nil {
		return nil, err
	}
	if err := a.connect(port, host); err != nil {
		return nil, err
	}
	features, err := a.host.query(ctx, "host-serial:"+a.serial+":features")
	if err != nil {
		return nil, a.errorf("reading adbd's features: %w", err)
	}
	a.shellV2 = strings.Contains(","+features+",", ",shell_v2,")
	props, err := a.getprops(ctx, "ro.product.cpu.abi")
	if err != nil {
		return nil, err
	}
	if a.tc, err = androidToolchain(props["ro.product.cpu.abi"], spec.Toolchain, os.Getenv("ANDROID_NDK_HOME")); err != nil {
		return nil, a.errorf("%w", err)
	}
	return a, nil
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// pick chooses the device: the one named, or the only one attached; it explains a device that cannot be used.
func (a *ADB) pick(ctx context.Context, serial string) (string, error) {
	list, err := a.host.devices(ctx)
	if err != nil {
		return "", fmt.Errorf("adb server at %s: %w", a.host.addr, err)
	}
	if serial != "" {
		for _, d := range list {
			if d.Serial == serial {
				return serial, usable(d)
			}
		}
		return "", fmt.Errorf("no device %s (adb devices lists %s)", serial, describe(list))
	}
	switch len(list) {
	case 0:
		return "", errors.New("no Android device attached: plug one in with USB debugging on, or adb connect HOST:PORT")
	case 1:
		return list[0].Serial, usable(list[0])
	}
	return "", fmt.Errorf("%d devices attached: %s; choose one with --serial or ANDROID_SERIAL", len(list), describe(list))
}

// usable explains the adb states that cannot run programs, with what to do about each.
func usable(d adbDevice) error {
	hint := map[string]string{
		"unauthorized": "unlock the device and accept the \"Allow USB debugging?\" prompt for this computer, then run again",
		"offline": "adbd on the device does not answer: reconnect the cable (or adb reconnect offline), " +
			"and check that USB debugging is still on",
		"no permissions": "this user may not open the USB device: add a udev rule for it, or run adb as root " +
			"(adb kill-server; sudo adb start-server)",
		"bootloader": "the device is in the bootloader: boot it into Android",
		"recovery":   "the device is in recovery: boot it into Android",
		"sideload":   "the device is in sideload mode: boot it into Android",
	}
	if d.State == "device" {
		return nil
	}
	h, ok := hint[d.State]
	if !ok {
		h = "wait until adb devices shows it as \"device\""
	}
	return fmt.Errorf("device %s is %s: %s", d.Serial, d.State, h)
}

func describe(list []adbDevice) string {
	if len(list) == 0 {
		return "none"
	}
	var s []string
	for _, d := range list {
		desc := d.Serial + " (" + d.State
		if d.Model != "" {
			desc += ", " + d.Model
		}
		s = append(s, desc+")")
	}
	return strings.Join(s, ", ")
}

// connect finds the device in gadb's list, for its sync client.
func (a *ADB) connect(port int, host string) error {
	client, err := gadb.NewClientWith(host, port)
	if err != nil {
		return a.errorf("adb server: %w", err)
	}
	list, err := client.DeviceList()
	if err != nil {
		return a.errorf("listing devices: %w", err)
	}
	for _, d := range list {
		if d.Serial() == a.serial {
			a.dev = d
			return nil
		}
	}
	return a.errorf("the adb server does not list the device any more")
}

// errorf wraps an error with the device: "device SERIAL: ...".
func (a *ADB) errorf(format string, args ...any) error {
	return fmt.Errorf("device %s: "+format, append([]any{a.serial}, args...)...)
}

// Name implements Target.
func (a *ADB) Name() string { return a.name }

// Serial is the device's adb serial.
func (a *ADB) Serial() string { return a.serial }

// Machine names the device, so that runs on it go one after another (see targets.Machine).
func (a *ADB) Machine() string { return "adb:" + a.serial }

// Toolchain implements Target.
func (a *ADB) Toolchain() build.Toolchain { return a.tc }

// Push implements Target: the program goes to a directory of this build's own under the workdir, mode 0755.
func (a *ADB) Push(ctx context.Context, local string) (string, error) {
	if a.dir == "" {
		var b [6]byte
		rand.Read(b[:])
		dir := path.Join(a.workdir, "bench-bridge-"+hex.EncodeToString(b[:]))
		if err := a.run(ctx, "mkdir -p "+shellQuote(dir)); err != nil {
			return "", a.errorf("making %s: %w", dir, err)
		}
		a.dir = dir
	}
	f, err := os.Open(local)
	if err != nil {
		return "", err
	}
	defer f.Close()
	remote := path.Join(a.dir, filepath.Base(local))
	// gadb's sync client takes no context; its own deadline is 60 s per read.
	if err := untilDone(ctx, func() error { return a.dev.Push(f, remote, time.Now(), 0o755) }); err != nil {
		return "", a.errorf("pushing %s to %s: %w", local, remote, err)
	}
	return remote, nil
}

// untilDone runs f and returns its error, or ctx's when ctx ends first (f then finishes on its own).
func untilDone(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Pull implements Target.
func (a *ADB) Pull(ctx context.Context, remote, local string) error {
	f, err := os.Create(local)
	if err != nil {
		return err
	}
	err = untilDone(ctx, func() error { return a.dev.Pull(remote, f) })
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(local)
		return a.errorf("pulling %s: %w", remote, err)
	}
	return nil
}

// Run implements Target. The shell records its pid before it execs the program, so that the program can be killed
// on the device when ctx ends: closing the stream alone does not stop a program on every adbd.
func (a *ADB) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	a.runs++
	dir := a.dir
	if dir == "" {
		dir = path.Dir(program)
	}
	pidFile := path.Join(dir, fmt.Sprintf(".run-%d.pid", a.runs))
	words := []string{program}
	words = append(words, args...)
	command := "cd " + shellQuote(dir) + " && echo $$ > " + shellQuote(pidFile) + " && exec "
	if a.prefix != "" {
		command += a.prefix + " " // the user's own shell words, e.g. "taskset -c 2"
	}
	command += shellWords(words)

	var status int
	var err error
	if a.shellV2 {
		status, err = a.host.shellV2(ctx, a.serial, command, stdout, stderr)
	} else {
		status, err = a.host.shellLegacy(ctx, a.serial, command, pidFile+".stderr", stdout, stderr)
	}
	if ctx.Err() != nil {
		a.kill(pidFile)
		return a.errorf("%s: %w", path.Base(program), ctx.Err())
	}
	if errors.Is(err, errDeviceLost) {
		return a.errorf("%s: %w", path.Base(program), err)
	}
	if err != nil {
		return a.errorf("running %s: %w", path.Base(program), err)
	}
	if status != 0 {
		return exitStatus(status)
	}
	return nil
}

// exitStatus reads a shell's exit status: 128+N is death by signal N, as adbd and sh report it.
func exitStatus(status int) *ExitError {
	if status > 128 && status < 128+32 {
		return &ExitError{Status: -1, Signal: signalName(syscall.Signal(status - 128))}
	}
	return &ExitError{Status: status}
}

// kill stops a program whose run was cancelled, with a fresh connection and a bounded wait.
func (a *ADB) kill(pidFile string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := shellQuote(pidFile)
	if err := a.run(ctx, "[ -r "+q+" ] && kill -9 $(cat "+q+")"); err != nil {
		fmt.Fprintf(a.log, "%s: could not kill the program on the device: %v\n", a.name, err)
	}
}

// run runs a short shell command and fails with its stderr when it exits non-zero.
func (a *ADB) run(ctx context.Context, command string) error {
	_, err := a.output(ctx, command)
	return err
}

// output runs a short shell command and returns its stdout.
func (a *ADB) output(ctx context.Context, command string) (string, error) {
	var out, errOut strings.Builder
	var status int
	var err error
	if a.shellV2 {
		status, err = a.host.shellV2(ctx, a.serial, command, &out, &errOut)
	} else {
		err = a.host.shellV1Output(ctx, a.serial, command, &out)
	}
	if err != nil {
		return "", err
	}
	if status != 0 {
		return "", fmt.Errorf("%s: exit status %d: %s", command, status, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// Close implements Target: it removes this build's directory from the device.
func (a *ADB) Close() error {
	if a.dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), shortOp)
	defer cancel()
	dir := a.dir
	a.dir = ""
	if err := a.run(ctx, "rm -rf "+shellQuote(dir)); err != nil {
		return a.errorf("removing %s: %w", dir, err)
	}
	return nil
}

// Device implements Target: the probe script's facts, getprop's, the clocks and the temperatures.
func (a *ADB) Device(ctx context.Context) (artifact.Device, error) {
	ctx, cancel := context.WithTimeout(ctx, shortOp)
	defer cancel()
	out, err := a.output(ctx, ProbeScript+androidFactsScript)
	if err != nil {
		return artifact.Device{}, a.errorf("reading device facts: %w", err)
	}
	d := parseAndroidFacts(out)
	for _, w := range d.Warnings {
		fmt.Fprintf(a.log, "%s: warning: %s\n", a.name, w)
	}
	return d, nil
}

// getprops reads properties with getprop.
func (a *ADB) getprops(ctx context.Context, names ...string) (map[string]string, error) {
	var script strings.Builder
	for _, n := range names {
		fmt.Fprintf(&script, "echo %s=$(getprop %s);", n, n)
	}
	out, err := a.output(ctx, script.String())
	if err != nil {
		return nil, a.errorf("getprop: %w", err)
	}
	props := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			props[k] = v
		}
	}
	return props, nil
}
