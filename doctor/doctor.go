// Package doctor checks what a run on a target needs (a compiler, QuickJS's source, the device and its tools) and
// says, for each missing part, the command that fixes it.
package doctor

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
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
			f.Detail, f.Fix = dir+" has no quickjs.h", "point --quickjs-src or $"+build.EnvQuickJSSrc+" at an unpacked QuickJS "+build.QuickJSVersion+" release"
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
		f.Detail, f.Fix = "not cached, and apt-get is not here to fetch it", "set --quickjs-src or $"+build.EnvQuickJSSrc+" to a QuickJS "+build.QuickJSVersion+" source tree"
		return f
	}
	f.OK, f.Detail = true, "not cached yet: the first run fetches Debian's source package (about 1 MB)"
	return f
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
		return append(out, Finding{Target: name, Part: "device", Required: true, Detail: firstLine(err), Fix: hint(err)})
	}
	defer t.Close()
	p := t.Platform()
	tc, err := build.ForPlatform(p.Toolchain, p.ABI)
	if err != nil {
		return append(out, Finding{Target: name, Part: "compiler", Required: true, Detail: firstLine(err), Fix: hint(err)})
	}
	out = append(out, compiler(name, tc))
	if err := t.Run(tctx, "true", nil, io.Discard, io.Discard); err != nil {
		return append(out, Finding{Target: name, Part: "device", Required: true, Detail: firstLine(err), Fix: hint(err)})
	}
	out = append(out, Finding{Target: name, Part: "device", OK: true, Required: true, Detail: "reachable, runs programs"})
	prefix := o.Overrides.RunPrefix
	if prefix == "" {
		prefix = spec.RunPrefix
	}
	if p, _ := targets.PrefixWords(prefix); len(p) > 0 {
		out = append(out, onDevice(tctx, t, name, p[0], "run prefix "+p[0], true, "install "+p[0]+" on the device (for qemu: apt-get install qemu-user)"))
	}
	found := false
	for _, prof := range []string{"perf", "simpleperf", "strace", "valgrind"} {
		if err := t.Run(tctx, "sh", []string{"-c", "command -v " + prof}, io.Discard, io.Discard); err == nil {
			out = append(out, Finding{Target: name, Part: "profiler " + prof, OK: true, Detail: "on the device"})
			found = true
		}
	}
	if !found {
		out = append(out, Finding{Target: name, Part: "profiler", Detail: "none of perf, simpleperf, strace, valgrind (only profile needs one)",
			Fix: "apt-get install linux-perf strace valgrind (on Android: simpleperf ships with Android 9+)"})
	}
	return out
}

// compiler checks the toolchain's compiler on this machine.
func compiler(target string, tc build.Toolchain) Finding {
	cc := strings.Fields(tc.CC + " ")[0]
	f := Finding{Target: target, Part: "compiler (" + tc.Name + ")", Required: true}
	if path, err := exec.LookPath(cc); err == nil {
		f.OK, f.Detail = true, path
		return f
	}
	f.Detail, f.Fix = cc+" not found", tc.Hint
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

// onDevice checks a command on the device.
func onDevice(ctx context.Context, t targets.Target, target, cmd, what string, required bool, fix string) Finding {
	f := Finding{Target: target, Part: what, Required: required}
	if err := t.Run(ctx, "sh", []string{"-c", "command -v " + cmd}, io.Discard, io.Discard); err == nil {
		f.OK, f.Detail = true, "on the device"
		return f
	}
	f.Detail, f.Fix = cmd+" not found on the device", fix
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

func firstLine(err error) string {
	return strings.SplitN(err.Error(), "\n", 2)[0]
}

// hint is what an error says to do: its "hint:" line, or its second line.
func hint(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for _, l := range lines[1:] {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "hint:"); ok {
			return strings.TrimSpace(h)
		}
	}
	if len(lines) > 1 {
		return strings.TrimSpace(lines[1])
	}
	return ""
}
