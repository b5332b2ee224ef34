// Package config reads bench-bridge.toml: defaults for a run, the QuickJS source to use, and user bridges declared by
// their build command and binary. Errors name the file, the line and the key.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
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
}

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

// Bridge is a user's bench program: a shell command that builds it and the binary it makes (docs/protocol.md).
type Bridge struct {
	Build  string `toml:"build"`
	Binary string `toml:"binary"`
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

// Parse decodes and checks a config file's text; path is used for messages and relative paths.
func Parse(path, text string) (*Config, error) {
	c := &Config{Path: path}
	md, err := toml.Decode(text, c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		var keys []string
		for _, k := range undecoded {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("%s: unknown key %s (known: defaults.samples, defaults.min_time, defaults.out_dir, quickjs.src, bridges.NAME.build, bridges.NAME.binary)", path, strings.Join(keys, ", "))
	}
	if c.Defaults.Samples < 0 {
		return nil, fmt.Errorf("%s: defaults.samples is %d, want at least 1", path, c.Defaults.Samples)
	}
	if c.Defaults.MinTime.Duration < 0 {
		return nil, fmt.Errorf("%s: defaults.min_time is %s, want a positive duration", path, c.Defaults.MinTime)
	}
	for name, b := range c.Bridges {
		if b.Build == "" || b.Binary == "" {
			return nil, fmt.Errorf("%s: bridges.%s needs both build and binary", path, name)
		}
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
