package analysis

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/internal/fakeart"
)

// fake is fakeart.Artifact: an artifact of statistics without a machine.
func fake(t *testing.T, seed uint64, noise float64, medians map[string]float64) *artifact.Artifact {
	t.Helper()
	return fakeart.Artifact(seed, noise, medians)
}

func verdicts(r *Result) map[string]Verdict {
	out := map[string]Verdict{}
	for _, c := range r.Cases {
		out[c.Case] = c.Verdict
	}
	return out
}

var base = fakeart.Base

var scaled = fakeart.Scaled

func TestJudgeTime(t *testing.T) {
	o := Options{}.WithDefaults()
	tests := []struct {
		name string
		cur  map[string]float64
		want map[string]Verdict
	}{
		{"same program", base, map[string]Verdict{"script_to_host_scalar": Same, "callback": Same, "script_to_host_object": Same}},
		// A machine twice as slow makes every case twice as slow: the ratios, and so the gate, do not move.
		{"slower machine", scaled(base, map[string]float64{cases.RefCase: 2, "script_to_host_scalar": 2, "callback": 2, "script_to_host_object": 2}),
			map[string]Verdict{"script_to_host_scalar": Same, "callback": Same, "script_to_host_object": Same}},
		{"25% more per crossing", scaled(base, map[string]float64{"script_to_host_scalar": 1.25, "callback": 1.25, "script_to_host_object": 1.05}),
			map[string]Verdict{"script_to_host_scalar": Regressed, "callback": Regressed, "script_to_host_object": Same}},
		{"faster", scaled(base, map[string]float64{"callback": 0.5}), map[string]Verdict{"callback": Improved}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, tt.cur), "base.json", "cur.json", o)
			if err != nil {
				t.Fatal(err)
			}
			got := verdicts(r)
			for c, v := range tt.want {
				if got[c] != v {
					t.Errorf("%s: %s, want %s (%+v)", c, got[c], v, r.Cases)
				}
			}
			if _, ok := got[cases.RefCase]; ok {
				t.Errorf("the reference itself was gated")
			}
		})
	}
}

// A significant change smaller than the minimum effect is not a regression; a per-case override moves the bar.
func TestMinimumEffectAndOverride(t *testing.T) {
	cur := scaled(base, map[string]float64{"script_to_host_scalar": 1.06, "callback": 1.06})
	b, c := fake(t, 1, 0.005, base), fake(t, 2, 0.005, cur)
	o := Options{Cases: map[string]CaseOptions{"callback": {MinEffect: 0.03}, "script_to_host_object": {Skip: true}}}.WithDefaults()
	r, err := Judge(b, c, "b", "c", o)
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(r)
	if got["script_to_host_scalar"] != Same || got["callback"] != Regressed || got["script_to_host_object"] != Skipped {
		t.Fatalf("verdicts %v, want same (6%% < 10%%), regressed (6%% > 3%%), skipped", got)
	}
	if p := r.Cases[0].P; p == nil || *p > 0.05 {
		t.Errorf("the 6%% shift with 0.5%% noise should be significant, p=%v", p)
	}
}

// Noise as large as the change: not significant, so not a regression, however large the medians' ratio.
func TestNoisyChangeIsNotARegression(t *testing.T) {
	b := fake(t, 1, 0.02, base)
	c := fake(t, 2, 0.02, base)
	sc := c.Case("script_to_host_scalar")
	// Two samples far off: the median moves little and the U test sees no shift.
	sc.SamplesNs[0], sc.SamplesNs[1] = 5000, 6000
	r, err := Judge(b, c, "b", "c", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(r)["script_to_host_scalar"]; v != Same {
		t.Errorf("two outliers: %s, want same", v)
	}
}

func withInstructions(a *artifact.Artifact, counts map[string]float64) *artifact.Artifact {
	for i := range a.Cases {
		if v, ok := counts[a.Cases[i].Name]; ok {
			a.Cases[i].InstructionsPerOp = &v
		}
	}
	a.Device.Compiler, a.Device.Arch = "gcc 12.2.0", "x86_64"
	return a
}

func TestJudgeInstructions(t *testing.T) {
	counts := map[string]float64{cases.RefCase: 451, "script_to_host_scalar": 19041, "callback": 18860, "script_to_host_object": 83650}
	o := Options{Metric: Instructions}.WithDefaults()
	b := withInstructions(fake(t, 1, 0.02, base), counts)
	// Times that say nothing (noise 50%) do not matter: the counts decide.
	c := withInstructions(fake(t, 2, 0.5, base), scaled(counts, map[string]float64{"script_to_host_scalar": 1.02, "callback": 1.005}))
	r, err := Judge(b, c, "b", "c", o)
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(r)
	if got["script_to_host_scalar"] != Regressed || got["callback"] != Same || got["script_to_host_object"] != Same {
		t.Fatalf("verdicts %v: want +2%% regressed, +0.5%% same at the 1%% threshold", got)
	}
	if r.Cases[0].P != nil {
		t.Errorf("instruction counts need no statistics, got p=%v", *r.Cases[0].P)
	}

	c.Device.Compiler = "gcc 14.2.0"
	if _, err := Judge(b, c, "b.json", "c.json", o); err == nil || !strings.Contains(err.Error(), "compiler") {
		t.Errorf("counts of another compiler: err %v, want a refusal naming the compiler", err)
	}
	if _, err := Judge(fake(t, 1, 0.02, base), c, "b.json", "c.json", o); err == nil || !strings.Contains(err.Error(), "b.json: no instruction counts") {
		t.Errorf("baseline without counts: err %v", err)
	}
}

func TestGuards(t *testing.T) {
	o := Options{Guards: []Guard{
		{Case: "script_to_host_scalar", MaxRatioToRef: 40},
		{Case: "callback", MaxRatioToRef: 60},
		{Case: "callback", MaxRatioToRef: 1, Target: "android"}, // another target's bound
	}}.WithDefaults()
	r, err := Judge(fake(t, 1, 0.01, base), fake(t, 2, 0.01, base), "b", "c", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Guards) != 2 || r.Guards[0].OK || !r.Guards[1].OK {
		t.Fatalf("guards %+v: want scalar (50x) over 40 breached, callback under 60 kept, android's not applied", r.Guards)
	}
	if reg := r.Regressions(); len(reg) != 1 || !strings.Contains(reg[0], "script_to_host_scalar") {
		t.Errorf("regressions %v", reg)
	}
	// A rerun under the bound does not confirm the breach.
	rerun := fake(t, 3, 0.01, scaled(base, map[string]float64{"script_to_host_scalar": 0.7}))
	Confirm(r, fake(t, 1, 0.01, base), rerun, "rerun.json", o)
	if !r.Guards[0].OK || r.Guards[0].Rerun == nil || len(r.Regressions()) != 0 {
		t.Errorf("after an unconfirming rerun: %+v", r.Guards[0])
	}
}

func TestConfirm(t *testing.T) {
	o := Options{}.WithDefaults()
	b := fake(t, 1, 0.02, base)
	worse := scaled(base, map[string]float64{"script_to_host_scalar": 1.3, "callback": 1.3})
	r, err := Judge(b, fake(t, 2, 0.02, worse), "b", "c", o)
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Flagged(); !slices.Equal(f, []string{"script_to_host_scalar", "callback"}) {
		t.Fatalf("flagged %v", f)
	}
	// The rerun shows scalar slow again, callback back to normal: a noise burst.
	Confirm(r, b, fake(t, 3, 0.02, scaled(base, map[string]float64{"script_to_host_scalar": 1.3})), "rerun.json", o)
	got := verdicts(r)
	if got["script_to_host_scalar"] != Regressed || got["callback"] != Unconfirmed {
		t.Errorf("after the rerun: %v, want scalar regressed, callback unconfirmed", got)
	}
	if reg := r.Regressions(); !slices.Equal(reg, []string{"script_to_host_scalar"}) {
		t.Errorf("regressions %v", reg)
	}
}

func TestFailedCaseRegresses(t *testing.T) {
	c := fake(t, 2, 0.02, map[string]float64{cases.RefCase: 25, "callback": 1250, "script_to_host_object": 6000})
	c.Failures = []artifact.Failure{{Name: "script_to_host_scalar", Reason: "killed by signal SIGSEGV"}}
	r, err := Judge(fake(t, 1, 0.02, base), c, "b", "c", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(r)["script_to_host_scalar"]; v != Failed {
		t.Errorf("crashed case: %s, want failed", v)
	}
	c.Complete = false
	r, _ = Judge(fake(t, 1, 0.02, base), c, "b", "c", Options{}.WithDefaults())
	if !strings.Contains(lines(r.Notes), "c: incomplete run: 3 cases measured, 1 failed") {
		t.Errorf("notes %v", r.Notes)
	}
}

func TestNoRef(t *testing.T) {
	c := fake(t, 2, 0.02, map[string]float64{"callback": 1250})
	if _, err := Judge(fake(t, 1, 0.02, base), c, "b.json", "c.json", Options{}.WithDefaults()); err == nil || !strings.Contains(err.Error(), "c.json: no ref_js_loop") {
		t.Errorf("err %v", err)
	}
}

func write(t *testing.T, path string, a *artifact.Artifact) {
	t.Helper()
	if err := artifact.Write(path, a); err != nil {
		t.Fatal(err)
	}
}

func TestLoadAndMatchDirectories(t *testing.T) {
	bdir, cdir := t.TempDir(), t.TempDir()
	floor := fake(t, 1, 0.02, base)
	floor.Kind, floor.Codec = artifact.ProgramFloor, ""
	write(t, filepath.Join(bdir, "linux.json"), fake(t, 1, 0.02, base))
	write(t, filepath.Join(bdir, "floor-linux.json"), floor)
	android := fake(t, 1, 0.02, base)
	android.Target = "android"
	write(t, filepath.Join(bdir, "android.json"), android)
	write(t, filepath.Join(cdir, "a-linux.json"), fake(t, 2, 0.02, base))
	write(t, filepath.Join(cdir, "floor.json"), floor)
	fast := fake(t, 2, 0.02, base)
	fast.Codec = "fast"
	write(t, filepath.Join(cdir, "linux-fast.json"), fast)

	bs, err := Load(bdir)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Load(cdir)
	if err != nil {
		t.Fatal(err)
	}
	pairs, notes := Match(bs, cs)
	if len(pairs) != 2 {
		t.Fatalf("pairs %+v", pairs)
	}
	for _, p := range pairs {
		if p.Baseline.Artifact.Label() != p.Current.Artifact.Label() {
			t.Errorf("paired %s with %s", p.Baseline.File, p.Current.File)
		}
	}
	joined := lines(notes)
	if !strings.Contains(joined, "linux-fast.json (fast linux): no baseline") || !strings.Contains(joined, "android.json (json android): baseline without") {
		t.Errorf("notes:\n%s", joined)
	}

	write(t, filepath.Join(cdir, "again.json"), fast)
	if _, err := Load(cdir); err == nil || !strings.Contains(err.Error(), "two artifacts of fast linux") {
		t.Errorf("two artifacts of one program: err %v", err)
	}
	os.WriteFile(filepath.Join(bdir, "notes.json"), []byte(`{"name": "x"}`), 0o644)
	if _, err := Load(bdir); err == nil || !strings.Contains(err.Error(), "notes.json: no \"schema\"") {
		t.Errorf("foreign JSON in the directory: err %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no artifacts") {
		t.Errorf("empty directory: err %v", err)
	}
}

// When one run's ref_js_loop never reached the other's speed on one device, the gate says which, since in such a
// state the ratios change too; a small difference, or one between devices, is only the machine's speed.
func TestRefNoteWarnsOfAnotherState(t *testing.T) {
	all := map[string]float64{cases.RefCase: 1.4, "script_to_host_scalar": 1.4, "callback": 1.4, "script_to_host_object": 1.4}
	slow := scaled(base, all)
	slightly := scaled(base, map[string]float64{cases.RefCase: 1.1, "script_to_host_scalar": 1.1, "callback": 1.1, "script_to_host_object": 1.1})
	other := fake(t, 2, 0.02, slow)
	other.Device.CPUModel = "another CPU"
	tests := []struct {
		name      string
		base, cur *artifact.Artifact
		want      string
	}{
		{"slow current run", fake(t, 1, 0.02, base), fake(t, 2, 0.02, slow), "The current run never ran at the baseline's speed"},
		{"slow baseline", fake(t, 1, 0.02, slow), fake(t, 2, 0.02, base), "The baseline never ran at the current run's speed"},
		{"a little slower", fake(t, 1, 0.02, base), fake(t, 2, 0.02, slightly), "the machine's speed, taken out of every ratio"},
		{"another device", fake(t, 1, 0.02, base), other, "the machine's speed, taken out of every ratio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Judge(tt.base, tt.cur, "base.json", "cur.json", Options{}.WithDefaults())
			if err != nil {
				t.Fatal(err)
			}
			notes := lines(r.Notes)
			if !strings.Contains(notes, tt.want) {
				t.Errorf("notes %q, want one that says %q", notes, tt.want)
			}
			if warned := strings.Contains(notes, "warning: "+cases.RefCase); warned != strings.Contains(tt.want, "never ran") {
				t.Errorf("warned %v: %q", warned, notes)
			}
		})
	}
}

// A case measured on one side only fails the gate, naming it as missing, unless missing cases are allowed.
func TestMissingCaseFails(t *testing.T) {
	cur := scaled(base, nil)
	delete(cur, "callback")
	for _, allow := range []bool{false, true} {
		o := Options{AllowMissing: allow}.WithDefaults()
		r, err := Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, cur), "base.json", "cur.json", o)
		if err != nil {
			t.Fatal(err)
		}
		reg := r.Regressions()
		if verdicts(r)["callback"] != Missing || (len(reg) == 1) == allow || (!allow && reg[0] != "callback (missing)") {
			t.Errorf("allow missing %v: verdicts %v, regressions %q", allow, verdicts(r), reg)
		}
	}
}

// Across CPUs the gate withholds its time verdicts, even on a 50% slowdown, and says what would judge; asked to,
// it judges anyway.
func TestAcrossOriginsIsNotJudgedByTime(t *testing.T) {
	b, c := fake(t, 1, 0.02, base), fake(t, 2, 0.02, scaled(base, map[string]float64{"callback": 1.5}))
	c.Device.CPUModel = "another CPU"
	for _, across := range []bool{false, true} {
		r, err := Judge(b, c, "base.json", "cur.json", Options{AcrossOrigins: across}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		want := Unjudged
		if across {
			want = Regressed
		}
		if got := verdicts(r)["callback"]; got != want || (len(r.Regressions()) == 0) == across {
			t.Errorf("across origins %v: callback %s, want %s; regressions %q", across, got, want, r.Regressions())
		}
		if !across && !slices.ContainsFunc(r.Notes, func(n Warning) bool { return n.Kind == NotJudged && strings.Contains(n.Text, "--metric instructions") }) {
			t.Errorf("no note on what would judge: %v", r.Notes)
		}
	}
}

// A change under the minimum effect is a verdict too: across origins it is withheld with the others, and no view
// says "no change that counts" of a case it did not judge.
func TestAcrossOriginsWithholdsUnderMinimum(t *testing.T) {
	b, c := fake(t, 1, 0.02, base), fake(t, 2, 0.02, scaled(base, map[string]float64{"callback": 1.04}))
	c.Device.CPUModel = "another CPU"
	for _, across := range []bool{true, false} {
		r, err := Judge(b, c, "base.json", "cur.json", Options{AcrossOrigins: across}.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, cr := range r.Cases {
			if cr.Case != "callback" {
				continue
			}
			if across && !cr.UnderMinimum {
				t.Fatalf("judged anyway: callback %+v, want a significant change under the minimum (else this test shows nothing)", cr)
			}
			if !across && (cr.Verdict != Unjudged || cr.UnderMinimum || cr.Note != "") {
				t.Errorf("not judged by time: callback %+v, want unjudged with no under-minimum note", cr)
			}
		}
	}
}

// A case with no significant change on a device whose history cannot see the threshold is "cannot see", not "same".
func TestNoiseThatHidesTheThreshold(t *testing.T) {
	noise := &Noise{Device: "phone-1", Visible: map[string]float64{"callback": 0.25, "script_to_host_scalar": 0.04}}
	r, err := Judge(fake(t, 1, 0.02, base), fake(t, 2, 0.02, base), "base.json", "cur.json", Options{Noise: noise}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	v := verdicts(r)
	if v["callback"] != Unseen || v["script_to_host_scalar"] != Same || len(r.Regressions()) > 0 {
		t.Errorf("verdicts %v, regressions %q", v, r.Regressions())
	}
	for _, c := range r.Cases {
		if c.Case == "callback" && !strings.Contains(c.Note, "cannot see 10% on phone-1 for callback") {
			t.Errorf("note %q", c.Note)
		}
	}
}

// A comparison with no case measured on both sides judges nothing, and says what would judge it; its missing cases
// are why, not regressions of their own.
func TestNoCaseInCommonJudgesNothing(t *testing.T) {
	b := fake(t, 1, 0.02, map[string]float64{cases.RefCase: 25, "callback": 1250})
	c := fake(t, 2, 0.02, map[string]float64{cases.RefCase: 25, "script_to_host_scalar": 1250})
	r, err := Judge(b, c, "b.json", "c.json", Options{}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if r.Judged() || !strings.Contains(r.NotJudged, "no case was measured on both sides") {
		t.Errorf("judged %v, not judged %q", r.Judged(), r.NotJudged)
	}
	r, _ = Judge(b, b, "b.json", "b.json", Options{}.WithDefaults())
	if !r.Judged() || r.NotJudged != "" {
		t.Errorf("an artifact against itself: judged %v, not judged %q", r.Judged(), r.NotJudged)
	}
}
