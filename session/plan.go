package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/engines"
	"github.com/bench-bridge/bench-bridge/runner"
	"github.com/bench-bridge/bench-bridge/targets"
)

// TargetPlaceholder in an artifact's path is replaced by the target's name, so that one --out serves every target.
const TargetPlaceholder = "{target}"

// BuildFunc makes a job's program; nil builds it for real (runner.Job.Build).
type BuildFunc func(context.Context, *runner.Job) (*build.Binary, error)

// Program is what a command's build flags resolve to with the config: the reference bridge's codec or a user's
// bridge, QuickJS's source and compile-time options. Each job gets a copy of its own.
type Program struct {
	Codec      string // the reference bridge's codec, or the user bridge's name
	User       *runner.UserBridge
	QuickJSSrc string
	Defines    []string
}

// Plan is what every job of a measuring command shares, read-only: checked once, before any target opens.
type Plan struct {
	Kind    string // artifact.ProgramBridge or artifact.ProgramFloor
	Engine  string // the floor's engine; "" for QuickJS
	Program Program
	Builder BuildFunc
	Options runner.Options
	Out     string // the artifact's path, TargetPlaceholder standing for the target's name; "" for OutDir's default
	OutDir  string
}

// Job is the plan for target t, with options and defines of its own: jobs running in parallel share nothing they
// write. It is the one way the commands make a runner.Job: measuring, compare, gate --confirm's rerun and profile.
func (p Plan) Job(t targets.Target, log io.Writer) *runner.Job {
	opts := p.Options
	opts.Cases = slices.Clone(p.Options.Cases)
	opts.Progress = log
	out := strings.ReplaceAll(p.Out, TargetPlaceholder, t.Name())
	if out == "" {
		codec := p.Program.Codec
		if u := p.Program.User; u != nil && u.Rev != "" { // not the bridge's linux-mine.json: another program
			codec += "@" + FileRev(u.Rev)
		}
		out = filepath.Join(p.OutDir, SubsetName(DefaultName(t.Name(), p.Kind, codec, p.Engine), opts.Cases))
	}
	var user *runner.UserBridge
	if p.Program.User != nil {
		u := *p.Program.User
		user = &u
	}
	return &runner.Job{Target: t, Kind: p.Kind, Codec: p.Program.Codec, QuickJSSrc: p.Program.QuickJSSrc, Engine: p.Engine,
		Options: opts, Out: out, Log: log, User: user, Defines: slices.Clone(p.Program.Defines), Builder: p.Builder}
}

// DefaultName is the artifact's file name: linux.json, floor-linux.json, floor-jsc-linux.json (another engine's
// floor), linux-fast.json.
func DefaultName(target, kind, codec, engine string) string {
	switch {
	case kind == artifact.ProgramFloor && engine != "" && engine != engines.Default:
		return "floor-" + engine + "-" + target + ".json"
	case kind == artifact.ProgramFloor:
		return "floor-" + target + ".json"
	case codec == "" || codec == "json":
		return target + ".json"
	}
	return target + "-" + codec + ".json"
}

// SubsetName marks the file name of a run of some of the cases, so that it never overwrites a full run's artifact:
// linux.json becomes linux-subset-1a2b3c4d.json, the hash naming the set of cases.
func SubsetName(name string, selected []string) string {
	if len(selected) == len(cases.Catalogue) {
		return name
	}
	sum := sha256.Sum256([]byte(strings.Join(selected, ",")))
	return strings.TrimSuffix(name, ".json") + "-subset-" + hex.EncodeToString(sum[:4]) + ".json"
}

// FileRev is a revision as it can stand in a file name: origin/main -> origin-main.
func FileRev(rev string) string {
	return strings.NewReplacer("/", "-", ":", "-", "~", "-", "^", "-", " ", "-").Replace(rev)
}

// CheckOut refuses an artifact path (--out) that several targets would all write to.
func CheckOut(out string, targetNames []string) error {
	if out != "" && len(targetNames) > 1 && !strings.Contains(out, TargetPlaceholder) {
		return fmt.Errorf("--out %s with %d targets (%s): every artifact would go to that one file; put %s in it, which becomes each target's name",
			out, len(targetNames), strings.Join(targetNames, ", "), TargetPlaceholder)
	}
	return nil
}
