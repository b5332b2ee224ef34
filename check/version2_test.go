package check

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// goodV2 is the good program speaking protocol 2: it lists ref_js_loop too, prints a ref record before every
// sample with --ref and a slowdown record with --slowdown, and takes --slowdown-steps.
func goodV2(t *testing.T) string {
	t.Helper()
	text := good
	for _, r := range [][2]string{
		{"list) echo script_to_host_scalar;", "list) echo script_to_host_scalar; echo ref_js_loop;"},
		{"  --*) echo", "  --ref) ref=$2; shift 2;;\n  --slowdown) slow=$2; shift 2;;\n  --slowdown-steps) shift 2;;\n  --*) echo"},
		{"echo bench-bridge-protocol 1", "echo bench-bridge-protocol 2"},
		{`if [ "$c" != script_to_host_scalar ]; then`, `if [ "$c" != script_to_host_scalar ] && [ "$c" != ref_js_loop ]; then`},
		{"  echo calibrated $c $n\n", "  if [ -n \"$slow\" ]; then echo slowdown $c 4.5 45; fi\n  echo calibrated $c $n\n"},
		{"do echo sample $c $n $min;", `do if [ -n "$ref" ] && [ "$ref" != "$c" ]; then echo ref $c $n $min; fi; echo sample $c $n $min;`},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("the good program has no %q", r[0])
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	return text
}

func problems(rep *Report) string {
	var s []string
	for _, p := range rep.Problems {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

// TestProtocol1ProgramGetsANote: a protocol 1 program passes, and the report says what the older version costs.
func TestProtocol1ProgramGetsANote(t *testing.T) {
	rep, err := Run(context.Background(), []string{writeProgram(t, good)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Protocol != 1 || !slices.Contains(rep.Notes, Protocol1Note) {
		t.Fatalf("protocol %d, notes %q, problems:\n%s", rep.Protocol, rep.Notes, problems(rep))
	}
	for _, want := range []string{"protocol 2", "--ref", "--slowdown", "docs/method.md#", "docs/protocol.md#versions"} {
		if !strings.Contains(Protocol1Note, want) {
			t.Errorf("the note does not say %q: %s", want, Protocol1Note)
		}
	}
}

// TestProtocol2ProgramPasses: the protocol 2 program passes every check, --ref and --slowdown among them, with no
// note.
func TestProtocol2ProgramPasses(t *testing.T) {
	rep, err := Run(context.Background(), []string{writeProgram(t, goodV2(t))}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || rep.Protocol != 2 || len(rep.Notes) > 0 || rep.Checked < 9 {
		t.Fatalf("protocol %d, %d checks, notes %q, problems:\n%s", rep.Protocol, rep.Checked, rep.Notes, problems(rep))
	}
}

// TestNoWorkAddedIsANote: a slowdown record of no work for a case that crosses is noted, not a problem: a program
// that measures the work it added can measure none on a busy machine.
func TestNoWorkAddedIsANote(t *testing.T) {
	text := strings.Replace(goodV2(t), "echo slowdown $c 4.5 45", "echo slowdown $c 0 45", 1)
	rep, err := Run(context.Background(), []string{writeProgram(t, text)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "no work was added") {
		t.Fatalf("notes %q, problems:\n%s", rep.Notes, problems(rep))
	}
}

// TestBrokenProtocol2ProgramsTripTheirCheck changes one thing of protocol 2 in the good program and expects the
// check that catches it; a protocol 1 program may not print protocol 2's records.
func TestBrokenProtocol2ProgramsTripTheirCheck(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           string
		v1             bool // a change of the protocol 1 program instead
	}{
		{"no ref records", "then echo ref $c $n $min; fi;", "then :; fi;", "0 ref records for 3 samples", false},
		{"ref after its sample", "then echo ref $c $n $min; fi; echo sample $c $n $min;",
			"then :; fi; echo sample $c $n $min; echo ref $c $n $min;", "a sample without a ref record just before it", false},
		{"ref records without --ref", `if [ -n "$ref" ] && [ "$ref" != "$c" ]`, `if [ "ref_js_loop" != "$c" ]`,
			"a ref record where --ref did not ask for one (the run has no --ref)", false},
		{"no slowdown record", "then echo slowdown $c 4.5 45; fi", "then :; fi", "no slowdown record", false},
		{"slowdown after calibrated", "  if [ -n \"$slow\" ]; then echo slowdown $c 4.5 45; fi\n  echo calibrated $c $n\n",
			"  echo calibrated $c $n\n  if [ -n \"$slow\" ]; then echo slowdown $c 4.5 45; fi\n", "the slowdown record comes once, before calibrated", false},
		{"--slowdown-steps refused", "--slowdown-steps) shift 2;;", "--slowdown-steps) exit 2;;", "run --slowdown-steps 1 --ops 3", false},
		{name: "protocol 1 with ref records", old: "do echo sample $c $n $min;", new: "do echo ref $c $n $min; echo sample $c $n $min;",
			want: "a ref record in protocol 1", v1: true},
	}
	v2 := goodV2(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := v2
			if tt.v1 {
				base = good
			}
			if !strings.Contains(base, tt.old) {
				t.Fatalf("the program has no %q", tt.old)
			}
			rep, err := Run(context.Background(), []string{writeProgram(t, strings.Replace(base, tt.old, tt.new, 1))}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := problems(rep); !strings.Contains(got, tt.want) {
				t.Errorf("want a problem containing %q, got:\n%s", tt.want, got)
			}
		})
	}
}
