package targets

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// Spec is how to reach one target: what a config file's [targets.NAME] section says, converted by the config
// package, or a built-in.
type Spec struct {
	// Kind is how bench-bridge reaches it: local, adb, ssh or novacom.
	Kind string
	// Serial is the adb serial of an adb target.
	Serial string
	// Host is [user@]host[:port] of an ssh target, or the device a novacom target names.
	Host       string
	Identity   string // ssh private key file
	KnownHosts string // ssh known_hosts file (default ~/.ssh/known_hosts)
	// LegacyAlgorithms opts an ssh target into old key exchanges, ciphers, MACs and host key types (old devices).
	LegacyAlgorithms bool
	// Toolchain names the toolchain to build with; empty lets the caller choose from the platform the target reports
	// (an ssh target's is picked by asking the device what it runs).
	Toolchain string
	// RunPrefix runs before the program on the device, e.g. "taskset -c 1" or "qemu-arm -cpu cortex-a8".
	RunPrefix string
	// Workdir is where programs are pushed on the device.
	Workdir string
	// Sysfs is where the device's sysfs is (DefaultSysfs when empty): what the device's state, its cores and its
	// clocks are read and set through. Open refuses one that CheckSysfs refuses: it goes into the device's scripts.
	Sysfs string
}

// Overrides are the command line's per-run settings for a target; they win over the spec.
type Overrides struct {
	Serial        string // adb serial (also $ANDROID_SERIAL)
	ADBHost       string // the adb server's host, adb's -H (also $ANDROID_ADB_SERVER_ADDRESS)
	ADBPort       int    // the adb server's port, adb's -P (also $ANDROID_ADB_SERVER_PORT)
	Host          string // ssh [user@]host[:port]
	Identity      string // ssh private key file
	KnownHosts    string // ssh known_hosts file
	AcceptHostKey string // the fingerprint (SHA256:...) of an unknown ssh host key to record, or AcceptHostKeyUnchecked
	RunPrefix     string // command put before the program on the device
	Workdir       string // directory on the device
	Log           io.Writer
}

// BuiltIn are the target names that need no config. A config target of the same name changes a built-in.
var BuiltIn = map[string]Spec{
	"linux":   {Kind: "local"},
	"mac":     {Kind: "local"},
	"webos":   {Kind: "ssh", Toolchain: "webos"},
	"ssh":     {Kind: "ssh"},
	"android": {Kind: "adb"},
}

// About is what each built-in target is, as its command's help says it: a short line and a longer one.
var About = map[string][2]string{
	"linux":   {"this machine (Linux)", "this machine, when it runs Linux"},
	"mac":     {"this machine (macOS)", "this machine, when it runs macOS (built with the system clang)"},
	"android": {"an Android device over adb", "the Android device adb lists (--serial or $ANDROID_SERIAL for one of several, --all for every one), built for its ABI"},
	"webos":   {"a webOS device over ssh", "an HP TouchPad-class webOS device over ssh (--host): ARMv7 softfp, static"},
	"ssh": {"a Linux board over ssh", "any Linux board over ssh, named by [USER@]HOST (a Host of ~/.ssh/config too): " +
		"bench-bridge asks it what it runs (the ELF header of its /bin/sh, its C library, its CPU) and picks the " +
		"toolchain, static"},
}

// openers build a target of each kind.
var openers = map[string]func(ctx context.Context, name string, spec Spec, o Overrides) (Target, error){
	"local": func(_ context.Context, name string, spec Spec, o Overrides) (Target, error) {
		spec.RunPrefix = pick(o.RunPrefix, spec.RunPrefix)
		l, err := NewLocal(name, spec)
		if err == nil {
			l.SetLog(o.Log)
		}
		return l, err
	},
	"ssh": func(ctx context.Context, name string, spec Spec, o Overrides) (Target, error) {
		return NewSSH(ctx, name, spec, o)
	},
	"novacom": func(_ context.Context, name string, spec Spec, o Overrides) (Target, error) {
		return NewNovacom(name, spec, o)
	},
	"adb": func(ctx context.Context, name string, spec Spec, o Overrides) (Target, error) {
		return NewADB(ctx, name, spec, o)
	},
}

// Lookup finds name among the configured specs, then the built-in ones.
func Lookup(name string, specs map[string]Spec) (Spec, bool) {
	if s, ok := specs[name]; ok {
		return s, true
	}
	s, ok := BuiltIn[name]
	return s, ok
}

// Open resolves name against the configured specs, then the built-in ones, checks the spec's sysfs root, applies the
// overrides and connects.
func Open(ctx context.Context, name string, specs map[string]Spec, o Overrides) (Target, error) {
	spec, ok := Lookup(name, specs)
	if !ok {
		return nil, fmt.Errorf("unknown target %q (have %s)", name, strings.Join(Names(specs), ", "))
	}
	open, ok := openers[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("target %s: kind %q is not supported by this bench-bridge", name, spec.Kind)
	}
	if err := CheckSysfs(spec.Sysfs); err != nil {
		return nil, fmt.Errorf("targets.%s.sysfs %q: %w", name, spec.Sysfs, err)
	}
	return open(ctx, name, spec, o)
}

// Names lists the built-in and configured target names, sorted.
func Names(specs map[string]Spec) []string {
	var names []string
	for n := range BuiltIn {
		names = append(names, n)
	}
	for n := range specs {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// PrefixWords splits a run prefix into the words that go before the program: at white space, with no shell syntax
// (every word reaches the device quoted, as it is). Quotes and backslashes are refused, since a user who writes them
// expects a shell to read them.
func PrefixWords(prefix string) ([]string, error) {
	if i := strings.IndexAny(prefix, "'\"\\`"); i >= 0 {
		return nil, fmt.Errorf("run prefix %q: %q is shell syntax, and the prefix is split at spaces into words passed "+
			"as they are; write the words without quotes", prefix, prefix[i:i+1])
	}
	return strings.Fields(prefix), nil
}

// LocalName is the built-in name of this machine: mac on macOS, linux elsewhere.
func LocalName() string {
	if runtime.GOOS == "darwin" {
		return "mac"
	}
	return "linux"
}
