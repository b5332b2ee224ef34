// Command quickjs-go is the floor of QuickJS in Go (modernc.org/quickjs: QuickJS translated to Go, no cgo): every
// case of the catalogue written straight against the package's documented API along its cheapest paths, over the Go
// harness (github.com/bench-bridge/bench-bridge/harness), with the same scripts and host-side work as every other
// floor, so that QuickJS in C (floor/floor.c) and QuickJS in Go stand side by side.
//
//   - A host function is a Go function registered with VM.RegisterFunc, which calls it by reflection with its
//     arguments converted to Go values (a number comes as an int or a float64, so numbers are taken as any) and
//     converts its one result back; an object argument is taken as a quickjs.Value, read with Value.Property by
//     atoms made once per VM (VM.NewAtom), and a fresh object is VM.NewObjectValue with Value.SetProperty.
//     host_fail is registered with VM.RegisterHostFunc, whose error result is thrown as a catchable exception
//     (RegisterFunc's is returned as a value); another host function's error panics, which stops the script.
//   - A call into script is Value.Call on the script's function (its arguments and its result converted as VM.Call
//     says), or Value.CallValue when the result is an object to read.
//   - The package has no access to a typed array's memory: apply_ops and host_bytes read their Float64Array and
//     Uint8Array element by element (Value.Property with the element's atom), which is what its API offers.
//   - A script error comes back as a *quickjs.Error: its Error() and its Stack are the text.
//
// QuickJS's own heap lives in the C library modernc.org/libc translates, outside Go's heap: the memory records count
// what the Go side allocates (harness's memory pass), not the engine's heap.
package main

import (
	"errors"
	"fmt"
	"strconv"

	"modernc.org/quickjs"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/harness"
)

// module is the package's module path: its version in the build information is the engine's.
const module = "modernc.org/quickjs"

func main() {
	harness.Main(program())
}

// program is the floor: the whole catalogue over QuickJS in Go, and the QuickJS release the package translates.
func program() harness.Program {
	cs, missing := harness.JSCases(load)
	return harness.Program{Kind: harness.Floor, Engine: "quickjs-go " + harness.ModuleVersion(module),
		Meta: [][2]string{{"quickjs-go.quickjs", quickjs.Version()}}, Cases: cs, Missing: missing}
}

// atoms are the property names the floor reads and writes, made once per VM.
type atoms struct {
	id, name, x, y, tags, pos, a, b, ok, text, key, value, length quickjs.Atom
	index                                                         []quickjs.Atom // "0", "1", ...: elements
}

// state is one case's VM.
type state struct {
	vm      *quickjs.VM
	fn      quickjs.Value // bench(n), the function the host calls, or the callback host_register kept
	hasFn   bool
	at      atoms
	ui      harness.UI
	doubles []float64 // apply_ops' triples, read from the Float64Array
	bytes   []byte    // host_bytes' bytes, read from the Uint8Array
}

// load makes a VM with the host functions, the global N, the prelude and the case's script, and keeps fn.
func load(c cases.Case, fn string) (harness.JS, error) {
	vm, err := quickjs.NewVM()
	if err != nil {
		return nil, err
	}
	st := &state{vm: vm}
	if err := st.init(c, fn); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func (st *state) init(c cases.Case, fn string) error {
	vm := st.vm
	var err error
	atom := func(s string) quickjs.Atom {
		a, e := vm.NewAtom(s)
		if e != nil && err == nil {
			err = e
		}
		return a
	}
	st.at = atoms{id: atom("id"), name: atom("name"), x: atom("x"), y: atom("y"), tags: atom("tags"), pos: atom("pos"),
		a: atom("a"), b: atom("b"), ok: atom("ok"), text: atom("text"), key: atom("key"), value: atom("value"),
		length: atom("length")}
	// the elements read: 64 numbers, 16 frames' objects, 48 doubles, or 64 KiB of bytes
	elements := harness.ArrayLen
	if c.Name == "bytes_64k" {
		elements = harness.BytesLen
	}
	for i := range elements {
		st.at.index = append(st.at.index, atom(strconv.Itoa(i)))
	}
	if err != nil {
		return err
	}
	for name, f := range map[string]any{
		"host_add": st.hostAdd, "host_upper": harness.Upper, "host_obj": st.hostObj, "host_sum": st.hostSum,
		"host_register": st.hostRegister, "set_prop": st.setProp, "apply_ops": st.applyOps,
		"host_bytes": st.hostBytes, "host_record": st.hostRecord, "set_node": st.setNode, "apply_batch": st.applyBatch,
	} {
		if err := vm.RegisterFunc(name, f, false); err != nil {
			return err
		}
	}
	if err := vm.RegisterHostFunc("host_fail", hostFail); err != nil {
		return err
	}
	g := vm.GlobalObject()
	err = g.SetProperty(atom("N"), c.Bytes)
	g.Free()
	if err != nil {
		return err
	}
	prelude, err := harness.Prelude()
	if err != nil {
		return err
	}
	script, err := harness.Script(c.Name)
	if err != nil {
		return err
	}
	if _, err := vm.Eval(prelude, quickjs.EvalGlobal); err != nil {
		return err
	}
	if _, err := vm.Eval(script, quickjs.EvalGlobal); err != nil {
		return err
	}
	if fn == "" {
		return nil
	}
	g = vm.GlobalObject()
	f, err := g.GetPropertyValue(atom(fn))
	g.Free()
	if err != nil {
		return err
	}
	st.fn, st.hasFn = f, true
	return nil
}

// num is a number as the package converts it: an int (an int32 in JavaScript) or a float64.
func num(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	}
	panic(fmt.Sprintf("want a number, got %T", v))
}

// prop reads property a of v; a failure panics, which stops the script and fails the case.
func prop(v quickjs.Value, a quickjs.Atom) any {
	x, err := v.Property(a)
	if err != nil {
		panic(err)
	}
	return x
}

// propValue reads property a of v as a Value, to free.
func propValue(v quickjs.Value, a quickjs.Atom) quickjs.Value {
	x, err := v.GetPropertyValue(a)
	if err != nil {
		panic(err)
	}
	return x
}

// set sets property a of o; a failure panics.
func set(o quickjs.Value, a quickjs.Atom, v any) {
	if err := o.SetProperty(a, v); err != nil {
		panic(err)
	}
}

// newObject is a fresh object, to hand to JavaScript (or free).
func (st *state) newObject() quickjs.Value {
	o, err := st.vm.NewObjectValue()
	if err != nil {
		panic(err)
	}
	return o
}

// length is the length of the array v, element atoms made for it.
func (st *state) length(v quickjs.Value) int {
	n := int(num(prop(v, st.at.length)))
	if n > len(st.at.index) {
		panic(fmt.Sprintf("%d elements, more than the %d this case reads", n, len(st.at.index)))
	}
	return n
}

// ==== Host functions ====

func (st *state) hostAdd(a, b any) float64 {
	return harness.Add(num(a), num(b))
}

func (st *state) hostObj(o quickjs.Value) quickjs.Value {
	at := &st.at
	tags, pos := propValue(o, at.tags), propValue(o, at.pos)
	in := harness.Obj{ID: int32(num(prop(o, at.id))), Name: prop(o, at.name).(string), X: num(prop(o, at.x)), Y: num(prop(o, at.y)),
		Tags: [3]string{prop(tags, at.index[0]).(string), prop(tags, at.index[1]).(string), prop(tags, at.index[2]).(string)},
		PosA: num(prop(pos, at.a)), PosB: num(prop(pos, at.b))}
	tags.Free()
	pos.Free()
	out := harness.ObjHost(&in)
	r := st.newObject()
	set(r, at.id, int(out.ID))
	set(r, at.ok, out.OK)
	set(r, at.x, out.X)
	return r
}

func (st *state) hostSum(a quickjs.Value) float64 {
	if n := num(prop(a, st.at.length)); n != harness.ArrayLen {
		panic(fmt.Sprintf("host_sum: expected %d numbers, got %v", harness.ArrayLen, n))
	}
	var v [harness.ArrayLen]float64
	for i := range v {
		v[i] = num(prop(a, st.at.index[i]))
	}
	return harness.Sum(v[:])
}

// hostRegister keeps the function: the Value it is handed is freed when the call returns.
func (st *state) hostRegister(f quickjs.Value) {
	if st.hasFn {
		st.fn.Free()
	}
	st.fn, st.hasFn = f.Dup(), true
}

// hostFail's error is thrown as a JavaScript exception (RegisterHostFunc's shape).
func hostFail(args []any) (any, error) {
	i := int32(0)
	if len(args) > 0 {
		i = int32(num(args[0]))
	}
	return nil, errors.New(harness.FailMessage(i))
}

func (st *state) setProp(id any, key string, value any) {
	if err := st.ui.Set(num(id), float64(harness.UIKey(key)), num(value)); err != nil {
		panic("set_prop: " + err.Error())
	}
}

func (st *state) applyOps(buf quickjs.Value) {
	n := st.length(buf)
	st.doubles = st.doubles[:0]
	for i := range n {
		st.doubles = append(st.doubles, num(prop(buf, st.at.index[i])))
	}
	if err := st.ui.Apply(st.doubles); err != nil {
		panic("apply_ops: " + err.Error())
	}
}

func (st *state) hostBytes(buf quickjs.Value) float64 {
	n := st.length(buf)
	st.bytes = st.bytes[:0]
	for i := range n {
		st.bytes = append(st.bytes, byte(num(prop(buf, st.at.index[i]))))
	}
	return harness.BytesSum(st.bytes)
}

func (st *state) hostRecord(o quickjs.Value) quickjs.Value {
	in := harness.Record{ID: int32(num(prop(o, st.at.id))), Text: prop(o, st.at.text).(string)}
	out := harness.RecordHost(&in)
	r := st.newObject()
	set(r, st.at.id, int(out.ID))
	set(r, st.at.text, out.Text)
	return r
}

// applyNode applies the mutation {id, key, value}.
func (st *state) applyNode(o quickjs.Value) {
	if err := st.ui.SetNamed(num(prop(o, st.at.id)), prop(o, st.at.key).(string), num(prop(o, st.at.value))); err != nil {
		panic(err)
	}
}

func (st *state) setNode(o quickjs.Value) {
	st.applyNode(o)
}

func (st *state) applyBatch(list quickjs.Value) {
	n := st.length(list)
	for i := range n {
		v := propValue(list, st.at.index[i])
		st.applyNode(v)
		v.Free()
	}
}

// ==== Host -> script calls ====

func (st *state) Bench(n uint64) (float64, error) {
	r, err := st.fn.Call(quickjs.UndefinedValue, n)
	if err != nil {
		return 0, err
	}
	return num(r), nil
}

func (st *state) CallAdd(a, b float64) (float64, error) {
	r, err := st.fn.Call(quickjs.UndefinedValue, a, b)
	if err != nil {
		return 0, err
	}
	return num(r), nil
}

func (st *state) CallObj(in *harness.Obj) (out harness.ObjOut, err error) {
	at := &st.at
	o, pos := st.newObject(), st.newObject()
	set(o, at.id, int(in.ID))
	set(o, at.name, in.Name)
	set(o, at.x, in.X)
	set(o, at.y, in.Y)
	set(o, at.tags, in.Tags[:]) // an array: the package makes a Go slice with JSON
	set(pos, at.a, in.PosA)
	set(pos, at.b, in.PosB)
	err = o.SetPropertyValue(at.pos, pos)
	pos.Free()
	if err != nil {
		o.Free()
		return out, err
	}
	r, err := st.fn.CallValue(quickjs.UndefinedValue, o)
	o.Free()
	if err != nil {
		return out, err
	}
	defer r.Free()
	ok, _ := prop(r, at.ok).(bool)
	return harness.ObjOut{ID: int32(num(prop(r, at.id))), OK: ok, X: num(prop(r, at.x))}, nil
}

func (st *state) CallText(s string) (string, error) {
	r, err := st.fn.Call(quickjs.UndefinedValue, s)
	if err != nil {
		return "", err
	}
	out, ok := r.(string)
	if !ok {
		return "", fmt.Errorf("text returned a %T, not a string", r)
	}
	return out, nil
}

func (st *state) CallRecord(in *harness.Record) (harness.Record, error) {
	o := st.newObject()
	set(o, st.at.id, int(in.ID))
	set(o, st.at.text, in.Text)
	r, err := st.fn.CallValue(quickjs.UndefinedValue, o)
	o.Free()
	if err != nil {
		return harness.Record{}, err
	}
	defer r.Free()
	text, _ := prop(r, st.at.text).(string)
	return harness.Record{ID: int32(num(prop(r, st.at.id))), Text: text}, nil
}

func (st *state) CallFail(i int32) (string, error) {
	_, err := st.fn.Call(quickjs.UndefinedValue, i)
	var e *quickjs.Error
	if !errors.As(err, &e) {
		return "", fmt.Errorf("fail(%d) returned instead of throwing (%v)", i, err)
	}
	if e.Stack == "" {
		return e.Error(), nil
	}
	return e.Error() + "\n" + e.Stack, nil
}

func (st *state) Registered() bool { return st.hasFn }

func (st *state) UI() *harness.UI { return &st.ui }

// Close frees the function kept and the VM.
func (st *state) Close() {
	if st.hasFn {
		st.fn.Free()
		st.hasFn = false
	}
	st.vm.Close()
}
