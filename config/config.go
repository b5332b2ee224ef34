// Package config reads bench-bridge.toml: defaults for a run, the QuickJS source to use, and user bridges declared by
// their build command and binary. Errors name the file, the line and the key.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultFile is the config file looked for in the working directory.
const DefaultFile = "bench-bridge.toml"

// Config is the whole file.
type Config struct {
	// Path is the file it came from ("" when there was none); relative paths in it are relative to its directory.
	Path     string            `toml:"-"`
	Defaults Defaults          `toml:"defaults"`
	QuickJS  QuickJS           `toml:"quickjs"`
	Bridges  map[string]Bridge `toml:"bridges"`
	Targets  map[string]Target `toml:"targets"`
	Gate     Gate              `toml:"gate"`
	// broken holds the problems of each bridge that is declared but unusable: it blocks only the commands that
	// measure that bridge (see Bridge).
	broken map[string]error
}

// Gate is how `bench-bridge gate` decides that a case regressed (docs/gate.md). Zero values mean the defaults.
type Gate struct {
	// Alpha is the significance level of the Mann-Whitney U test on ref-normalised samples (default 0.05).
	Alpha float64 `toml:"alpha"`
	// MinEffect is the least relative growth of a case's ratio to ref_js_loop that counts (default 0.10).
	MinEffect float64 `toml:"min_effect"`
	// Metric is what is compared: time (default) or instructions (callgrind counts, no statistics).
	Metric string `toml:"metric"`
	// InstructionsThreshold is the least relative growth of instructions per op, over ref_js_loop's, that counts
	// (default 0.01).
	InstructionsThreshold float64 `toml:"instructions_threshold"`
	// AllocationsThreshold is the least growth of allocations per op (absolute) that counts with metric
	// allocations (default 0: any growth).
	AllocationsThreshold float64 `toml:"allocations_threshold"`
	// Cases overrides the thresholds per case.
	Cases map[string]GateCase `toml:"cases"`
	// Guards are absolute bounds every current artifact must keep.
	Guards []Guard `toml:"guards"`
}

// GateCase overrides the gate's thresholds for one case.
type GateCase struct {
	MinEffect             float64 `toml:"min_effect"`
	InstructionsThreshold float64 `toml:"instructions_threshold"`
	AllocationsThreshold  float64 `toml:"allocations_threshold"`
	// Skip leaves the case out of the gate (still shown).
	Skip bool `toml:"skip"`
}

// Guard is an absolute bound: case's ratio to ref_js_loop must stay at most MaxRatioToRef, in every current
// artifact (or those of Target and Codec, when set).
type Guard struct {
	Case          string  `toml:"case"`
	MaxRatioToRef float64 `toml:"max_ratio_to_ref"`
	Target        string  `toml:"target"`
	Codec         string  `toml:"codec"`
}

// Target declares a device beyond the built-in names (linux, mac, android, webos), or changes a built-in one.
type Target struct {
	// Kind is how bench-bridge reaches it: local, adb, ssh or novacom.
	Kind string `toml:"kind"`
	// Serial is the adb serial of an adb target.
	Serial string `toml:"serial"`
	// Host is [user@]host[:port] of an ssh target.
	Host       string `toml:"host"`
	Identity   string `toml:"identity"`    // ssh private key file
	KnownHosts string `toml:"known_hosts"` // ssh known_hosts file (default ~/.ssh/known_hosts)
	// LegacyAlgorithms opts an ssh target into old key exchanges, ciphers, MACs and host key types (old devices).
	LegacyAlgorithms bool `toml:"legacy_algorithms"`
	// Toolchain names a toolchain bench-bridge knows (see build.Toolchains), e.g. "webos" or "aarch64".
	Toolchain string `toml:"toolchain"`
	// RunPrefix runs before the program on the device, e.g. "taskset -c 1" or "qemu-arm -cpu cortex-a8".
	RunPrefix string `toml:"run_prefix"`
	// Workdir is where programs are pushed on the device.
	Workdir string `toml:"workdir"`
	// Sysfs is where the device's sysfs is mounted (default /sys): the cpufreq, thermal and battery files its state
	// is read from and its clocks are set through. An absolute path of letters, digits and ._/+@,:- only
	// (targets.CheckSysfs): it goes into the scripts the device's shell runs.
	Sysfs string `toml:"sysfs"`
}

// TargetKinds lists the kinds a target can have.
var TargetKinds = []string{"local", "adb", "ssh", "novacom"}

// Defaults apply to every run unless a flag says otherwise.
type Defaults struct {
	Samples int      `toml:"samples"`
	MinTime Duration `toml:"min_time"`
	OutDir  string   `toml:"out_dir"`
}

// QuickJS points at a QuickJS source tree of the user's instead of the pinned release.
type QuickJS struct {
	Src string `toml:"src"`
}

// Bridge is a user's bench program (docs/bridge.md): the binary, and optionally a shell command that builds it.
type Bridge struct {
	// Build runs with sh in the config's directory; empty for a prebuilt binary.
	Build string `toml:"build"`
	// Binary is the program's path, relative to the config's directory.
	Binary string `toml:"binary"`
}

// Bridge returns the declared bridge name with its binary resolved against the config's directory, or why it cannot
// be used: it is not declared, or its entry has problems (all of them, with their lines).
func (c *Config) Bridge(name string) (Bridge, error) {
	if err := c.broken[name]; err != nil {
		return Bridge{}, err
	}
	b, ok := c.Bridges[name]
	if !ok {
		where := c.Path
		if where == "" {
			where = "no config file found"
		}
		return Bridge{}, fmt.Errorf("--bridge %s: no bridges.%s in the config (%s)", name, name, where)
	}
	b.Binary = c.Resolve(b.Binary)
	return b, nil
}

// Duration is a time.Duration written as a string ("50ms") in the file.
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration like \"50ms\": %q", b)
	}
	d.Duration = v
	return nil
}

// Load reads path, or DefaultFile in the working directory when path is empty (a missing default file is an empty
// config, a missing named file an error).
func Load(path string) (*Config, error) {
	explicit := path != ""
	if !explicit {
		path = DefaultFile
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return &Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(path, string(data))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Dir is the directory relative paths in the config are taken from.
func (c *Config) Dir() string {
	if c.Path == "" {
		return "."
	}
	return filepath.Dir(c.Path)
}

// Resolve makes a path from the config absolute, relative to the config's directory.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(filepath.Join(c.Dir(), p))
	if err != nil {
		return p
	}
	return abs
}
