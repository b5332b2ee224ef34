package session

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/config"
)

// ProgramArg is a program as an argument of compare (or profile --diff) names it: the floor, a codec of the reference
// bridge or a bridge of the config, at a revision, and its options.
type ProgramArg struct {
	Arg      string // as given
	Kind     string // artifact.ProgramBridge or artifact.ProgramFloor
	Codec    string // the reference bridge's codec
	Bridge   string // the config's bridge, NAME or NAME@REV
	Engine   string // the floor's engine, floor:ENGINE; "" for QuickJS's
	Slowdown float64
}

// ParseProgramArg reads NAME[@REV][:slowdown=SHARE], REV being a revision of a user's bridge (merge-base:BRANCH too),
// and floor:ENGINE[,slowdown=SHARE], the floor of an engine of engines.All, so that one session alternates the floors
// of several engines.
func ParseProgramArg(arg string, cfg *config.Config) (ProgramArg, error) {
	name, rev, opts := SplitProgramArg(arg)
	p := ProgramArg{Arg: arg}
	switch {
	case rev != "" && cfg.Bridges[name].Build == "":
		return p, fmt.Errorf("program %q: only a bridge of the config with a build command can be built at a revision", arg)
	case rev != "":
		p.Kind, p.Bridge = artifact.ProgramBridge, name+"@"+rev
	case name == artifact.ProgramFloor:
		p.Kind = artifact.ProgramFloor
		if first, rest, _ := strings.Cut(opts, ","); first != "" && !strings.Contains(first, "=") {
			engine, _, err := FloorProgram(artifact.ProgramFloor + ":" + first)
			if err != nil {
				return p, err
			}
			p.Engine, opts = engine, rest
		}
	case slices.Contains(build.Codecs, name):
		p.Kind, p.Codec = artifact.ProgramBridge, name
	case cfg.Bridges[name].Build != "" || cfg.Bridges[name].Binary != "":
		p.Kind, p.Bridge = artifact.ProgramBridge, name
	default:
		known := append([]string{artifact.ProgramFloor}, build.Codecs...)
		for b := range cfg.Bridges {
			known = append(known, b)
		}
		sort.Strings(known[1+len(build.Codecs):])
		return p, fmt.Errorf("program %q: want one of %s (a bridge from the config, or floor or a codec), with options like :slowdown=0.10, or floor:ENGINE",
			arg, strings.Join(known, ", "))
	}
	for _, opt := range strings.Split(opts, ",") {
		if opt == "" {
			continue
		}
		key, val, _ := strings.Cut(opt, "=")
		if key != "slowdown" {
			return p, fmt.Errorf("program %q: unknown option %q (have slowdown=SHARE)", arg, key)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v >= 0 && v <= 10) {
			return p, fmt.Errorf("program %q: slowdown=%s: want a share between 0 and 10, like 0.10", arg, val)
		}
		p.Slowdown = v
	}
	return p, nil
}

// SplitProgramArg splits NAME[@REV][:OPTIONS]; a revision merge-base:BRANCH keeps its colon.
func SplitProgramArg(arg string) (name, rev, opts string) {
	name, opts, _ = strings.Cut(arg, ":")
	n, r, ok := strings.Cut(arg, "@")
	if !ok || strings.Contains(n, ":") {
		return name, "", opts
	}
	prefix := ""
	if b, ok := strings.CutPrefix(r, build.MergeBasePrefix); ok {
		prefix, r = build.MergeBasePrefix, b
	}
	r, opts, _ = strings.Cut(r, ":")
	if r == "" {
		return n + "@", "", opts // names no revision, and no program
	}
	return n, prefix + r, opts
}

// FileName is the artifact's name in compare's directory: the program's letter (a, b, ... for the i-th) and its
// usual name.
func (p ProgramArg) FileName(i int, target string) string {
	codec := p.Codec
	if p.Bridge != "" {
		codec = FileRev(p.Bridge)
	}
	name := strings.TrimSuffix(DefaultName(target, p.Kind, codec, p.Engine), ".json")
	if p.Slowdown > 0 {
		name += "-slowdown" + strconv.FormatFloat(p.Slowdown, 'g', -1, 64)
	}
	return fmt.Sprintf("%c-%s.json", 'a'+i, name)
}

// ComparePlans reads compare's program arguments and makes each one's plan: the command's choice and settings, but
// for the program's codec or bridge and its options.
func ComparePlans(args []string, c Choice, s Settings, outDir string, cfg *config.Config, builder BuildFunc) ([]ProgramArg, []Plan, error) {
	parsed := make([]ProgramArg, len(args))
	plans := make([]Plan, len(args))
	for i, a := range args {
		var err error
		if parsed[i], err = ParseProgramArg(a, cfg); err != nil {
			return nil, nil, err
		}
		c, s := c, s
		c.Codec, c.Bridge, s.Slowdown = parsed[i].Codec, parsed[i].Bridge, parsed[i].Slowdown
		if plans[i], err = NewPlan(parsed[i].Kind, c, s, "", outDir, cfg); err != nil {
			return nil, nil, err
		}
		plans[i].Builder, plans[i].Engine = builder, parsed[i].Engine
	}
	return parsed, plans, nil
}
