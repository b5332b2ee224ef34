// Package buildinfo says how the bench-bridge binary was built: its module version, when `go install ...@VERSION`
// built it, and the commit of a build from a git checkout.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what the Go toolchain stamped into the binary.
type Info struct {
	Module, Commit, GoVersion string
	Dirty                     bool
}

// Read reads what the Go toolchain stamped into the binary.
func Read() Info {
	var b Info
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.GoVersion = info.GoVersion
	if v := info.Main.Version; v != "" && v != "(devel)" && !strings.HasPrefix(v, "v0.0.0-") {
		b.Module = v // a tagged release; a pseudo-version only repeats the commit
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Dirty = s.Value == "true"
		}
	}
	return b
}

// Version is the source's version v and, where the binary knows them, the module version and commit it was built
// from: "0.10.0-dev 5396b46a1b2c+dirty", "0.10.0 (module v0.10.0)".
func (b Info) Version(v string) string {
	if b.Module != "" && strings.TrimPrefix(b.Module, "v") != v {
		v += " (module " + b.Module + ")" // a tag that disagrees with the source: say both
	}
	if len(b.Commit) >= 12 {
		v += " " + b.Commit[:12]
		if b.Dirty {
			v += "+dirty"
		}
	}
	return v
}
