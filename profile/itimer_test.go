package profile

import (
	"context"
	"debug/elf"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/internal/testenv"
	"github.com/bench-bridge/bench-bridge/targets"
)

// agreeTop is how many functions TestItimerAgreesWithPerf compares, and agreeMin how many of perf's it wants among
// itimer's. Measured on script_to_host_scalar (json bridge, 4 s each, 2-core x86_64 VM, perf cpu-clock at 4 kHz,
// itimer at about 250 samples a second): 4 or 5 of the five agreed in five pairs of runs, as two perf runs agree
// with each other (the fifth place changes between __malloc_usable_size, cfree and JS_CallInternal, whose shares are
// within a point). The top three are separated from the sixth by 2 to 5 points, about four standard deviations of
// a share at this many samples; three of five is what holds on any CPU whose profile has a top three at all.
const (
	agreeTop = 5
	agreeMin = 3
)

// TestItimerAgreesWithPerf profiles the same case with perf and with itimer: at least agreeMin of perf's top five
// functions by self share are in itimer's top five, and each tool's first function is in the other's top five.
func TestItimerAgreesWithPerf(t *testing.T) {
	testenv.Require(t, "perf", "apt-get install linux-perf")
	target, bin, dev := bridgeProgram(t)
	top := map[string][]string{}
	// itimer samples at the kernel's tick, perf at 4 kHz: itimer runs longer for a few hundred samples on a loaded
	// machine too.
	secs := map[string]float64{"perf": 4, "itimer": 8}
	for _, tool := range []string{"perf", "itimer"} {
		res, err := Run(context.Background(), target, bin, dev, Options{Case: "script_to_host_scalar", Seconds: secs[tool], Tool: tool, OutDir: t.TempDir(), Log: io.Discard, Binary: bin})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Top[:min(agreeTop, len(res.Top))] {
			top[tool] = append(top[tool], f.Symbol)
		}
	}
	shared := 0
	for _, s := range top["perf"] {
		if slices.Contains(top["itimer"], s) {
			shared++
		}
	}
	t.Logf("top %d by self share\n  perf:   %s\n  itimer: %s\n  shared: %d", agreeTop, strings.Join(top["perf"], " "), strings.Join(top["itimer"], " "), shared)
	if shared < agreeMin || !slices.Contains(top["itimer"], top["perf"][0]) || !slices.Contains(top["perf"], top["itimer"][0]) {
		t.Errorf("itimer and perf disagree: %d of the top %d shared (want %d, and each one's first in the other's)", shared, agreeTop, agreeMin)
	}
}

// TestItimerFileErrors: a file that is not a profile, or one the program stopped writing, is refused with its name
// and line.
func TestItimerFileErrors(t *testing.T) {
	good := "bb-itimer 1\narch x86_64\nword 8\nunwind fp\ninterval_us 1000\nanchor 1000\nsamples 2\ndropped 0\ncpu_ns 8000000\n" +
		"map 1000 2000 0 /bin/prog\nstack 2 1010 1020\nend\n"
	if f, err := parseItimerFile("p", []byte(good)); err != nil || len(f.Stacks) != 1 || f.Stacks[0].Count != 2 || len(f.Stacks[0].PCs) != 2 || f.Maps[0].Path != "/bin/prog" {
		t.Fatalf("good file: %+v %v", f, err)
	}
	for _, tt := range []struct{ text, want string }{
		{"", "p: empty"},
		{"perf data\n", `p:1: not an itimer profile`},
		{strings.TrimSuffix(good, "end\n"), `p: ends at line 11 without its "end" record`},
		{strings.Replace(good, "stack 2 1010 1020", "stack 2 10zz", 1), `p:11: stack: "10zz" is not a hexadecimal address`},
		{strings.Replace(good, "stack 2 1010 1020", "stack 2", 1), `p:11: stack: no addresses`},
		{strings.Replace(good, "samples 2", "sample 2", 1), `p:7: unknown record "sample"`},
		{strings.Replace(good, "anchor 1000\n", "", 1), "p: no anchor record"},
	} {
		if _, err := parseItimerFile("p", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestItimerRefusesAnotherProgram: samples are placed through the anchor symbol; a binary without it (not the
// program that wrote them) is refused by name.
func TestItimerRefusesAnotherProgram(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := "bb-itimer 1\narch x86_64\nanchor 1000\nstack 1 1010\nend\n"
	if _, err := symbolizeItimer("p", []byte(data), self, nil, ""); err == nil || !strings.Contains(err.Error(), "has no bb_itimer_start") {
		t.Errorf("%v", err)
	}
	if _, err := symbolizeItimer("p", []byte(data), filepath.Join(t.TempDir(), "none"), nil, ""); err == nil || !strings.Contains(err.Error(), "symbolising against") {
		t.Errorf("%v", err)
	}
}

// noPerfEvents is a device whose kernel has no perf events: perf is installed, and the real perf is asked for an
// event the kernel does not have, so that it fails to record as it does on such a kernel (this machine's kernel has
// them, and its perf_event_paranoid is not the test's to change).
type noPerfEvents struct{ targets.Target }

func (d noPerfEvents) Run(ctx context.Context, program string, args []string, stdout, stderr io.Writer) error {
	if program == "perf" && len(args) > 0 && args[0] == "record" {
		args = append([]string{"record", "-e", "bb_no_such_event"}, args[1:]...)
	}
	return d.Target.Run(ctx, program, args, stdout, stderr)
}

// TestProfileFallsBackToItimer: with no tool named, a perf that cannot record is not the end of the profile: Run
// says why and profiles with itimer.
func TestProfileFallsBackToItimer(t *testing.T) {
	testenv.Require(t, "perf", "apt-get install linux-perf")
	target, bin, dev := bridgeProgram(t)
	var log strings.Builder
	res, err := Run(context.Background(), noPerfEvents{target}, bin, dev, Options{Case: "script_to_host_scalar", Seconds: 1, OutDir: t.TempDir(), Log: &log, Binary: bin})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if res.Tool != "itimer" || !strings.Contains(log.String(), "linux: perf could not profile script_to_host_scalar: ") ||
		!strings.Contains(log.String(), "linux: trying itimer") {
		t.Errorf("profiled with %s:\n%s", res.Tool, log.String())
	}
}

// TestAliasChoice: of several symbols at one address the one perf shows is kept, so that both tools name it alike.
func TestAliasChoice(t *testing.T) {
	for _, tt := range []struct{ a, b elfFunc }{
		{elfFunc{name: "x", size: 8}, elfFunc{name: "longer_name"}},
		{elfFunc{name: "malloc", size: 8, bind: elf.STB_GLOBAL}, elfFunc{name: "__libc_malloc_strong", size: 8, bind: elf.STB_WEAK}},
		{elfFunc{name: "_x", size: 8, bind: elf.STB_GLOBAL}, elfFunc{name: "x", size: 8, bind: elf.STB_LOCAL}},
		{elfFunc{name: "malloc", size: 8, bind: elf.STB_GLOBAL}, elfFunc{name: "__libc_malloc", size: 8, bind: elf.STB_GLOBAL}},
		{elfFunc{name: "__GI___printf_fp_l", size: 8}, elfFunc{name: "__printf_fp_l", size: 8}},
	} {
		if !better(tt.a, tt.b) || better(tt.b, tt.a) {
			t.Errorf("want %s over %s", tt.a.name, tt.b.name)
		}
	}
}
