package wasm

import (
	"fmt"
	"strings"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/harness"
)

// Export is what runs a script -> host case in the guest (guest.wat's table): its loop, bench_*(n), and the check the
// host calls once after init ("" for none). error_host_to_script's is error_host, which the host calls once per op.
type Export struct{ Bench, Check string }

// Exports are the guest's exports of the cases that run a loop of the guest's, by case.
var Exports = map[string]Export{
	"ref_js_loop":                      {"bench_ref", "check_ref"},
	"script_to_host_scalar":            {"bench_scalar", "check_scalar"},
	"script_to_host_string_16":         {"bench_string", "check_string"},
	"script_to_host_string_1k":         {"bench_string", "check_string"},
	"script_to_host_string_64k":        {"bench_string", "check_string"},
	"script_to_host_object":            {"bench_object", "check_object"},
	"script_to_host_object_string_16":  {"bench_record", "check_record"},
	"script_to_host_object_string_1k":  {"bench_record", "check_record"},
	"script_to_host_object_string_64k": {"bench_record", "check_record"},
	"script_to_host_array":             {"bench_array", "check_array"},
	"ui_ops_calls":                     {"bench_ui_calls", ""},
	"ui_ops_buffer":                    {"bench_ui_buffer", ""},
	"ui_ops_object_calls":              {"bench_ui_object_calls", ""},
	"ui_ops_object_batch":              {"bench_ui_object_batch", ""},
	"bytes_64k":                        {"bench_bytes", "check_bytes"},
	ErrorHostCase:                      {ErrorHost, ""},
}

// The case whose loop is the host's, and the export it calls: host_fail's trap unwinds the guest each time.
const (
	ErrorHostCase = "error_host_to_script"
	ErrorHost     = "error_host"
)

// The layout of guest.wat's records (its header).
const (
	ObjSize  = 72 // Obj: id @0, name @4, x @16, y @24, tags @32 @40 @48, pos.a @56, pos.b @64
	NodeSize = 24 // Node: id @0, key @4, value @16
)

// Cases are the catalogue's cases for a host of the guest: harness.JSCases over the states load makes (the guest in
// the scripts' place, its exports the functions JSCases calls), but for error_script_to_host, whose error is a
// trap's, not a JavaScript Error with a stack in JavaScript's form: its set-up checks the trap's text instead.
func Cases(load harness.Loader) ([]harness.Case, []harness.Missing) {
	cs, missing := harness.JSCases(load)
	for i := range cs {
		if cs[i].Name == "error_script_to_host" {
			cs[i].Setup = func() (harness.Loop, error) { return scriptError(load) }
		}
	}
	return cs, missing
}

// scriptError is error_script_to_host's set-up and loop: one call of fail(i) per op, its text's length kept.
func scriptError(load harness.Loader) (harness.Loop, error) {
	c, _ := cases.Lookup("error_script_to_host")
	st, err := load(c, "fail")
	if err != nil {
		return harness.Loop{}, err
	}
	if err := checkTrap(st.CallFail(12)); err != nil {
		st.Close()
		return harness.Loop{}, err
	}
	return harness.Loop{Close: st.Close, Run: func(n uint64) error {
		for i := range n {
			harness.Crossing()
			text, err := st.CallFail(int32(i & 0x7fffffff))
			if err != nil {
				return err
			}
			harness.Sink += float64(len(text))
		}
		return nil
	}}, nil
}

// checkTrap checks fail(12)'s text: "Error: " and the guest's message, a newline, and the runtime's text of the trap,
// with a stack that names fail.
func checkTrap(text string, err error) error {
	const want = "Error: script_fail: refused 12\n"
	switch {
	case err != nil:
		return err
	case !strings.HasPrefix(text, want):
		return fmt.Errorf("fail(12) trapped with %.80q, want %q and the trap", text, want)
	case !strings.Contains(text, "fail("):
		return fmt.Errorf("the trap of fail(12) has no stack that names fail: %.200q", text)
	}
	return nil
}
