package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/bench-bridge/bench-bridge/internal/devroot"
	"github.com/bench-bridge/bench-bridge/internal/sshdtest"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestProfileOverSSH profiles a case on an ssh board (a real sshd on loopback, programs built for this machine) with
// the profilers the board has: perf and strace run on the device, itimer in the program; their output comes back
// and is summarised.
func TestProfileOverSSH(t *testing.T) {
	requireCC(t)
	srv := sshdtest.Start(t, sshdtest.Options{})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[targets.board]\nkind = \"ssh\"\ntoolchain = \"host\"\n"), 0o644)
	flags := []string{"--config", cfg, "--host", srv.Host(), "--identity", srv.Identity, "--known-hosts", srv.KnownHosts, "--out-dir", dir}
	for _, tc := range []struct{ tool, command, want string }{
		{"perf", "perf", "interpreter"},
		{"strace", "strace", "kernel"},
		{"itimer", "", "interpreter"}, // nothing on the device: the program samples itself
	} {
		if tc.command != "" {
			testenv.Require(t, tc.command, "apt-get install linux-perf strace")
		}
		stdout, stderr, code := run(t, append([]string{"profile", "board", "script_to_host_scalar", "0.5", "--tool", tc.tool}, flags...)...)
		if code != 0 || !strings.Contains(stdout, "share by part:") || !strings.Contains(stdout, tc.want) {
			t.Fatalf("profile board with %s: exit %d\n%s\n%s", tc.tool, code, stdout, stderr)
		}
		raw := filepath.Join(dir, "profile-board-script_to_host_scalar.txt")
		if st, err := os.Stat(raw); err != nil || st.Size() == 0 {
			t.Errorf("%s: raw output not saved at %s: %v", tc.tool, raw, err)
		}
		// The program is linked dynamically here: itimer pulls the C library it mapped and names its functions. The
		// json codec spends a quarter of its time in the C library's allocator, string and number functions; which of
		// them half a second's 120 samples land in varies (malloc itself had none in a fresh Debian 12 root).
		if b, _ := os.ReadFile(raw); tc.tool == "itimer" && !libcFunction.Match(b) {
			t.Errorf("itimer over ssh names no function of the C library:\n%.3000s", b)
		}
	}
}

// libcFunction is a line of the self-time table that names a function of glibc's: its allocator, or one of its
// internal names (__GI_, __libc_, the string and memory functions picked for this CPU).
var libcFunction = regexp.MustCompile(`(?m)^ +[0-9.]+% +[0-9]+  (malloc|free|realloc|calloc|_int_\w+|__malloc_\w+|__libc_\w+|__GI_\w+|__mem\w+|__str\w+|__vsnprintf\w*|__mpn_\w+) `)

// TestProfileOnAndroid profiles with strace on real adbd, through the real adb server: the profiler runs on the device
// (this machine's strace, copied into the device's root), its output is pulled back and summarised, with a warning
// that an emulator was profiled.
func TestProfileOnAndroid(t *testing.T) {
	testenv.Require(t, "strace", "apt-get install strace")
	android(t)
	dir := t.TempDir()
	stdout, stderr, code := run(t, "profile", "android", "callback", "1", "--program", "floor", "--tool", "strace", "--out-dir", dir)
	if code != 0 || !strings.Contains(stdout, "top functions by self share (strace)") || !strings.Contains(stderr, "this profiles the emulator") {
		t.Fatalf("profile android: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "profile-android-callback.txt")); err != nil {
		t.Error(err)
	}
}

// TestProfilePerfFlameGraph profiles the json bridge on this machine with the real perf: the flame graph, loaded
// in a real headless Chromium, has boxes for QuickJS's interpreter (JS_CallInternal) and the bridge's host function
// (host_entry), the one nested in the other's stacks; the pprof profile parses with pprof's own reader and has
// samples whose stacks pass through both.
func TestProfilePerfFlameGraph(t *testing.T) {
	requireCC(t)
	testenv.Require(t, "perf", "apt-get install linux-perf (scripts/setup does it)")
	chromium := testenv.Chromium(t)
	dir := t.TempDir()
	stdout, stderr, code := run(t, "profile", localName(), "script_to_host_scalar", "1", "--tool", "perf", "--out-dir", dir)
	stem := filepath.Join(dir, "profile-"+localName()+"-script_to_host_scalar")
	if code != 0 || !strings.Contains(stderr, "flame graph: "+stem+".svg") || !strings.Contains(stderr, "pprof profile: "+stem+".pb.gz") {
		t.Fatalf("profile --tool perf: exit %d\n%s\n%s", code, stdout, stderr)
	}
	dom := string(testenv.RunChromium(t, chromium, "--dump-dom", "file://"+stem+".svg"))
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`<text class="title"[^>]*>script_to_host_scalar on ` + regexp.QuoteMeta(localName()) + ` \(perf\)</text>`),
		regexp.MustCompile(`<g class="frame"><title>JS_CallInternal: \d+ samples, [0-9.]+%</title>`),
		regexp.MustCompile(`<g class="frame"><title>host_entry: \d+ samples, [0-9.]+%</title>`),
	} {
		if !want.MatchString(dom) {
			t.Errorf("the flame graph in Chromium has no %s\n%.3000s", want, dom)
		}
	}
	f, err := os.Open(stem + ".pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", stem+".pb.gz", err)
	}
	through, total := int64(0), int64(0)
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		total += s.Value[0]
		if slices.Contains(names, "JS_CallInternal") && slices.Contains(names, "host_entry") {
			through += s.Value[0]
		}
	}
	if through == 0 || p.Period != 250000 {
		t.Errorf("pprof: %d of %d samples through JS_CallInternal and host_entry, period %d ns (want 250000: perf's 4 kHz)", through, total, p.Period)
	}
}

func TestProfileRejectsBadArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", localName(), "no_such_case"}, `unknown case "no_such_case"`},
		{[]string{"profile", localName(), "callback", "soon"}, `SECS "soon" is not a number of seconds`},
		{[]string{"profile", localName(), "callback", "1", "--tool", "gprof"}, `--tool "gprof"`},
		{[]string{"profile", localName(), "callback", "1", "--program", "both"}, `--program "both"`},
	} {
		_, stderr, code := run(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("bench-bridge %s: exit %d, %q; want %q", strings.Join(tt.args, " "), code, stderr, tt.want)
		}
	}
}

// TestProfileOnBoard profiles on the busybox board, which has no profiler at all: profile goes on to itimer, the
// program's own sampler, whose samples (taken under qemu-arm through binfmt_misc, ARM-mode frame records) come back
// and are symbolised here against the ARMv7 program: QuickJS's functions and the bridge's are named, and the run is
// marked emulated. A profiler named that is not on the board is refused, and nothing is left behind.
func TestProfileOnBoard(t *testing.T) {
	b, flags := webosBoard(t)
	flags = flags[:6] // --host, --identity, --known-hosts: profile takes no measuring flags
	dir := t.TempDir()
	stdout, stderr, code := run(t, append([]string{"profile", "webos", "script_to_host_scalar", "2", "--out-dir", dir}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "top functions by self share (itimer)") || !strings.Contains(stdout, "emulated (") {
		t.Fatalf("profile on a board without profilers: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("profile webos on the board:\n%s%s", stdout, stderr)
	raw, err := os.ReadFile(filepath.Join(dir, "profile-webos-script_to_host_scalar.txt"))
	if err != nil || !strings.Contains(string(raw), "# emulated: ") {
		t.Errorf("raw output not marked emulated: %v\n%.2000s", err, raw)
	}
	requireNamesQuickJSAndBridge(t, stdout, string(raw))
	_, stderr, code = run(t, append([]string{"profile", "webos", "callback", "1", "--tool", "strace", "--out-dir", dir}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "webos: profiler strace is not on the device") {
		t.Errorf("profile --tool strace on a board without it: exit %d\n%s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(b.Root(), "tmp", "bench-bridge*")); len(left) > 0 {
		t.Errorf("left on the board: %v", left)
	}
}

// TestProfileItimerOnAndroid profiles with itimer on real adbd: the arm64 program samples itself under
// qemu-aarch64, the file comes back through adb's sync service, and the summary names QuickJS and the bridge.
func TestProfileItimerOnAndroid(t *testing.T) {
	android(t)
	dir := t.TempDir()
	stdout, stderr, code := run(t, "profile", "android", "script_to_host_scalar", "2", "--tool", "itimer", "--out-dir", dir)
	if code != 0 || !strings.Contains(stdout, "top functions by self share (itimer)") || !strings.Contains(stdout, "emulated (") {
		t.Fatalf("profile android --tool itimer: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("profile android --tool itimer:\n%s", stdout)
	raw, err := os.ReadFile(filepath.Join(dir, "profile-android-script_to_host_scalar.txt"))
	if err != nil {
		t.Fatal(err)
	}
	requireNamesQuickJSAndBridge(t, stdout, string(raw))
	if st, err := os.Stat(filepath.Join(dir, "profile-android-script_to_host_scalar.itimer.data")); err != nil || st.Size() == 0 {
		t.Errorf("samples not kept: %v", err)
	}
}

// requireNamesQuickJSAndBridge checks an itimer profile of script_to_host_scalar: a QuickJS function (JS_*, js_*)
// among the top, and stacks that pass from QuickJS through the bridge's host function (the frame-pointer walk works
// on the device's architecture). Under qemu on a loaded machine a profile may hold a few dozen samples, too few for
// the bridge's own few percent of self time to show, while nearly every stack passes through host_entry.
func requireNamesQuickJSAndBridge(t *testing.T, summary, raw string) {
	t.Helper()
	top, _, _ := strings.Cut(summary, "share by part:")
	if !strings.Contains(top, " JS_") && !strings.Contains(top, " js_") {
		t.Errorf("no QuickJS function among the top:\n%s", summary)
	}
	if !strings.Contains(raw, ";JS_CallInternal;") || !strings.Contains(raw, ";host_entry;") {
		t.Errorf("no stack through JS_CallInternal and host_entry:\n%.3000s", raw)
	}
}

// TestProfileItimerThumb profiles an armv7 (Thumb-2, Debian's armhf compiler) program run here through binfmt_misc:
// gcc's Thumb frame pointer does not chain, so the program samples its pc alone and profile says so; the self shares
// still name QuickJS's functions.
func TestProfileItimerThumb(t *testing.T) {
	testenv.Require(t, "arm-linux-gnueabihf-gcc", "apt-get install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross (scripts/setup does it)")
	devroot.RequireBinfmt(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench-bridge.toml")
	os.WriteFile(cfg, []byte("[targets.thumb]\nkind = \"local\"\ntoolchain = \"armv7\"\n"), 0o644)
	stdout, stderr, code := run(t, "profile", "thumb", "script_to_host_scalar", "2", "--tool", "itimer", "--config", cfg, "--out-dir", dir)
	if code != 0 || !strings.Contains(stderr, "samples its pc alone (arm-thumb") || !strings.Contains(stdout, "emulated (") {
		t.Fatalf("profile thumb --tool itimer: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if top, _, _ := strings.Cut(stdout, "share by part:"); !strings.Contains(top, " JS_") && !strings.Contains(top, " js_") {
		t.Errorf("no QuickJS function among the top:\n%s", stdout)
	}
}
