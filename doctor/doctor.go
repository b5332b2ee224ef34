// Package doctor checks what a run on a target needs (a compiler, QuickJS's source, the device and its tools) and
// says, for each missing part, the command that fixes it.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/hint"
	"github.com/bench-bridge/bench-bridge/targets"
)

// Finding is one checked part.
type Finding struct {
	Target   string `json:"target"`
	Part     string `json:"part"`
	OK       bool   `json:"ok"`
	Required bool   `json:"required"`
	Detail   string `json:"detail"`
	Fix      string `json:"fix,omitempty"`
}

// Options are what the checks need from the command line.
type Options struct {
	QuickJSSrc string
	Overrides  targets.Overrides
	// Timeout bounds each reachability check.
	Timeout time.Duration
}

// Check examines each named target and returns the findings in order.
func Check(ctx context.Context, cfg *config.Config, names []string, o Options) []Finding {
	var out []Finding
	out = append(out, quickJS(o.QuickJSSrc))
	out = append(out, otherEngines(engines.Local())...)
	for _, name := range names {
		out = append(out, checkTarget(ctx, cfg, name, o)...)
	}
	return out
}

// quickJS checks that a QuickJS source tree is there or can be fetched.
func quickJS(explicit string) Finding {
	f := Finding{Target: "-", Part: "QuickJS source", Required: true}
	for _, dir := range []string{explicit, os.Getenv(build.EnvQuickJSSrc)} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(dir + "/quickjs.h"); err != nil {
			f.Detail, f.Fix = dir+" has no quickjs.h", "point --quickjs-src or $"+build.EnvQuickJSSrc+" at an unpacked QuickJS "+engines.QuickJSVersion+" release"
			return f
		}
		f.OK, f.Detail = true, dir
		return f
	}
	if dir, ok := build.CachedQuickJS(); ok {
		f.OK, f.Detail = true, dir+" (pinned, sha256 checked)"
		return f
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		f.Detail, f.Fix = "not cached, and apt-get is not here to fetch it", "set --quickjs-src or $"+build.EnvQuickJSSrc+" to a QuickJS "+engines.QuickJSVersion+" source tree"
		return f
	}
	f.OK, f.Detail = true, "not cached yet: the first run fetches Debian's source package (about 1 MB)"
	return f
}

// otherEngines checks the parts of every engine but QuickJS on this machine: none is required (the default floor is
// QuickJS's), and each missing one is named with the Debian package that brings it.
func otherEngines(s engines.System) []Finding {
	var out []Finding
	for _, e := range engines.All {
		if e.Name == engines.QuickJS {
			continue
		}
		st := e.Check(s)
		f := Finding{Target: "-", Part: "engine " + e.Name, OK: st.Have, Detail: st.Detail, Fix: st.Fix}
		if st.Have {
			f.Detail = e.Title + " " + st.Version + " (" + st.Detail + ")"
		}
		out = append(out, f)
	}
	return out
}

// checkTarget checks one target: its definition, its compiler, the device and its profilers.
func checkTarget(ctx context.Context, cfg *config.Config, name string, o Options) []Finding {
	specs := cfg.Specs()
	spec, known := targets.Lookup(name, specs)
	if !known {
		return []Finding{{Target: name, Part: "definition", Required: true, Detail: "unknown target",
			Fix: "declare it under [targets." + name + "] in " + config.DefaultFile + " (have " + strings.Join(targets.Names(specs), ", ") + ")"}}
	}
	var out []Finding
	if spec.Kind == "adb" {
		out = append(out, command(name, "adb", "adb (Android's debug bridge)", true, "apt-get install adb"))
	}
	if spec.Kind == "novacom" {
		out = append(out, command(name, "novacom", "novacom client", true, "install Palm's novacom client (not in Debian) and put it on PATH"))
	}
	tctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	t, err := targets.Open(tctx, name, specs, o.Overrides)
	if err != nil {
		out = append(out, failure(name, "device", err))
		// The compiler does not need the device, unless the device's ABI chooses it.
		if tc, ok := toolchainWithoutDevice(spec); ok {
			out = append(out, compiler(ctx, name, tc))
		}
		return out
	}
	defer t.Close()
	p := t.Platform()
	tc, err := build.ForPlatform(p.Toolchain, p.ABI)
	if err != nil {
		return append(out, failure(name, "compiler", err))
	}
	out = append(out, compiler(ctx, name, tc))
	// Every program runs under the prefix, so a missing prefix is named before the device is tried with it.
	prefix := runPrefix(tctx, t, spec, o)
	out = append(out, prefix...)
	if slices.ContainsFunc(prefix, func(f Finding) bool { return !f.OK }) {
		return out
	}
	if err := t.Run(tctx, "true", nil, io.Discard, io.Discard); err != nil {
		return append(out, failure(name, "device", err))
	}
	out = append(out, Finding{Target: name, Part: "device", OK: true, Required: true, Detail: "reachable, runs programs"})
	out = append(out, profilers(tctx, t, spec)...)
	if spec.Kind != "local" && tc.NativeOn == runtime.GOARCH {
		out = append(out, boardEngines(tctx, t)...)
	}
	return out
}

// boardEngines checks, on a board of this machine's architecture, the shared libraries of each engine whose floor
// links this machine's library (build.EngineLibraries): the floor runs there when the board has them. None is
// required; a missing one is named with this machine's Debian package of it.
func boardEngines(ctx context.Context, t targets.Target) []Finding {
	var out []Finding
	for _, e := range engines.All {
		libs := build.EngineLibraries(ctx, e.Name)
		if len(libs) == 0 {
			continue
		}
		f := Finding{Target: t.Name(), Part: "engine " + e.Name}
		missing, err := targets.MissingLibraries(ctx, t, libs)
		switch {
		case err != nil:
			f.Detail = strings.SplitN(err.Error(), "\n", 2)[0]
		case len(missing) == 0:
			f.OK, f.Detail = true, "on the device: "+strings.Join(libs, ", ")+" (floor "+t.Name()+" --engine "+e.Name+")"
		default:
			f.Detail = "the device has no " + strings.Join(missing, ", ") + ", which its floor links"
			if pkgs := build.LibraryPackages(ctx, missing); len(pkgs) > 0 {
				f.Fix = "on the device (a Debian of this machine's release): apt-get install " + strings.Join(pkgs, " ")
			}
		}
		out = append(out, f)
	}
	return out
}

// where says where a target runs programs, for findings.
func where(spec targets.Spec) string {
	if spec.Kind == "local" {
		return "on this machine"
	}
	return "on the device"
}

// runPrefix checks the run prefix's command where the target runs programs; no finding without a prefix.
func runPrefix(ctx context.Context, t targets.Target, spec targets.Spec, o Options) []Finding {
	name, where := t.Name(), where(spec)
	var out []Finding
	// The prefix the runner uses: the command line's, else the config's, in the runner's words.
	prefix := o.Overrides.RunPrefix
	if prefix == "" {
		prefix = spec.RunPrefix
	}
	words, err := targets.PrefixWords(prefix)
	if err != nil {
		out = append(out, Finding{Target: name, Part: "run prefix", Required: true, Detail: err.Error(),
			Fix: "write the prefix as plain words, e.g. --run-prefix \"taskset -c 1\""})
	}
	if len(words) > 0 {
		f := Finding{Target: name, Part: "run prefix " + words[0], Required: true, Detail: where}
		if f.OK = lookPath(ctx, t, spec.Kind, words[0]); !f.OK {
			f.Detail, f.Fix = words[0]+" not found "+where, "install "+words[0]+" "+where+" (for qemu: apt-get install qemu-user)"
		}
		out = append(out, f)
	}
	return out
}

// profilers checks the profilers profile can use where the target runs programs.
func profilers(ctx context.Context, t targets.Target, spec targets.Spec) []Finding {
	name, where := t.Name(), where(spec)
	var out []Finding
	found := false
	for _, prof := range []string{"perf", "simpleperf", "strace", "valgrind"} {
		if lookPath(ctx, t, spec.Kind, prof) {
			out = append(out, Finding{Target: name, Part: "profiler " + prof, OK: true, Detail: where})
			found = true
		}
	}
	if !found {
		out = append(out, Finding{Target: name, Part: "profiler", Detail: "none of perf, simpleperf, strace, valgrind: profile uses the bench program's own itimer sampler (docs/profile.md)",
			Fix: "for kernel-level profiles: apt-get install linux-perf strace valgrind (on Android: simpleperf ships with Android 9+)"})
	}
	return out
}

// toolchainWithoutDevice is the toolchain a target builds with when the device cannot say: the configured one (for
// novacom, webos by default), the host's for a local target, and for Android the one for arm64-v8a, the ABI of
// nearly every phone (a device of another ABI is checked once it is reachable).
func toolchainWithoutDevice(spec targets.Spec) (build.Toolchain, bool) {
	var tc build.Toolchain
	var err error
	switch {
	case spec.Toolchain != "":
		tc, err = build.ForPlatform(spec.Toolchain, "")
	case spec.Kind == "local":
		tc = build.Host()
	case spec.Kind == "novacom":
		tc, err = build.ForPlatform("webos", "")
	case spec.Kind == "adb":
		tc, err = build.ForPlatform("", "arm64-v8a")
	default:
		return tc, false
	}
	return tc, err == nil
}

// lookPath reports whether cmd is a command where the target runs programs. On this machine that is exec.LookPath,
// the lookup exec does when the runner starts a program; no shell sees the word. On a device the device's shell
// looks it up, with the word as a quoted argument, never as shell text.
func lookPath(ctx context.Context, t targets.Target, kind, cmd string) bool {
	if kind == "local" {
		_, err := exec.LookPath(cmd)
		return err == nil
	}
	return t.Run(ctx, "sh", []string{"-c", `command -v -- "$1" >/dev/null`, "sh", cmd}, io.Discard, io.Discard) == nil
}

// compiler checks that the toolchain compiles and links a C program here, as bench programs are built.
func compiler(ctx context.Context, target string, tc build.Toolchain) Finding {
	part := "compiler (" + tc.Name + ")"
	if err := tc.Check(ctx); err != nil {
		return failure(target, part, err)
	}
	cc, how := strings.Fields(tc.CC)[0], "compiles and links a C program"
	if slices.Contains(tc.LDFlags, "-static") {
		how = "compiles and statically links a C program"
	}
	return Finding{Target: target, Part: part, OK: true, Required: true, Detail: cc + " " + how}
}

// failure is a required part that failed with err: its first line, and its hint (a *hint.Fix) as the fix.
func failure(target, part string, err error) Finding {
	f := Finding{Target: target, Part: part, Required: true, Detail: err.Error(), Fix: hint.Of(err)}
	var fix *hint.Fix
	if errors.As(err, &fix) {
		f.Detail = fix.Err.Error() // without the hint's own line
	}
	f.Detail = strings.SplitN(f.Detail, "\n", 2)[0]
	return f
}

// command checks a command on this machine.
func command(target, cmd, what string, required bool, fix string) Finding {
	f := Finding{Target: target, Part: what, Required: required}
	if path, err := exec.LookPath(cmd); err == nil {
		f.OK, f.Detail = true, path
		return f
	}
	f.Detail, f.Fix = cmd+" not found", fix
	return f
}

// Failed reports whether a required part is missing.
func Failed(fs []Finding) bool {
	for _, f := range fs {
		if f.Required && !f.OK {
			return true
		}
	}
	return false
}

// Write prints the findings, one per line, with the fix under each missing part.
func Write(w io.Writer, fs []Finding) {
	for _, f := range fs {
		mark := "ok     "
		switch {
		case !f.OK && f.Required:
			mark = "MISSING"
		case !f.OK:
			mark = "absent "
		}
		fmt.Fprintf(w, "%s  %-8s %-26s %s\n", mark, f.Target, f.Part, f.Detail)
		if !f.OK && f.Fix != "" {
			fmt.Fprintf(w, "         fix: %s\n", f.Fix)
		}
	}
}
