package main

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/config"
	"github.com/bench-bridge/bench-bridge/session"
)

// TestRerunJobIsWhatTheFlagsMake: gate --confirm's rerun makes its job as a measuring command does (a plan from the
// build flags the artifact was made with): a bridge of the config's with its directory and binary, the reference
// bridge's codec with its defines and settings, the floor.
func TestRerunJobIsWhatTheFlagsMake(t *testing.T) {
	cfgFile := fakeBridge(t)
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTarget{name: "fake-a"}
	o := &gateOptions{IO: newFakes(false, false, ft).factory.IO}
	names := []string{"ref_js_loop", "callback"}
	for _, tc := range []struct {
		a          *artifact.Artifact
		codec      string
		user       bool
		defines    []string
		samples    int
		flagsCodec string // the build flags a measuring command gives for the same program
		engine     string
	}{
		{&artifact.Artifact{Kind: artifact.ProgramBridge, Codec: "fake"}, "fake", true, nil, 3, "", ""},
		{&artifact.Artifact{Kind: artifact.ProgramBridge, Codec: "binary",
			Settings: artifact.Settings{Defines: []string{"X=1"}, Samples: 5, MinTimeNs: 2e6}}, "binary", false, []string{"X=1"}, 5, "binary", ""},
		{&artifact.Artifact{Kind: artifact.ProgramFloor}, "", false, nil, 3, "", ""},
		{&artifact.Artifact{Kind: artifact.ProgramFloor, Engine: artifact.Engine{Name: "quickjs"}}, "", false, nil, 3, "", ""},
		{&artifact.Artifact{Kind: artifact.ProgramFloor, Engine: artifact.Engine{Name: "jsc", Version: "2.50.6"}}, "", false, nil, 3, "", "jsc"},
	} {
		job, err := (session.Rerun{Open: o.OpenTarget, Config: cfg, Builder: o.Builder, Log: o.IO.ErrOut}).Job(ft, tc.a, names, "out.json")
		if err != nil {
			t.Fatalf("%s: %v", tc.a.Label(), err)
		}
		if job.Kind != tc.a.Kind || job.Codec != tc.codec || (job.User != nil) != tc.user || !slices.Equal(job.Defines, tc.defines) ||
			job.Options.Samples != tc.samples || !slices.Equal(job.Options.Cases, names) || job.Out != "out.json" ||
			job.Options.Runs < session.CompareRounds || job.Target != ft || job.Engine != tc.engine {
			t.Errorf("%s: job %+v", tc.a.Label(), job)
		}
		if tc.user && (job.User.Dir != cfg.Dir() || filepath.Base(job.User.Binary) != "fake-bench") {
			t.Errorf("%s: the config's bridge %+v", tc.a.Label(), job.User)
		}
		if tc.flagsCodec != "" {
			p, err := newPlan(tc.a.Kind, buildFlags{session.Choice{Codec: tc.flagsCodec, Defines: tc.defines}}, measureFlags{Settings: session.Settings{Runs: 1, Samples: 1, MinTime: time.Millisecond, Record: session.RecordTimes}}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if mj := p.Job(ft, nil); mj.Codec != job.Codec || mj.QuickJSSrc != job.QuickJSSrc || !slices.Equal(mj.Defines, job.Defines) {
				t.Errorf("%s: rerun %+v, measuring command %+v", tc.a.Label(), job, mj)
			}
		}
	}
}
