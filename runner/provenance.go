package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
)

// notImplementedKey starts the meta key of a program's reason for lacking a case: `meta not_implemented.CASE REASON`.
const notImplementedKey = "not_implemented."

// recordProvenance fills what the artifact says about the program from what it reported (its meta lines) and how
// it was built. A user's program gets a QuickJS version only when it reports one: it may be another engine. Its
// codec is what it reports, and its compiler is what it reports beside what its build was handed.
func recordProvenance(a *artifact.Artifact, prog *build.Binary, meta map[string]string) {
	if len(meta) > 0 {
		a.Meta = maps.Clone(meta)
	}
	if e := meta["engine"]; e != "" {
		a.Engine = artifact.ParseEngine(e)
	}
	for _, c := range a.NotImplemented {
		if why := meta[notImplementedKey+c]; why != "" {
			if a.NotImplementedWhy == nil {
				a.NotImplementedWhy = map[string]string{}
			}
			a.NotImplementedWhy[c] = why
		}
	}
	if prog.User == nil {
		if q := meta["quickjs"]; q != "" {
			a.Device.QuickJS = q
		}
		if a.Engine.Name == "" && a.Device.QuickJS != "" { // a reference program built before the harness said
			a.Engine = artifact.Engine{Name: "quickjs", Version: a.Device.QuickJS}
		}
		return
	}
	a.Device.QuickJS = meta["quickjs"]
	a.Settings.Commit = prog.Commit
	if c := meta["codec"]; c != "" {
		a.Codec = c
	}
	if c := meta["compiler"]; c != "" {
		if a.Device.Compiler != "" {
			c += "; the build was handed " + a.Device.Compiler
		}
		a.Device.Compiler = c
	}
}

// checkSettings warns about cases whose samples do not follow the settings: another count than --samples, or samples
// far shorter than --min-time (noise can shorten samples after a slow calibration, so only a tenth counts).
func checkSettings(a *artifact.Artifact, raw *Raw, opts Options) {
	if !raw.sawTimer {
		a.Warnings = append(a.Warnings, "the program printed no timer_overhead_ns line (docs/protocol.md)")
	}
	if n := len(raw.DiedAtExit); n > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("the program died after its last case in %d of %d processes (%s): what it measured is kept, but a program that crashes on its way out has a bug to fix (run it by hand: PROG run CASE)",
			n, len(raw.Processes), raw.DiedAtExit[0]))
	}
	for _, rc := range raw.cases() {
		if rc.Partial {
			continue
		}
		var problems []string
		if len(rc.Ns) != opts.Samples {
			problems = append(problems, fmt.Sprintf("%d samples where --samples asked for %d", len(rc.Ns), opts.Samples))
		}
		if len(rc.Ns) > 0 && slices.Max(rc.Ns) < opts.MinTime.Nanoseconds()/10 {
			problems = append(problems, fmt.Sprintf("samples of at most %d ns where --min-time asked for %s", slices.Max(rc.Ns), opts.MinTime))
		}
		if len(problems) > 0 {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s: the program ignores the settings: %s (bench-bridge check PROG)", rc.Name, strings.Join(problems, ", ")))
		}
	}
}

// cases are the cases of every process, one process after another.
func (r *Raw) cases() []RawCase {
	var out []RawCase
	for _, p := range r.Processes {
		out = append(out, p.Cases...)
	}
	return out
}
