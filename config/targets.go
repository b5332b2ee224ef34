package config

import "github.com/bench-bridge/bench-bridge/targets"

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
