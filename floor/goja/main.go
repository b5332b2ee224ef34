// Command goja is the floor of goja (github.com/dop251/goja, JavaScript in pure Go): every case of the catalogue
// written straight against goja's API along its cheapest documented paths, over the Go harness
// (github.com/bench-bridge/bench-bridge/harness), with the same scripts and host-side work as every other floor.
//
//   - A host function is a func(goja.FunctionCall) goja.Value set on the global object with Runtime.Set, which goja
//     wraps as a native function without reflection; it reads its arguments with FunctionCall.Argument and the
//     Value's own conversions (ToFloat, ToInteger, String) and makes its result with Runtime.ToValue.
//   - A call into script is the goja.Callable that AssertFunction gives for the script's function, its arguments in
//     a slice the state keeps (Runtime.ExportTo's reflection-made Go functions are not on any timed path).
//   - Properties are read with Object.Get, elements by their index's name ("0", ..., made once); a fresh object is
//     Runtime.NewObject and Object.Set, a fresh array Runtime.NewArray.
//   - A Float64Array's and a Uint8Array's memory is what Value.Export gives for them: a []float64 and a []byte over
//     the array's own buffer, no copy.
//   - A host error is thrown by panicking with an Error made by Runtime.New; a script error comes back as a
//     *goja.Exception, whose value's string and "stack" are its text.
//
// Strings: goja keeps a Go string handed to it (Runtime.ToValue) as it is until the script needs its UTF-16 form, and
// gives a string it made back to Go as UTF-8 (Value.String). So a text the host sends and the script returns
// untouched (host_to_script_string_*) crosses without a conversion either way, where the C engines copy it twice.
package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/harness"
)

// module is goja's module path: its version in the build information is the engine's.
const module = "github.com/dop251/goja"

func main() {
	harness.Main(program())
}

// program is the floor: the whole catalogue over goja.
func program() harness.Program {
	cs, missing := harness.JSCases(load)
	return harness.Program{Kind: harness.Floor, Engine: "goja " + harness.ModuleVersion(module), Cases: cs, Missing: missing}
}

// index are the names of the elements the host functions read: "0", "1", ...
var index = func() []string {
	s := make([]string, harness.ArrayLen)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// indexName is the name of element i.
func indexName(i int) string {
	if i < len(index) {
		return index[i]
	}
	return strconv.Itoa(i)
}

// state is one case's runtime.
type state struct {
	vm        *goja.Runtime
	fn        goja.Callable // bench(n), the function the host calls, or the callback host_register kept
	errorCtor goja.Value    // Error, for host_fail
	undefined goja.Value
	args      [2]goja.Value // a call's arguments: goja copies them into the callee's frame
	ui        harness.UI
}

// load makes a runtime with the host functions, the global N, the prelude and the case's script, and keeps fn.
func load(c cases.Case, fn string) (harness.JS, error) {
	st := &state{vm: goja.New(), undefined: goja.Undefined()}
	vm := st.vm
	for name, f := range map[string]func(goja.FunctionCall) goja.Value{
		"host_add": st.hostAdd, "host_upper": st.hostUpper, "host_obj": st.hostObj, "host_sum": st.hostSum,
		"host_register": st.hostRegister, "host_fail": st.hostFail, "set_prop": st.setProp, "apply_ops": st.applyOps,
		"host_bytes": st.hostBytes, "host_record": st.hostRecord, "set_node": st.setNode, "apply_batch": st.applyBatch,
	} {
		if err := vm.Set(name, f); err != nil {
			return nil, err
		}
	}
	if err := vm.Set("N", c.Bytes); err != nil {
		return nil, err
	}
	st.errorCtor = vm.Get("Error")
	prelude, err := harness.Prelude()
	if err != nil {
		return nil, err
	}
	script, err := harness.Script(c.Name)
	if err != nil {
		return nil, err
	}
	if _, err := vm.RunScript("prelude.js", prelude); err != nil {
		return nil, err
	}
	if _, err := vm.RunScript(c.Name+".js", script); err != nil {
		return nil, err
	}
	if fn == "" {
		return st, nil
	}
	f, ok := goja.AssertFunction(vm.Get(fn))
	if !ok {
		return nil, fmt.Errorf("the script of %s defines no function %s", c.Name, fn)
	}
	st.fn = f
	return st, nil
}

// ==== Host functions ====

func (st *state) hostAdd(call goja.FunctionCall) goja.Value {
	return st.vm.ToValue(harness.Add(call.Argument(0).ToFloat(), call.Argument(1).ToFloat()))
}

func (st *state) hostUpper(call goja.FunctionCall) goja.Value {
	return st.vm.ToValue(harness.Upper(call.Argument(0).String()))
}

// obj reads the whole object of script_to_host_object.
func (st *state) obj(v goja.Value) harness.Obj {
	o := v.ToObject(st.vm)
	tags, pos := o.Get("tags").ToObject(st.vm), o.Get("pos").ToObject(st.vm)
	return harness.Obj{ID: int32(o.Get("id").ToInteger()), Name: o.Get("name").String(),
		X: o.Get("x").ToFloat(), Y: o.Get("y").ToFloat(),
		Tags: [3]string{tags.Get(index[0]).String(), tags.Get(index[1]).String(), tags.Get(index[2]).String()},
		PosA: pos.Get("a").ToFloat(), PosB: pos.Get("b").ToFloat()}
}

// must panics with err: setting a property of a fresh object, which has no setter, does not fail.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (st *state) hostObj(call goja.FunctionCall) goja.Value {
	in := st.obj(call.Argument(0))
	out := harness.ObjHost(&in)
	r := st.vm.NewObject()
	must(r.Set("id", out.ID))
	must(r.Set("ok", out.OK))
	must(r.Set("x", out.X))
	return r
}

func (st *state) hostSum(call goja.FunctionCall) goja.Value {
	a := call.Argument(0).ToObject(st.vm)
	if a.Get("length").ToInteger() != harness.ArrayLen {
		panic(st.vm.NewTypeError(fmt.Sprintf("host_sum: expected %d numbers", harness.ArrayLen)))
	}
	var v [harness.ArrayLen]float64
	for i := range v {
		v[i] = a.Get(index[i]).ToFloat()
	}
	return st.vm.ToValue(harness.Sum(v[:]))
}

func (st *state) hostRegister(call goja.FunctionCall) goja.Value {
	f, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		panic(st.vm.NewTypeError("host_register: not a function"))
	}
	st.fn = f
	return st.undefined
}

func (st *state) hostFail(call goja.FunctionCall) goja.Value {
	e, err := st.vm.New(st.errorCtor, st.vm.ToValue(harness.FailMessage(int32(call.Argument(0).ToInteger()))))
	if err != nil {
		panic(err)
	}
	panic(e)
}

// fail throws a host error about a bad node or key.
func (st *state) fail(what string, err error) {
	if err != nil {
		panic(st.vm.NewTypeError(what + ": " + err.Error()))
	}
}

func (st *state) setProp(call goja.FunctionCall) goja.Value {
	id, key := call.Argument(0).ToFloat(), harness.UIKey(call.Argument(1).String())
	st.fail("set_prop", st.ui.Set(id, float64(key), call.Argument(2).ToFloat()))
	return st.undefined
}

func (st *state) applyOps(call goja.FunctionCall) goja.Value {
	ops, ok := call.Argument(0).Export().([]float64)
	if !ok {
		panic(st.vm.NewTypeError("apply_ops: expected a Float64Array"))
	}
	st.fail("apply_ops", st.ui.Apply(ops))
	return st.undefined
}

func (st *state) hostBytes(call goja.FunctionCall) goja.Value {
	b, ok := call.Argument(0).Export().([]byte)
	if !ok {
		panic(st.vm.NewTypeError("host_bytes: expected a Uint8Array"))
	}
	return st.vm.ToValue(harness.BytesSum(b))
}

func (st *state) hostRecord(call goja.FunctionCall) goja.Value {
	o := call.Argument(0).ToObject(st.vm)
	in := harness.Record{ID: int32(o.Get("id").ToInteger()), Text: o.Get("text").String()}
	out := harness.RecordHost(&in)
	r := st.vm.NewObject()
	must(r.Set("id", out.ID))
	must(r.Set("text", out.Text))
	return r
}

// applyNode applies the mutation {id, key, value}.
func (st *state) applyNode(v goja.Value) {
	o := v.ToObject(st.vm)
	st.fail("bad node or key", st.ui.SetNamed(o.Get("id").ToFloat(), o.Get("key").String(), o.Get("value").ToFloat()))
}

func (st *state) setNode(call goja.FunctionCall) goja.Value {
	st.applyNode(call.Argument(0))
	return st.undefined
}

func (st *state) applyBatch(call goja.FunctionCall) goja.Value {
	list := call.Argument(0).ToObject(st.vm)
	n := int(list.Get("length").ToInteger())
	for i := range n {
		st.applyNode(list.Get(indexName(i)))
	}
	return st.undefined
}

// ==== Host -> script calls ====

// jsError is the text of a script error, as the host gets it: its string, a newline and its stack (less the first
// line, where the stack begins with the string).
func jsError(err error) error {
	var exc *goja.Exception
	if !errors.As(err, &exc) {
		return err
	}
	return errors.New(errorText(exc))
}

func errorText(exc *goja.Exception) string {
	v := exc.Value()
	if v == nil {
		return exc.Error()
	}
	msg, stack := v.String(), ""
	if o, ok := v.(*goja.Object); ok {
		if s := o.Get("stack"); s != nil && !goja.IsUndefined(s) {
			stack = s.String()
		}
	}
	if rest, ok := strings.CutPrefix(stack, msg); ok && (rest == "" || rest[0] == '\n') {
		stack = strings.TrimPrefix(rest, "\n")
	}
	if stack == "" {
		return msg
	}
	return msg + "\n" + stack
}

func (st *state) Bench(n uint64) (float64, error) {
	st.args[0] = st.vm.ToValue(n)
	r, err := st.fn(st.undefined, st.args[:1]...)
	if err != nil {
		return 0, jsError(err)
	}
	return r.ToFloat(), nil
}

func (st *state) CallAdd(a, b float64) (float64, error) {
	st.args[0], st.args[1] = st.vm.ToValue(a), st.vm.ToValue(b)
	r, err := st.fn(st.undefined, st.args[:]...)
	if err != nil {
		return 0, jsError(err)
	}
	return r.ToFloat(), nil
}

func (st *state) CallObj(in *harness.Obj) (harness.ObjOut, error) {
	vm := st.vm
	o, pos := vm.NewObject(), vm.NewObject()
	must(o.Set("id", in.ID))
	must(o.Set("name", in.Name))
	must(o.Set("x", in.X))
	must(o.Set("y", in.Y))
	must(o.Set("tags", vm.NewArray(in.Tags[0], in.Tags[1], in.Tags[2])))
	must(pos.Set("a", in.PosA))
	must(pos.Set("b", in.PosB))
	must(o.Set("pos", pos))
	st.args[0] = o
	r, err := st.fn(st.undefined, st.args[:1]...)
	if err != nil {
		return harness.ObjOut{}, jsError(err)
	}
	out := r.ToObject(vm)
	return harness.ObjOut{ID: int32(out.Get("id").ToInteger()), OK: out.Get("ok").ToBoolean(), X: out.Get("x").ToFloat()}, nil
}

func (st *state) CallText(s string) (string, error) {
	st.args[0] = st.vm.ToValue(s)
	r, err := st.fn(st.undefined, st.args[:1]...)
	if err != nil {
		return "", jsError(err)
	}
	return r.String(), nil
}

func (st *state) CallRecord(in *harness.Record) (harness.Record, error) {
	o := st.vm.NewObject()
	must(o.Set("id", in.ID))
	must(o.Set("text", in.Text))
	st.args[0] = o
	r, err := st.fn(st.undefined, st.args[:1]...)
	if err != nil {
		return harness.Record{}, jsError(err)
	}
	out := r.ToObject(st.vm)
	return harness.Record{ID: int32(out.Get("id").ToInteger()), Text: out.Get("text").String()}, nil
}

func (st *state) CallFail(i int32) (string, error) {
	st.args[0] = st.vm.ToValue(i)
	_, err := st.fn(st.undefined, st.args[:1]...)
	var exc *goja.Exception
	if !errors.As(err, &exc) {
		return "", fmt.Errorf("fail(%d) returned instead of throwing (%v)", i, err)
	}
	return errorText(exc), nil
}

func (st *state) Registered() bool { return st.fn != nil }

func (st *state) UI() *harness.UI { return &st.ui }

// Close has nothing to free: the runtime is Go memory.
func (st *state) Close() {}
