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
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
)

// ADB is an Android device reached through the adb server: the android target and config targets of kind adb.
type ADB struct {
	*device
	conn *adbConn
}

// adbConn is the adb transport. Files move through the sync service; commands run through shell_v2 (or, on adbd
// before Android 7, the plain shell with the exit status printed after a marker).
type adbConn struct {
	serial  string
	host    adbHost
	shellV2 bool
	tmp     string // where the plain shell leaves a command's stderr for a moment
}

// DefaultAndroidWorkdir is where programs go on the device: the one place a shell user may write and execute.
const DefaultAndroidWorkdir = "/data/local/tmp"

// androidProbe is an Android device's: the Linux facts and getprop's.
var androidProbe = probe{script: ProbeScript + androidFactsScript, parse: func(out []byte) artifact.Device {
	return parseAndroidFacts(string(out))
}, inline: true}

// NewADB finds the device (the serial from the flags, the spec or $ANDROID_SERIAL, or the only device attached)
// and reads its ABI, for the caller to choose the toolchain.
func NewADB(ctx context.Context, name string, spec Spec, o Overrides) (*ADB, error) {
	c, abi, err := dialADB(ctx, firstSet(o.Serial, spec.Serial, os.Getenv("ANDROID_SERIAL")), o)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	c.tmp = firstSet(o.Workdir, spec.Workdir, DefaultAndroidWorkdir)
	r, err := newDevice(deviceParts{name: name, label: "device " + c.serial, machine: "adb:" + c.serial,
		platform: Platform{Toolchain: spec.Toolchain, ABI: abi}, workdir: c.tmp,
		prefix: firstSet(o.RunPrefix, spec.RunPrefix), sysfs: spec.Sysfs, log: o.Log, tr: c, probe: androidProbe})
	if err != nil {
		return nil, err
	}
	return &ADB{device: r, conn: c}, nil
}

// Serial is the device's adb serial.
func (a *ADB) Serial() string { return a.conn.serial }

// dialADB picks the device through the adb server o names, checks that it can run programs and reads what it speaks
// and its ABI.
func dialADB(ctx context.Context, serial string, o Overrides) (*adbConn, string, error) {
	addr, err := adbServer(o)
	if err != nil {
		return nil, "", err
	}
	c := &adbConn{host: adbHost{addr: addr}}
	ctx, cancel := context.WithTimeout(ctx, shortOp)
	defer cancel()
	if c.serial, err = c.pick(ctx, serial); err != nil {
		return nil, "", err
	}
	features, err := c.host.query(ctx, "host-serial:"+c.serial+":features")
	if err != nil {
		return nil, "", c.errorf("reading adbd's features: %w", err)
	}
	c.shellV2 = strings.Contains(","+features+",", ",shell_v2,")
	var out strings.Builder
	status, err := c.exec(ctx, "getprop ro.product.cpu.abi", nil, &out, io.Discard)
	if err == nil && status != 0 {
		err = fmt.Errorf("exit status %d", status)
	}
	if err != nil {
		return nil, "", c.errorf("getprop: %w", err)
	}
	return c, strings.TrimSpace(out.String()), nil
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
func (c *adbConn) pick(ctx context.Context, serial string) (string, error) {
	list, err := c.host.devices(ctx)
	if err != nil {
		return "", fmt.Errorf("adb server at %s: %w", c.host.addr, err)
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

// errorf wraps an error with the device: "device SERIAL: ...".
func (c *adbConn) errorf(format string, args ...any) error {
	return fmt.Errorf("device %s: "+format, append([]any{c.serial}, args...)...)
}

// exec implements transport. adbd runs the command with sh -c; the plain shell gets its own sh -c inside that.
func (c *adbConn) exec(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if stdin != nil {
		return 0, errNoStdin
	}
	if c.shellV2 {
		return c.host.shellV2(ctx, c.serial, command, stdout, stderr)
	}
	var b [6]byte
	rand.Read(b[:])
	errFile := path.Join(c.tmp, ".bench-bridge-stderr-"+hex.EncodeToString(b[:]))
	return c.host.shellLegacy(ctx, c.serial, command, errFile, stdout, stderr)
}

// push implements transport with the sync service, mode 0755.
func (c *adbConn) push(ctx context.Context, r io.Reader, remote string) error {
	return c.host.push(ctx, c.serial, r, remote, 0o755, time.Now())
}

// pull implements transport with the sync service.
func (c *adbConn) pull(ctx context.Context, remote string, w io.Writer) error {
	return c.host.pull(ctx, c.serial, remote, w)
}

// close implements transport: every service had a connection of its own.
func (c *adbConn) close() error { return nil }
