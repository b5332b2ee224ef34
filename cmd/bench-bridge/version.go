package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Version is bench-bridge's semantic version (semver.org): the release this source is, or, with a -dev suffix, the
// release it is on its way to. CHANGELOG.md says what each version added, changed, deprecated and fixed, and
// docs/compatibility.md what a version number promises.
const Version = "0.10.0-dev"

// buildInfo is how the binary was built: its module version, when `go install ...@VERSION` built it, and the commit
// of a build from a git checkout.
type buildInfo struct {
	module, commit, goVersion string
	dirty                     bool
}

// readBuildInfo reads what the Go toolchain stamped into the binary.
func readBuildInfo() buildInfo {
	var b buildInfo
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.goVersion = info.GoVersion
	if v := info.Main.Version; v != "" && v != "(devel)" && !strings.HasPrefix(v, "v0.0.0-") {
		b.module = v // a tagged release; a pseudo-version only repeats the commit
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.modified":
			b.dirty = s.Value == "true"
		}
	}
	return b
}

// version is the version and, where the binary knows them, the module version and commit it was built from:
// "0.10.0-dev 5396b46a1b2c+dirty", "0.10.0 (module v0.10.0)".
func version() string {
	return versionOf(Version, readBuildInfo())
}

func versionOf(v string, b buildInfo) string {
	if b.module != "" && strings.TrimPrefix(b.module, "v") != v {
		v += " (module " + b.module + ")" // a tag that disagrees with the source: say both
	}
	if len(b.commit) >= 12 {
		v += " " + b.commit[:12]
		if b.dirty {
			v += "+dirty"
		}
	}
	return v
}

// newCmdVersion is `bench-bridge version`.
func newCmdVersion(f *Factory) *cobra.Command {
	stdout := f.IO.Out
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and how the binary was built",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(stdout, "bench-bridge %s (%s %s/%s)\n", version(), readBuildInfo().goVersion, runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
