package profile

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/targets"
)

// bridgeProgram builds the json bridge on this machine (cached after the first build).
func bridgeProgram(t *testing.T) (targets.Target, string, artifact.Device) {
	t.Helper()
	testenv.SkipInShort(t, "builds the json bridge and profiles it")
	testenv.Require(t, "cc", "apt-get install gcc")
	if runtime.GOOS != "linux" {
		t.Skip("perf, strace and callgrind are Linux profilers; on macOS profile uses sample")
	}
	local, err := targets.NewLocal("linux", targets.Spec{Kind: "local"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := build.QuickJSSource(ctx, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := build.BuildQuickJS(ctx, build.Host(), src, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := build.BuildProgram(ctx, build.Host(), lib, artifact.ProgramBridge, "json", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Profile a copy in a directory of the test's own, so the profiler's data file lands there.
	dir := t.TempDir()
	bin := filepath.Join(dir, "bridge")
	b, _ := os.ReadFile(prog.Path)
	os.WriteFile(bin, b, 0o755)
	dev, err := local.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return local, bin, dev
}

// TestProfilersNameTheBoundaryAndQuickJS runs the real perf, strace and callgrind on the json bridge and checks that
// the summary names the bridge's own functions and QuickJS's, and that the raw output and data file are kept.
func TestProfilersNameTheBoundaryAndQuickJS(t *testing.T) {
	target, bin, dev := bridgeProgram(t)
	for _, tc := range []struct {
		tool, command, install string
		secs                   float64
		parts                  []string
	}{
		{"perf", "perf", "apt-get install linux-perf", 1, []string{"boundary", "interpreter", "number text", "allocation"}},
		{"callgrind", "valgrind", "apt-get install valgrind", 0.5, []string{"boundary", "interpreter", "number text", "allocation"}},
		{"strace", "strace", "apt-get install strace", 0.5, []string{"kernel"}},
		{"itimer", "", "", 2, []string{"boundary", "interpreter", "number text", "allocation"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			if tc.command != "" {
				testenv.Require(t, tc.command, tc.install)
			}
			out := t.TempDir()
			res, err := Run(context.Background(), target, bin, dev, Options{Case: "script_to_host_scalar", Seconds: tc.secs, Tool: tc.tool, OutDir: out, Log: io.Discard, Binary: bin})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.parts {
				if res.Parts[p] <= 0 {
					t.Errorf("%s: no share for %s: %+v", tc.tool, p, res.Parts)
				}
			}
			if tc.tool != "strace" {
				var boundary, quickjs bool
				for _, f := range res.Top {
					boundary = boundary || Classify(f) == "boundary"
					quickjs = quickjs || strings.HasPrefix(f.Symbol, "JS_") || strings.HasPrefix(f.Symbol, "js_")
				}
				if !quickjs {
					t.Errorf("%s: no QuickJS function among the top: %+v", tc.tool, res.Top)
				}
				if res.Parts["boundary"] == 0 || !boundary && len(res.Top) < TopN {
					t.Errorf("%s: the bridge's own functions are not named: %+v", tc.tool, res.Top)
				}
				if st, err := os.Stat(res.Data); err != nil || st.Size() == 0 {
					t.Errorf("%s: data file %s not kept: %v", tc.tool, res.Data, err)
				}
			}
			// The sampling profilers' stacks pass from QuickJS through the bridge's host function, and end the raw
			// output, folded.
			if tc.tool == "perf" || tc.tool == "itimer" {
				through := 0
				for s, n := range res.Stacks {
					if strings.Contains(s, ";JS_CallInternal;") && strings.Contains(s, ";host_entry;") {
						through += int(n)
					}
				}
				raw, _ := os.ReadFile(res.Raw)
				if through == 0 || !maps.Equal(ParseFolded(string(raw)), res.Stacks) {
					t.Errorf("%s: %d samples through JS_CallInternal and host_entry of %d; the raw output's stacks are the result's: %v",
						tc.tool, through, res.Stacks.total(), maps.Equal(ParseFolded(string(raw)), res.Stacks))
				}
			}
			if want := filepath.Join(out, "profile-linux-script_to_host_scalar.txt"); res.Raw != want {
				t.Errorf("raw output at %s, want %s", res.Raw, want)
			}
		})
	}
}

func TestProfileErrors(t *testing.T) {
	target, bin, dev := bridgeProgram(t)
	ctx := context.Background()
	if _, err := Run(ctx, target, bin, dev, Options{Case: "script_to_host_scalar", Seconds: 1, Tool: "sample", OutDir: t.TempDir(), Log: io.Discard}); err == nil ||
		!strings.Contains(err.Error(), "profiler sample is not on the device: sample ships with macOS") {
		t.Errorf("missing profiler: %v", err)
	}
	if _, err := Run(ctx, target, bin, dev, Options{Case: "script_to_host_scalar", Seconds: 1, Tool: "gprof", OutDir: t.TempDir(), Log: io.Discard}); err == nil ||
		!strings.Contains(err.Error(), `unknown profiler "gprof"`) {
		t.Errorf("unknown profiler: %v", err)
	}
	for _, s := range []string{"abc", "0", "-1", "1e9"} {
		if _, err := ParseSeconds(s); err == nil || !strings.Contains(err.Error(), "not a number of seconds") {
			t.Errorf("ParseSeconds(%q) = %v", s, err)
		}
	}
}

// filesTarget is a target whose files are this machine's when host is set (its Capabilities say so), and a device's
// otherwise, which Pull copies from.
type filesTarget struct {
	targets.Target
	host   bool
	pulled []string
}

func (f *filesTarget) Name() string { return "dev" }
func (f *filesTarget) Capabilities() targets.Capabilities {
	return targets.Capabilities{HostFiles: f.host}
}
func (f *filesTarget) Pull(_ context.Context, remote, local string) error {
	f.pulled = append(f.pulled, remote)
	return os.WriteFile(local, []byte("a copy"), 0o644)
}

// TestDeviceFilesFollowTheCapabilities: the libraries a program mapped are read where they are on a target whose files
// are the host's (HostFiles), and pulled into the directory from any other; the local target declares HostFiles.
func TestDeviceFilesFollowTheCapabilities(t *testing.T) {
	ctx := context.Background()
	host := &filesTarget{host: true}
	if got := deviceFiles(ctx, host, t.TempDir())("/lib/libc.so.6"); got != "/lib/libc.so.6" || len(host.pulled) != 0 {
		t.Errorf("host files: %q, pulled %q", got, host.pulled)
	}
	dev, dir := &filesTarget{}, t.TempDir()
	got := deviceFiles(ctx, dev, dir)("/lib/libc.so.6")
	if filepath.Dir(got) != dir || !strings.HasSuffix(got, "libc.so.6") || len(dev.pulled) != 1 || dev.pulled[0] != "/lib/libc.so.6" {
		t.Errorf("a device's files: %q, pulled %q", got, dev.pulled)
	}
	if runtime.GOOS == "linux" {
		local, err := targets.NewLocal("linux", targets.Spec{Kind: "local"})
		if err != nil || !local.Capabilities().HostFiles {
			t.Errorf("the local target's files are not the host's: %v", err)
		}
	}
}
