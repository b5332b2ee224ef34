package check

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bench-bridge/bench-bridge/artifact"
	"github.com/bench-bridge/bench-bridge/build"
	"github.com/bench-bridge/bench-bridge/internal/testenv"
)

// TestReferenceProgramsPass: the floor and the reference bridge, built as a run builds them, pass every check.
func TestReferenceProgramsPass(t *testing.T) {
	testenv.Require(t, "gcc", "apt-get install gcc (scripts/setup does it)")
	ctx := context.Background()
	src, err := build.QuickJSSource(ctx, "", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := build.BuildQuickJS(ctx, build.Host(), src, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{artifact.ProgramFloor, artifact.ProgramBridge} {
		prog, err := build.BuildProgram(ctx, build.Host(), lib, kind, "json", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ctx, []string{prog.Path}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 || rep.Checked < 7 || len(rep.Cases) < 2 {
			t.Errorf("%s: %d checks, cases %v, problems:\n%v", kind, rep.Checked, rep.Cases, rep.Problems)
		}
	}
}

// good is a bench program in sh that follows the protocol for one case; each broken program below changes one
// thing in it. Its samples report the time asked for, and it sleeps through the warm-up and the loop.
const good = `#!/bin/sh
samples=10 min=50000000 warm= ops=0 names=
cmd=$1; shift
case $cmd in
list) echo script_to_host_scalar; exit 0;;
loop) [ "$1" = script_to_host_scalar ] || { echo "unknown case: $1" >&2; exit 2; }
      sleep "$2"; echo "loop $1 1000 $(awk "BEGIN{printf \"%d\", $2*1e9}")"; exit 0;;
run) ;;
*) echo "unknown command" >&2; exit 2;;
esac
while [ $# -gt 0 ]; do
  case $1 in
  --samples) samples=$2; shift 2;;
  --min-time-ns) min=$2; shift 2;;
  --warmup-ns) warm=$2; shift 2;;
  --ops) ops=$2; shift 2;;
  --*) echo "unknown flag: $1" >&2; exit 2;;
  *) names="$names $1"; shift;;
  esac
done
[ -n "$warm" ] || warm=$min
echo bench-bridge-protocol 1
echo meta program bridge
echo timer_overhead_ns 20
for c in $names; do
  if [ "$c" != script_to_host_scalar ]; then echo "error $c unknown case"; continue; fi
  echo begin $c
  n=1000
  if [ "$ops" -gt 0 ]; then n=$ops; else sleep "$(awk "BEGIN{print $warm/1e9}")"; fi
  echo calibrated $c $n
  i=0
  while [ $i -lt $samples ]; do echo sample $c $n $min; i=$((i+1)); done
  echo end $c
done
exit 0
`

func writeProgram(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGoodShellProgramPasses(t *testing.T) {
	rep, err := Run(context.Background(), []string{writeProgram(t, good)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("problems in the good program:\n%v", rep.Problems)
	}
}

// TestBrokenProgramsTripOneCheckEach changes one thing in the good program and expects the check that catches it,
// with the command and, where one line shows it, that line.
func TestBrokenProgramsTripOneCheckEach(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           string // in the one problem's text
	}{
		{"first line", "echo bench-bridge-protocol 1", "echo bench-bridge-protocol 9", `line 1 "bench-bridge-protocol 9": the first line must be`},
		{"order", "  echo begin $c\n", "  echo sample $c 1 1\n  echo begin $c\n", `"sample script_to_host_scalar 1 1": sample outside its case`},
		{"samples ignored", "while [ $i -lt $samples ]", "while [ $i -lt 2 ]", "2 samples, --samples asked for 3"},
		{"min time ignored", "echo sample $c $n $min", "echo sample $c $n 20000", "--min-time-ns asked for 20000000"},
		{"warm-up ignored", `sleep "$(awk "BEGIN{print $warm/1e9}")"`, ":", "--warmup-ns asked for 150ms"},
		{"ops ignored", "n=$ops", "n=5", "--ops 7 means 7 ops in every sample"},
		{"no timer overhead", "echo timer_overhead_ns 20\n", "", "no timer_overhead_ns line"},
		{"NaN timer overhead", "echo timer_overhead_ns 20\n", "echo timer_overhead_ns NaN\n", `"timer_overhead_ns NaN": `},
		{"stdout noise", "echo meta program bridge", "echo meta program bridge; echo starting", `"starting": not a record of the protocol`},
		{"list", "list) echo script_to_host_scalar;", "list) echo script_to_host_scalar; echo scalar;", `list: line 2 "scalar": not a case of the catalogue`},
		{"no error record", `echo "error $c unknown case"; continue`, "continue", `no "error no_such_case MESSAGE" line`},
		{"exit status", "done\nexit 0\n", "done\nexit 1\n", "exit status 1, want 0"},
		{"bad flag accepted", `--*) echo "unknown flag: $1" >&2; exit 2;;`, "--*) shift 2;;", "exit status 0 for an unknown flag, want 2 (with"},
		{"loop record", `sleep "$2"; echo "loop $1 1000`, `sleep "$2"; echo "loops $1 1000`, `line 1 "loops script_to_host_scalar 1000 200000000": want "loop script_to_host_scalar OPS NS"`},
		{"loop too short", `sleep "$2"; echo`, `echo`, "loop asked for 0.2 seconds"},
		{"unflushed", "", "", "every line arrived at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := good
			if tt.name == "unflushed" {
				// Buffered output: the run's lines go to a file and come out together when it exits.
				text = strings.Replace(good, "echo bench-bridge-protocol 1", "out=$(mktemp); exec 3>&1 >\"$out\"; trap 'cat \"$out\" >&3; rm -f \"$out\"' EXIT\necho bench-bridge-protocol 1", 1)
			} else {
				if !strings.Contains(good, tt.old) {
					t.Fatalf("the good program has no %q", tt.old)
				}
				text = strings.Replace(good, tt.old, tt.new, 1)
			}
			rep, err := Run(context.Background(), []string{writeProgram(t, text)}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, p := range rep.Problems {
				found = found || strings.Contains(p.String(), tt.want)
			}
			if !found {
				t.Errorf("want a problem containing %q, got:\n%v", tt.want, rep.Problems)
			}
		})
	}
}
