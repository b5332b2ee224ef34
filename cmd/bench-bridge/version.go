package main

import (
	"fmt"
	"runtime"

	"github.com/bench-bridge/bench-bridge/internal/buildinfo"

	"github.com/spf13/cobra"
)

// Version is bench-bridge's semantic version (semver.org): the release this source is, or, with a -dev suffix, the
// release it is on its way to. CHANGELOG.md says what each version added, changed, deprecated and fixed, and
// docs/compatibility.md what a version number promises.
const Version = "0.10.0-dev"

// version is the version and, where the binary knows them, the module version and commit it was built from.
func version() string {
	return buildinfo.Read().Version(Version)
}

// newCmdVersion is `bench-bridge version`.
func newCmdVersion(f *Factory) *cobra.Command {
	stdout := f.IO.Out
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and how the binary was built",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(stdout, "bench-bridge %s (%s %s/%s)\n", version(), buildinfo.Read().GoVersion, runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
