package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/bench-bridge/bench-bridge/internal/buildinfo"
)

// Version is bench-bridge's semantic version (semver.org): the release this source is, or, with a -dev suffix, the
// release it is on its way to. CHANGELOG.md says what each version added, changed, deprecated and fixed, and
// docs/compatibility.md what a version number promises.
const Version = "0.10.0-dev"

// newCmdVersion is `bench-bridge version`.
func newCmdVersion(f *Factory) *cobra.Command {
	stdout := f.IO.Out
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and how the binary was built",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := buildinfo.Read() // the version, and the module version and commit when the binary knows them
			fmt.Fprintf(stdout, "bench-bridge %s (%s %s/%s)\n", b.Version(Version), b.GoVersion, runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
