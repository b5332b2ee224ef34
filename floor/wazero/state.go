package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/floor/wasm"
	"github.com/bench-bridge/bench-bridge/harness"
)

// state is one case's guest: its runtime, the guest instantiated with the host module bb, and what the calls keep.
type state struct {
	ctx      context.Context
	rt       wazero.Runtime
	guest    api.Module
	mem      []byte       // the guest's whole memory, in place
	stack    [4]uint64    // a call's parameters and results: the longest signature, set_prop's, has 4
	fn       api.Function // the bench_* export, or the one the host calls
	caseName string
	// where the guest keeps S, where the host writes its inputs of the host -> script cases, and where fail leaves
	// its message
	textS, textIn, objIn, recordIn, errAt uint32
	callRef                               api.Function // call_ref(index, a, b): how wazero calls a table's function
	callback                              uint64       // the callback's index, from host_register
	registered                            bool
	ui                                    harness.UI
}

// trap is a host function's error: it panics with one, and wazero's error for the call wraps it.
type trap struct{ msg string }

func (t *trap) Error() string { return t.msg }

// load makes c's state: a runtime with the host module bb, the guest instantiated and init(N)'d, the case's check
// run, and fn's export kept ("bench": the case's loop; "" for callback, which registers its function).
func (w *wasmFloor) load(c cases.Case, fn string) (js harness.JS, err error) {
	st := &state{ctx: w.ctx, caseName: c.Name}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	st.rt = wazero.NewRuntimeWithConfig(w.ctx, w.config())
	if err := st.hostModule(); err != nil {
		return nil, err
	}
	guest, err := st.rt.Instantiate(w.ctx, w.guest)
	if err != nil {
		return nil, fmt.Errorf("instantiating the guest: %w", err)
	}
	st.guest = guest
	mem := guest.Memory()
	if mem == nil {
		return nil, errors.New("the guest exports no memory")
	}
	// guest.wat fixes its memory at 5 pages: the slice over it stays valid, as nothing grows it
	var ok bool
	if st.mem, ok = mem.Read(0, mem.Size()); !ok {
		return nil, errors.New("the guest's memory cannot be read")
	}
	for name, at := range map[string]*uint32{"text_s": &st.textS, "text_in": &st.textIn, "obj_in": &st.objIn, "record_in": &st.recordIn, "err": &st.errAt} {
		g := guest.ExportedGlobal(name)
		if g == nil {
			return nil, fmt.Errorf("the guest exports no global %s", name)
		}
		*at = uint32(g.Get())
	}
	if _, err := st.call("init", uint64(c.Bytes)); err != nil {
		return nil, err
	}
	if err := st.check(c); err != nil {
		return nil, err
	}
	switch fn {
	case "":
		st.callRef = guest.ExportedFunction("call_ref")
		if _, err := st.call("register"); err != nil {
			return nil, err
		}
		return st, nil
	case "bench":
		b, ok := wasm.Exports[c.Name]
		if !ok {
			return nil, fmt.Errorf("the guest has no loop for %s", c.Name)
		}
		fn = b.Bench
	}
	if st.fn = guest.ExportedFunction(fn); st.fn == nil {
		return nil, fmt.Errorf("the guest exports no function %s", fn)
	}
	return st, nil
}

// check runs the guest's check of c (the script's expect lines) and the host's own: the guest's text is the host's
// (harness.Text), and host_fail's trap comes back with its message.
func (st *state) check(c cases.Case) error {
	if s := st.guestString(st.textS, uint32(c.Bytes)); s != harness.Text(c.Bytes) {
		return fmt.Errorf("the guest's text of %d bytes is not the host's", c.Bytes)
	}
	if c.Name == wasm.ErrorHostCase {
		if st.fn = st.guest.ExportedFunction(wasm.ErrorHost); st.fn == nil {
			return fmt.Errorf("the guest exports no function %s", wasm.ErrorHost)
		}
		msg, err := st.errorHost(12)
		if err == nil && msg != "host_fail: refused 12" {
			err = fmt.Errorf("host_fail(12)'s trap came back with %q, want %q", msg, "host_fail: refused 12")
		}
		return err
	}
	if b := wasm.Exports[c.Name]; b.Check != "" {
		if _, err := st.call(b.Check); err != nil {
			return fmt.Errorf("the guest's %s (its host function is wrong): %w", b.Check, err)
		}
	}
	return nil
}

// call calls the export name with params, outside the timed loops.
func (st *state) call(name string, params ...uint64) (uint64, error) {
	f := st.guest.ExportedFunction(name)
	if f == nil {
		return 0, fmt.Errorf("the guest exports no function %s", name)
	}
	copy(st.stack[:], params)
	if err := f.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return st.stack[0], nil
}

// ==== The guest's memory ====

// bytes is the guest's n bytes at p, in place; a host function given a range outside the memory traps.
func (st *state) bytes(p, n uint32) []byte {
	if uint64(p)+uint64(n) > uint64(len(st.mem)) {
		panic(&trap{fmt.Sprintf("the guest's (%d, %d) is outside its memory of %d bytes", p, n, len(st.mem))})
	}
	return st.mem[p : p+n : p+n]
}

// guestString is the guest's text of n bytes at p, in place (the host only reads it while the guest keeps it).
func (st *state) guestString(p, n uint32) string {
	b := st.bytes(p, n)
	if n == 0 {
		return ""
	}
	return unsafe.String(&b[0], n)
}

func (st *state) u32(p uint32) uint32 { return binary.LittleEndian.Uint32(st.bytes(p, 4)) }

func (st *state) f64(p uint32) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(st.bytes(p, 8)))
}

func (st *state) putU32(p, v uint32) { binary.LittleEndian.PutUint32(st.bytes(p, 4), v) }

func (st *state) putF64(p uint32, v float64) {
	binary.LittleEndian.PutUint64(st.bytes(p, 8), math.Float64bits(v))
}

// stringAt is the string (ptr, len) stored at p.
func (st *state) stringAt(p uint32) string { return st.guestString(st.u32(p), st.u32(p+4)) }

// putString copies s to the guest's memory at data and stores its (ptr, len) at p; it returns the end of the copy.
func (st *state) putString(p, data uint32, s string) uint32 {
	copy(st.bytes(data, uint32(len(s))), s)
	st.putU32(p, data)
	st.putU32(p+4, uint32(len(s)))
	return data + uint32(len(s))
}

// littleEndian is whether this machine's memory is WebAssembly's order, so that the guest's f64s are Go's in place.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// float64s are the guest's n f64 at p: in place where they are aligned and in this machine's order, else copied.
func (st *state) float64s(p, n uint32) []float64 {
	b := st.bytes(p, 8*n)
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// ==== The host module: guest.wat's imports ====

// i32 is an i32 parameter as Go's int32.
func i32(v uint64) int32 { return int32(uint32(v)) }

// hostModule instantiates bb, each import an api.GoFunction over st.
func (st *state) hostModule() error {
	const i, f = api.ValueTypeI32, api.ValueTypeF64
	b := st.rt.NewHostModuleBuilder("bb")
	for _, h := range []struct {
		name            string
		fn              api.GoFunc
		params, results []api.ValueType
	}{
		{"host_add", st.hostAdd, []api.ValueType{i, i}, []api.ValueType{i}},
		{"host_upper", st.hostUpper, []api.ValueType{i, i, i}, []api.ValueType{i}},
		{"host_obj", st.hostObj, []api.ValueType{i, i}, nil},
		{"host_record", st.hostRecord, []api.ValueType{i, i}, nil},
		{"host_sum", st.hostSum, []api.ValueType{i, i}, []api.ValueType{f}},
		{"host_bytes", st.hostBytes, []api.ValueType{i, i}, []api.ValueType{i}},
		{"host_fail", st.hostFail, []api.ValueType{i}, nil},
		{"host_register", st.hostRegister, []api.ValueType{i}, nil},
		{"set_prop", st.setProp, []api.ValueType{i, i, i, f}, nil},
		{"apply_ops", st.applyOps, []api.ValueType{i, i}, nil},
		{"set_node", st.setNode, []api.ValueType{i}, nil},
		{"apply_batch", st.applyBatch, []api.ValueType{i, i}, nil},
	} {
		b.NewFunctionBuilder().WithGoFunction(h.fn, h.params, h.results).Export(h.name)
	}
	_, err := b.Instantiate(st.ctx)
	return err
}

func (st *state) hostAdd(_ context.Context, s []uint64) {
	s[0] = uint64(uint32(int32(harness.Add(float64(i32(s[0])), float64(i32(s[1]))))))
}

func (st *state) hostUpper(_ context.Context, s []uint64) {
	out := harness.Upper(st.guestString(uint32(s[0]), uint32(s[1])))
	s[0] = uint64(copy(st.bytes(uint32(s[2]), uint32(len(out))), out))
}

func (st *state) hostObj(_ context.Context, s []uint64) {
	p, out := uint32(s[0]), uint32(s[1])
	in := harness.Obj{ID: int32(st.u32(p)), Name: st.stringAt(p + 4), X: st.f64(p + 16), Y: st.f64(p + 24),
		Tags: [3]string{st.stringAt(p + 32), st.stringAt(p + 40), st.stringAt(p + 48)}, PosA: st.f64(p + 56), PosB: st.f64(p + 64)}
	r := harness.ObjHost(&in)
	st.putU32(out, uint32(r.ID))
	ok := byte(0)
	if r.OK {
		ok = 1
	}
	st.bytes(out+4, 1)[0] = ok
	st.putF64(out+8, r.X)
}

// hostRecord gives back the text it read, as the contract says: the same (ptr, len), as harness.RecordHost gives
// back the same string.
func (st *state) hostRecord(_ context.Context, s []uint64) {
	p, out := uint32(s[0]), uint32(s[1])
	in := harness.Record{ID: int32(st.u32(p)), Text: st.stringAt(p + 4)}
	r := harness.RecordHost(&in)
	st.putU32(out, uint32(r.ID))
	st.putU32(out+4, st.u32(p+4))
	st.putU32(out+8, uint32(len(r.Text)))
}

func (st *state) hostSum(_ context.Context, s []uint64) {
	s[0] = math.Float64bits(harness.Sum(st.float64s(uint32(s[0]), uint32(s[1]))))
}

func (st *state) hostBytes(_ context.Context, s []uint64) {
	s[0] = uint64(uint32(harness.BytesSum(st.bytes(uint32(s[0]), uint32(s[1])))))
}

func (st *state) hostFail(_ context.Context, s []uint64) {
	panic(&trap{harness.FailMessage(i32(s[0]))})
}

func (st *state) hostRegister(_ context.Context, s []uint64) {
	st.callback, st.registered = uint64(uint32(s[0])), true
}

// fail traps with a host error about a bad node or key.
func fail(what string, err error) {
	if err != nil {
		panic(&trap{what + ": " + err.Error()})
	}
}

func (st *state) setProp(_ context.Context, s []uint64) {
	key := harness.UIKey(st.guestString(uint32(s[1]), uint32(s[2])))
	fail("set_prop", st.ui.Set(float64(i32(s[0])), float64(key), api.DecodeF64(s[3])))
}

func (st *state) applyOps(_ context.Context, s []uint64) {
	fail("apply_ops", st.ui.Apply(st.float64s(uint32(s[0]), uint32(s[1]))))
}

// node applies the Node at p.
func (st *state) node(what string, p uint32) {
	fail(what, st.ui.SetNamed(float64(int32(st.u32(p))), st.stringAt(p+4), st.f64(p+16)))
}

func (st *state) setNode(_ context.Context, s []uint64) { st.node("set_node", uint32(s[0])) }

func (st *state) applyBatch(_ context.Context, s []uint64) {
	p, n := uint32(s[0]), uint32(s[1])
	for k := range n {
		st.node("apply_batch", p+k*wasm.NodeSize)
	}
}

// ==== The host's calls: harness.JS over the guest ====

// Bench runs the case's loop: the guest's bench_*(n), or, for error_host_to_script, n calls of error_host from here.
func (st *state) Bench(n uint64) (float64, error) {
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("%d ops do not fit the guest's i32 loop counter", n)
	}
	if st.caseName == wasm.ErrorHostCase {
		total := 0
		for i := range n {
			msg, err := st.errorHost(int32(i & 0x7fffffff))
			if err != nil {
				return 0, err
			}
			total += len(msg)
		}
		return float64(total), nil
	}
	st.stack[0] = n
	if err := st.fn.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return 0, err
	}
	return float64(i32(st.stack[0])), nil
}

// errorHost calls error_host(i), whose host_fail traps, and gives the trap's message as the host raised it.
func (st *state) errorHost(i int32) (string, error) {
	st.stack[0] = uint64(uint32(i))
	err := st.fn.CallWithStack(st.ctx, st.stack[:])
	var t *trap
	if !errors.As(err, &t) {
		return "", fmt.Errorf("error_host(%d) came back without host_fail's trap (%v)", i, err)
	}
	return t.msg, nil
}

func (st *state) CallAdd(a, b float64) (float64, error) {
	f := st.fn
	s := st.stack[:]
	if st.registered {
		f, s[0], s = st.callRef, st.callback, s[1:]
	}
	s[0], s[1] = uint64(uint32(int32(a))), uint64(uint32(int32(b)))
	if err := f.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return 0, err
	}
	return float64(i32(st.stack[0])), nil
}

func (st *state) CallObj(in *harness.Obj) (harness.ObjOut, error) {
	p := st.objIn
	st.putU32(p, uint32(in.ID))
	data := st.putString(p+4, p+wasm.ObjSize, in.Name)
	st.putF64(p+16, in.X)
	st.putF64(p+24, in.Y)
	for k, tag := range in.Tags {
		data = st.putString(p+32+8*uint32(k), data, tag)
	}
	st.putF64(p+56, in.PosA)
	st.putF64(p+64, in.PosB)
	st.stack[0] = uint64(p)
	if err := st.fn.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return harness.ObjOut{}, err
	}
	out := uint32(st.stack[0])
	return harness.ObjOut{ID: int32(st.u32(out)), OK: st.bytes(out+4, 1)[0] != 0, X: st.f64(out + 8)}, nil
}

func (st *state) CallText(s string) (string, error) {
	copy(st.bytes(st.textIn, uint32(len(s))), s)
	st.stack[0], st.stack[1] = uint64(st.textIn), uint64(len(s))
	if err := st.fn.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return "", err
	}
	return st.guestString(uint32(st.stack[0]), uint32(st.stack[1])), nil
}

func (st *state) CallRecord(in *harness.Record) (harness.Record, error) {
	p := st.recordIn
	st.putU32(p, uint32(in.ID))
	st.putString(p+4, st.textIn, in.Text)
	st.stack[0] = uint64(p)
	if err := st.fn.CallWithStack(st.ctx, st.stack[:]); err != nil {
		return harness.Record{}, err
	}
	out := uint32(st.stack[0])
	return harness.Record{ID: int32(st.u32(out)), Text: st.stringAt(out + 4)}, nil
}

// CallFail calls fail(i), which traps, and gives the error's text: "Error: " and the message the guest left at err,
// a newline and wazero's error for the call (the trap and the guest's stack, which names fail).
func (st *state) CallFail(i int32) (string, error) {
	st.stack[0] = uint64(uint32(i))
	err := st.fn.CallWithStack(st.ctx, st.stack[:])
	if err == nil {
		return "", fmt.Errorf("fail(%d) returned instead of trapping", i)
	}
	return "Error: " + st.guestString(st.errAt+4, st.u32(st.errAt)) + "\n" + err.Error(), nil
}

func (st *state) Registered() bool { return st.registered }

func (st *state) UI() *harness.UI { return &st.ui }

// Close frees the runtime, and with it the guest's memory and compiled code.
func (st *state) Close() {
	if st.rt != nil {
		st.rt.Close(st.ctx)
	}
}
