package harness

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// The host-side work of every case, the same in every program (cases/c/harness_host.c in Go), so that the floor and
// the bridges differ only in how values cross; and the checks a set-up runs against it. Each function of a host
// function's work calls Crossing.

// Mod keeps the running sums of the loops exact integers: 1000003.
const Mod = 1000003.0

// Add is host_add, the callback's and host_to_script_scalar's arithmetic: (a + b) % 1000003, as in JavaScript.
func Add(a, b float64) float64 {
	Crossing()
	return math.Mod(a+b, Mod) // JavaScript's % on numbers is fmod
}

// Upper is host_upper: s with its ASCII letters upper-cased and its UTF-8 sequences left alone, in one new string.
func Upper(s string) string {
	Crossing()
	if s == "" {
		return ""
	}
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b[i] = c
	}
	return unsafe.String(&b[0], len(b))
}

// Text is the host's text of a case with bytes: exactly n UTF-8 bytes, the same text as the scripts' mkstr(n).
func Text(n int) string {
	const unit = "ab \u00e9\u20ac cd " // mkstr's unit: 12 bytes
	whole := n - n%12
	return strings.Repeat(unit, whole/12) + strings.Repeat("a", n-whole)
}

// Obj is the object of script_to_host_object and host_to_script_object, as a typed host sees it.
type Obj struct {
	ID         int32
	Name       string
	X, Y       float64
	Tags       [3]string
	PosA, PosB float64
}

// ObjOut is the object that comes back: {id: id + 1, ok: true, x: x + y}.
type ObjOut struct {
	ID int32
	OK bool
	X  float64
}

// ObjSample is the object the host sends in host_to_script_object (id varies per call).
func ObjSample(id int32) Obj {
	return Obj{ID: id, Name: "node-\u00e9", X: 1.5, Y: 2.25, Tags: [3]string{"a", "bb", "ccc"}, PosA: 3, PosB: 4}
}

// ObjHost is host_obj (and what the JavaScript function of host_to_script_object computes).
func ObjHost(in *Obj) ObjOut {
	Crossing()
	return ObjOut{ID: int32(uint32(in.ID) + 1), OK: true, X: in.X + in.Y} // wraps instead of overflowing
}

// ArrayLen is the length of host_sum's array.
const ArrayLen = 64

// Sum is host_sum over an array of ArrayLen numbers.
func Sum(v []float64) float64 {
	Crossing()
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// The UI table: nodes with numeric properties, mutated by set_prop, apply_ops, set_node and apply_batch.
const (
	UINodes = 64
	UIKeys  = 8
	UIFrame = 16 // mutations per frame: one ui_ops_* loop unit
)

// UI is the table of nodes the UI cases mutate.
type UI struct {
	Props [UINodes][UIKeys]float64
}

var uiKeys = [UIKeys]string{"x", "y", "w", "h", "color", "text", "opacity", "visible"}

// UIKey maps a property name to its index (the interned key of ui_ops_buffer), or -1.
func UIKey(s string) int {
	for k, name := range uiKeys {
		if name == s {
			return k
		}
	}
	return -1
}

// errBadNode is a mutation of a node or key the table does not have.
var errBadNode = fmt.Errorf("bad node or key")

func (u *UI) set(id, key, value float64) error {
	// the comparisons also refuse NaN
	if !(id >= 0 && id < UINodes) || !(key >= 0 && key < UIKeys) {
		return errBadNode
	}
	u.Props[int(id)][int(key)] = value
	return nil
}

// Set is set_prop: one mutation; an error for a bad node or key.
func (u *UI) Set(id, key, value float64) error {
	Crossing()
	return u.set(id, key, value)
}

// SetNamed is set_node: one mutation whose key is a property name.
func (u *UI) SetNamed(id float64, key string, value float64) error {
	return u.Set(id, float64(UIKey(key)), value)
}

// Apply is apply_ops: (id, key, value) triples from a buffer.
func (u *UI) Apply(ops []float64) error {
	Crossing()
	if len(ops)%3 != 0 {
		return errBadNode
	}
	for i := 0; i < len(ops); i += 3 {
		if err := u.set(ops[i], ops[i+1], ops[i+2]); err != nil {
			return err
		}
	}
	return nil
}

// Check compares the table with what frames frames of the case scripts produce from zero.
func (u *UI) Check(frames uint64) error {
	var want UI
	for m := uint64(0); m < frames*UIFrame; m++ {
		want.Props[m&63][(m>>3)&7] = float64(m) * 0.5
	}
	for id := range UINodes {
		for k := range UIKeys {
			if u.Props[id][k] != want.Props[id][k] {
				return fmt.Errorf("node %d key %s is %v, want %v", id, uiKeys[k], u.Props[id][k], want.Props[id][k])
			}
		}
	}
	return nil
}

// BytesLen is the length of bytes_64k's bytes.
const BytesLen = 65536

// BytesSum is host_bytes: the sum of the bytes.
func BytesSum(p []byte) float64 {
	Crossing()
	var s uint32 // 64 KiB of 255 fits
	for _, b := range p {
		s += uint32(b)
	}
	return float64(s)
}

// Record is the object of the *_object_string_* cases: {id, text}, text of the case's bytes.
type Record struct {
	ID   int32
	Text string
}

// RecordHost is host_record (and what the JavaScript function record computes): {id: id + 1, text: text}, the same
// text.
func RecordHost(in *Record) Record {
	Crossing()
	return Record{ID: int32(uint32(in.ID) + 1), Text: in.Text}
}

// FailMessage is host_fail's error message for argument i.
func FailMessage(i int32) string {
	Crossing()
	return "host_fail: refused " + strconv.Itoa(int(i))
}

// CheckAdd makes 100 host -> script calls the way host_to_script_scalar does (s = call(s, i)) and compares with Add.
func CheckAdd(call func(a, b float64) (float64, error)) error {
	got, want := 0.0, 0.0
	var err error
	for i := range 100 {
		if got, err = call(got, float64(i)); err != nil {
			return err
		}
		want = Add(want, float64(i))
	}
	if got != want {
		return fmt.Errorf("100 calls of add(s, i) gave %v, want %v", got, want)
	}
	return nil
}

// CheckObj makes one call as host_to_script_object does and compares with ObjHost.
func CheckObj(call func(in *Obj) (ObjOut, error)) error {
	in := ObjSample(41)
	want := ObjHost(&in)
	got, err := call(&in)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("obj(o) gave %+v, want %+v", got, want)
	}
	return nil
}

// CheckText makes one call as host_to_script_string_* does and checks that the text came back unchanged.
func CheckText(text string, call func(s string) (string, error)) error {
	got, err := call(text)
	if err != nil {
		return err
	}
	return sameText("text(s)", got, text)
}

// CheckRecord makes one call as host_to_script_object_string_* does and checks what came back.
func CheckRecord(text string, call func(in *Record) (Record, error)) error {
	got, err := call(&Record{ID: 41, Text: text})
	if err != nil {
		return err
	}
	if got.ID != 42 {
		return fmt.Errorf("record(r).id is %d, want 42", got.ID)
	}
	return sameText("record(r).text", got.Text, text)
}

func sameText(what, got, want string) error {
	if got != want {
		return fmt.Errorf("%s came back as %d bytes, want the %d sent", what, len(got), len(want))
	}
	return nil
}

// CheckScriptError makes one call as error_script_to_host does: call(i) calls the script's fail(i), which throws, and
// gives the error's text as the host got it ("Error: message", a newline and the stack; where the engine's stack
// begins with that first line, it need not come twice). It checks the message and that the stack names fail.
func CheckScriptError(call func(i int32) (string, error)) error {
	const want = "Error: script_fail: refused 12\n"
	text, err := call(12)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(text, want) {
		return fmt.Errorf("fail(12) threw %.80q, want %q and a stack", text, want)
	}
	// "at fail (file:1)" in QuickJS, V8, Duktape, MuJS and goja; "fail@file:1:..." in JavaScriptCore and SpiderMonkey
	if stack := text[len(want):]; !strings.Contains(stack, "at fail") && !strings.Contains(stack, "fail@") {
		return fmt.Errorf("the stack of fail(12)'s error does not name fail: %.200q", text)
	}
	return nil
}
