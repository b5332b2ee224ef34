package targets

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/bench-bridge/bench-bridge/config"
)

// Overrides are the command line's per-run settings for a target; they win over the config.
type Overrides struct {
	Serial        string // adb serial (also $ANDROID_SERIAL)
	Host          string // ssh [user@]host[:port]
	Identity      string // ssh private key file
	KnownHosts    string // ssh known_hosts file
	AcceptHostKey string // the fingerprint (SHA256:...) of an unknown ssh host key to record, or AcceptHostKeyUnchecked
	RunPrefix     string // command put before the program on the device
	Workdir       string // directory on the device
	Log           io.Writer
}

// BuiltIn are the target names that need no config. A config target of the same name changes a built-in.
var BuiltIn = map[string]config.Target{
	"linux": {Kind: "local"},
	"mac":   {Kind: "local"},
	// webos: an HP TouchPad-class device over ssh (--host); ARMv7 softfp, static.
	"webos": {Kind: "ssh", Toolchain: "webos"},
	// android: the one device adb lists, or --serial / $ANDROID_SERIAL; built for its ABI.
	"android": {Kind: "adb"},
}

// openers build a target of each kind.
var openers = map[string]func(ctx context.Context, name string, spec config.Target, o Overrides) (Target, error){
	"local": func(_ context.Context, name string, spec config.Target, _ Overrides) (Target, error) {
		return NewLocal(name, spec)
	},
	"ssh": func(ctx context.Context, name string, spec config.Target, o Overrides) (Target, error) {
		return NewSSH(ctx, name, spec, o)
	},
	"novacom": func(_ context.Context, name string, spec config.Target, o Overrides) (Target, error) {
		return NewNovacom(name, spec, o)
	},
	"adb": func(ctx context.Context, name string, spec config.Target, o Overrides) (Target, error) {
		return NewADB(ctx, name, spec, o)
	},
}

// Open resolves name against the config's targets, then the built-in ones, applies the overrides and connects.
func Open(ctx context.Context, name string, cfg *config.Config, o Overrides) (Target, error) {
	spec, ok := cfg.Targets[name]
	if !ok {
		spec, ok = BuiltIn[name]
	}
	if !ok {
		return nil, fmt.Errorf("unknown target %q (have %s)", name, strings.Join(Names(cfg), ", "))
	}
	open, ok := openers[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("target %s: kind %q is not supported by this bench-bridge", name, spec.Kind)
	}
	return open(ctx, name, spec, o)
}

// Names lists the built-in and configured target names, sorted.
func Names(cfg *config.Config) []string {
	var names []string
	for n := range BuiltIn {
		names = append(names, n)
	}
	for n := range cfg.Targets {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
