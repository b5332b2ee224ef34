package main

import (
	"regexp"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/buildinfo"
)

// TestVersionIsSemantic: the version in the code is a semantic version, and what `version` prints names the module
// version only when a tag disagrees with it, and the commit when the binary knows it.
func TestVersionIsSemantic(t *testing.T) {
	semver := regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)
	if !semver.MatchString(Version) {
		t.Errorf("Version %q is not a semantic version", Version)
	}
	for _, tc := range []struct {
		code string
		b    buildinfo.Info
		want string
	}{
		{"0.10.0", buildinfo.Info{Module: "v0.10.0"}, "0.10.0"},
		{"0.10.0", buildinfo.Info{Module: "v0.11.0"}, "0.10.0 (module v0.11.0)"},
		{"0.10.0-dev", buildinfo.Info{Commit: "5396b46a1b2c3d4e5f", Dirty: true}, "0.10.0-dev 5396b46a1b2c+dirty"},
		{"0.10.0-dev", buildinfo.Info{}, "0.10.0-dev"},
	} {
		if got := tc.b.Version(tc.code); got != tc.want {
			t.Errorf("%+v.Version(%q) = %q, want %q", tc.b, tc.code, got, tc.want)
		}
	}
}
