package harness

import (
	"fmt"
	"regexp"
	"sync"

	benchbridge "github.com/bench-bridge/bench-bridge"
	"github.com/bench-bridge/bench-bridge/cases"
)

// The cases' JavaScript, the same in every program: cases/c/harness_scripts.c, read by package cases.

// Prelude is evaluated before every case's script (it defines expect and repeat).
func Prelude() (string, error) {
	s, err := cases.LoadScripts()
	if err != nil {
		return "", err
	}
	return s.Prelude, nil
}

// Script is a case's JavaScript: script -> host cases define bench(n), whose loop makes n crossings, and check their
// host functions when the script is evaluated; host -> script cases define the function the host calls; callback
// hands one to host_register.
func Script(name string) (string, error) {
	return cases.Script(name)
}

// Bytes is a case's bytes: the global N its script reads, and the length of the host's text (Text); 0 for a case
// without.
func Bytes(name string) int {
	c, _ := cases.Lookup(name)
	return c.Bytes
}

// JS is one case's state in a program over a JavaScript engine, made by the program's Loader: what the catalogue's
// set-ups and timed loops ask of it (JSCases). The host -> script calls cross once each; JSCases' loops call Crossing
// before each, so they need not.
type JS interface {
	// Bench calls the script's bench(n) and returns its result.
	Bench(n uint64) (float64, error)
	// CallAdd calls the script's function (add, or the callback host_register kept) with two numbers.
	CallAdd(a, b float64) (float64, error)
	// CallObj calls obj(o) with the object in and reads {id, ok, x} back.
	CallObj(in *Obj) (ObjOut, error)
	// CallText calls text(s) and reads the string back.
	CallText(s string) (string, error)
	// CallRecord calls record(r) with {id, text} and reads {id, text} back.
	CallRecord(in *Record) (Record, error)
	// CallFail calls fail(i), which throws, and gives the error's text: its string, a newline and its stack.
	CallFail(i int32) (string, error)
	// Registered says whether the script has handed a function to host_register.
	Registered() bool
	// UI is the table the state's set_prop, apply_ops, set_node and apply_batch mutate.
	UI() *UI
	// Close frees the state.
	Close()
}

// Loader makes one case's state: an engine with the host functions of the catalogue (host_add and the others, each
// doing the harness's host-side work: Add, Upper, ObjHost...), the global N set to the case's bytes (Bytes), the
// prelude and the case's script evaluated, and the script's global function fn kept for the calls ("" for none: the
// callback case hands its function to host_register). A state it returns with an error is closed.
type Loader func(c cases.Case, fn string) (JS, error)

// JSCases are the catalogue's cases for a program over a JavaScript engine: each with cases.def's set-up and timed
// loop (cases/c/case_loops.h's, in Go), over the states load makes, in the catalogue's order. A case whose set-up or
// loop the Go harness does not have yet is in missing, with why.
func JSCases(load Loader) (cs []Case, missing []Missing) {
	loops, err := caseLoops()
	for _, c := range cases.Catalogue {
		l, ok := loops[c.Name]
		setup, sok := jsSetups[l.setup]
		run, rok := jsRuns[l.run]
		switch {
		case err != nil:
			missing = append(missing, Missing{c.Name, err.Error()})
		case !ok:
			missing = append(missing, Missing{c.Name, "cases.def has no entry for it"})
		case !sok || !rok:
			missing = append(missing, Missing{c.Name, fmt.Sprintf("the Go harness has no %s and %s of case_loops.h yet", l.setup, l.run)})
		default:
			cs = append(cs, Case{Name: c.Name, Setup: func() (Loop, error) {
				st, text, err := setup(c, load)
				if err != nil {
					if st != nil {
						st.Close()
					}
					return Loop{}, err
				}
				return Loop{Run: run(st, text), Close: st.Close}, nil
			}})
		}
	}
	return cs, missing
}

// caseLoop is the set-up and the timed loop cases.def names for a case.
type caseLoop struct{ setup, run string }

var (
	loopsOnce sync.Once
	loops     map[string]caseLoop
	loopsErr  error
	// loopEntry reads an entry's name, setup and run (the fields cases/list.go checks).
	loopEntry = regexp.MustCompile(`(?m)^BB_CASE(?:_TYPED_ARRAYS)?\(\s*(\w+),\s*\d+,\s*\d+,\s*\d+,\s*(\w+),\s*(\w+),`)
)

// caseLoops reads each case's set-up and loop from cases.def.
func caseLoops() (map[string]caseLoop, error) {
	loopsOnce.Do(func() {
		src, err := benchbridge.CSources.ReadFile(benchbridge.CaseList)
		if err != nil {
			loopsErr = err
			return
		}
		loops = map[string]caseLoop{}
		for _, m := range loopEntry.FindAllStringSubmatch(string(src), -1) {
			loops[m[1]] = caseLoop{m[2], m[3]}
		}
	})
	return loops, loopsErr
}

// A jsSetup makes a case's state, checked, and the host's text of a case with bytes.
type jsSetup func(c cases.Case, load Loader) (JS, string, error)

// A jsRun is a timed loop over a state: n loop units.
type jsRun func(st JS, text string) func(n uint64) error

// jsSetups are case_loops.h's set-ups.
var jsSetups = map[string]jsSetup{
	"setup_js_loop": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "bench")
		return st, "", err
	},
	// setup_ui also checks that three frames leave the node table as the script's mutations should.
	"setup_ui": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "bench")
		if err != nil {
			return st, "", err
		}
		if c.UnitOps != UIFrame {
			return st, "", fmt.Errorf("cases.def gives %s %d ops per unit, its script makes %d", c.Name, c.UnitOps, UIFrame)
		}
		if _, err := st.Bench(3); err != nil {
			return st, "", err
		}
		if err := st.UI().Check(3); err != nil {
			return st, "", err
		}
		*st.UI() = UI{}
		return st, "", nil
	},
	"setup_h2s_scalar": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "add")
		if err == nil {
			err = CheckAdd(st.CallAdd)
		}
		return st, "", err
	},
	"setup_h2s_object": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "obj")
		if err == nil {
			err = CheckObj(st.CallObj)
		}
		return st, "", err
	},
	"setup_h2s_string": func(c cases.Case, load Loader) (JS, string, error) {
		text := Text(c.Bytes)
		st, err := load(c, "text")
		if err == nil {
			err = CheckText(text, st.CallText)
		}
		return st, text, err
	},
	"setup_h2s_record": func(c cases.Case, load Loader) (JS, string, error) {
		text := Text(c.Bytes)
		st, err := load(c, "record")
		if err == nil {
			err = CheckRecord(text, st.CallRecord)
		}
		return st, text, err
	},
	"setup_script_error": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "fail")
		if err == nil {
			err = CheckScriptError(st.CallFail)
		}
		return st, "", err
	},
	// setup_callback: the script hands its function to host_register, which the program keeps.
	"setup_callback": func(c cases.Case, load Loader) (JS, string, error) {
		st, err := load(c, "")
		switch {
		case err != nil:
		case !st.Registered():
			err = fmt.Errorf("the script registered no callback")
		default:
			err = CheckAdd(st.CallAdd)
		}
		return st, "", err
	},
}

// jsRuns are case_loops.h's timed loops.
var jsRuns = map[string]jsRun{
	// run_js_loop: the loop runs in JavaScript, bench(n) makes n crossings (n frames for ui_ops_*).
	"run_js_loop": func(st JS, _ string) func(uint64) error {
		return func(n uint64) error {
			r, err := st.Bench(n)
			Sink += r + st.UI().Props[0][0]
			return err
		}
	},
	// run_call_add: the loop runs in Go, one call of add (or the callback) per op.
	"run_call_add": func(st JS, _ string) func(uint64) error {
		return func(n uint64) error {
			s := 0.0
			var err error
			for i := range n {
				Crossing()
				if s, err = st.CallAdd(s, float64(i)); err != nil {
					return err
				}
			}
			Sink += s
			return nil
		}
	},
	"run_call_obj": func(st JS, _ string) func(uint64) error {
		return func(n uint64) error {
			for i := range n {
				in := ObjSample(int32(i & 0x7fffffff))
				Crossing()
				out, err := st.CallObj(&in)
				if err != nil {
					return err
				}
				Sink += out.X + float64(out.ID)
			}
			return nil
		}
	},
	// run_call_text: the host sends its text, one call per op, and reads the length of what comes back.
	"run_call_text": func(st JS, text string) func(uint64) error {
		return func(n uint64) error {
			for range n {
				Crossing()
				out, err := st.CallText(text)
				if err != nil {
					return err
				}
				Sink += float64(len(out))
			}
			return nil
		}
	},
	"run_call_record": func(st JS, text string) func(uint64) error {
		return func(n uint64) error {
			in := Record{Text: text}
			for i := range n {
				in.ID = int32(i & 0x7fffffff)
				Crossing()
				out, err := st.CallRecord(&in)
				if err != nil {
					return err
				}
				Sink += float64(out.ID) + float64(len(out.Text))
			}
			return nil
		}
	},
	// run_call_fail: one call of the throwing function per op; the host reads the length of the error's text.
	"run_call_fail": func(st JS, _ string) func(uint64) error {
		return func(n uint64) error {
			for i := range n {
				Crossing()
				text, err := st.CallFail(int32(i & 0x7fffffff))
				if err != nil {
					return err
				}
				Sink += float64(len(text))
			}
			return nil
		}
	},
}
