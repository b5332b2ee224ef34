package config

import (
	"maps"

	"github.com/bench-bridge/bench-bridge/targets"
)

// WithTargets returns a copy of c with extra targets beside its own (extra's where a name is in both), and leaves c
// as it was: the ssh boards a command line names join the command's view of the config, never the config itself.
func (c *Config) WithTargets(extra map[string]Target) *Config {
	out := &Config{}
	if c != nil {
		*out = *c
	}
	out.Targets = maps.Clone(out.Targets)
	if out.Targets == nil {
		out.Targets = map[string]Target{}
	}
	maps.Copy(out.Targets, extra)
	return out
}

// Spec converts the target's section to what the targets package opens.
func (t Target) Spec() targets.Spec {
	return targets.Spec{Kind: t.Kind, Serial: t.Serial, Host: t.Host, Identity: t.Identity, KnownHosts: t.KnownHosts,
		LegacyAlgorithms: t.LegacyAlgorithms, Toolchain: t.Toolchain, RunPrefix: t.RunPrefix, Workdir: t.Workdir,
		Sysfs: t.Sysfs}
}

// Specs converts every configured target; a nil config has none.
func (c *Config) Specs() map[string]targets.Spec {
	specs := map[string]targets.Spec{}
	if c == nil {
		return specs
	}
	for name, t := range c.Targets {
		specs[name] = t.Spec()
	}
	return specs
}
