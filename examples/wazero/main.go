// Command wazero is a bridge of a user's over wazero (WebAssembly in pure Go), on bench-bridge's Go harness: the
// harness speaks protocol 2 for it, and floor/wasm gives it the catalogue as a WebAssembly guest (guest.wat, whose
// header says what each import and export does) and the cases' set-ups and loops over it (wasm.Cases), so this file
// holds only the bridge.
//
// The bridge's own design, as an app's might be, written with wazero's friendliest API: a host function is a typed Go
// function that wazero wraps by reflection (WithFunc), a call into the guest is Function.Call with its arguments and
// a fresh slice of results, and a text crosses as a Go string copied out of the guest's memory (Memory.Read, then
// string) or into it (Memory.Write). It is not the floor: the floor of the same engine (floor/wazero, bench-bridge
// floor linux --engine wazero) takes wazero's cheapest paths (WithGoFunction, CallWithStack, the memory in place),
// and is what this bridge can approach.
//
// Its build (bench-bridge.toml) compiles floor/wasm/guest.wat with wat2wasm into guest/guest.wasm, which the program
// embeds, so that it is one file wherever it runs.
package main

import (
	"context"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/floor/wasm"
	"github.com/bench-bridge/bench-bridge/harness"
)

//go:embed guest
var guestDir embed.FS

func main() {
	guest, err := guestDir.ReadFile("guest/guest.wasm")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge: no guest/guest.wasm: build it with its bench-bridge.toml's build (wat2wasm, then go build)")
		os.Exit(2)
	}
	l := &loader{guest: guest}
	cs, missing := wasm.Cases(l.load)
	harness.Main(harness.Program{Kind: harness.Bridge, Codec: "wazero-withfunc",
		Engine: "wazero " + harness.ModuleVersion("github.com/tetratelabs/wazero"), Cases: cs, Missing: missing})
}

// ==== The generic layer ====

// guest is one instance of the guest module and what its host functions share.
type guest struct {
	ctx        context.Context
	rt         wazero.Runtime
	mod        api.Module
	fns        map[string]api.Function
	fn         string // the export the host calls
	caseName   string
	ui         harness.UI
	callback   uint32
	registered bool
}

// call calls an export by name with its arguments and returns its results. Each export is looked up once: wazero
// makes a new callable (with its own stack) at every ExportedFunction.
func (g *guest) call(name string, args ...uint64) ([]uint64, error) {
	f := g.fns[name]
	if f == nil {
		if f = g.mod.ExportedFunction(name); f == nil {
			return nil, fmt.Errorf("the guest exports no %s", name)
		}
		g.fns[name] = f
	}
	return f.Call(g.ctx, args...)
}

// global reads an exported global: an offset of the guest's layout.
func (g *guest) global(name string) uint32 { return uint32(g.mod.ExportedGlobal(name).Get()) }

// read copies n bytes at p out of the guest's memory.
func read(m api.Module, p, n uint32) []byte {
	b, ok := m.Memory().Read(p, n)
	if !ok {
		panic(fmt.Errorf("(%d, %d) is outside the guest's memory", p, n))
	}
	return append([]byte(nil), b...)
}

// str is the string (ptr, len) stored at p, copied.
func str(m api.Module, p uint32) string {
	ptr, _ := m.Memory().ReadUint32Le(p)
	n, _ := m.Memory().ReadUint32Le(p + 4)
	return string(read(m, ptr, n))
}

func u32(m api.Module, p uint32) uint32  { v, _ := m.Memory().ReadUint32Le(p); return v }
func f64(m api.Module, p uint32) float64 { v, _ := m.Memory().ReadFloat64Le(p); return v }

// write copies b into the guest's memory at p.
func write(m api.Module, p uint32, b []byte) {
	if !m.Memory().Write(p, b) {
		panic(fmt.Errorf("(%d, %d) is outside the guest's memory", p, len(b)))
	}
}

// putStr writes s at data and its (ptr, len) at p; it returns the end of s.
func putStr(m api.Module, p, data uint32, s string) uint32 {
	write(m, data, []byte(s))
	m.Memory().WriteUint32Le(p, data)
	m.Memory().WriteUint32Le(p+4, uint32(len(s)))
	return data + uint32(len(s))
}

// ==== The host functions: typed Go functions, wrapped by reflection ====

// hostFunctions are guest.wat's imports, module bb.
func (g *guest) hostFunctions() map[string]any {
	fail := func(what string, err error) {
		if err != nil {
			panic(fmt.Errorf("%s: %w", what, err))
		}
	}
	node := func(m api.Module, p uint32) {
		fail("set_node", g.ui.SetNamed(float64(int32(u32(m, p))), str(m, p+4), f64(m, p+16)))
	}
	f64s := func(m api.Module, p, n uint32) []float64 {
		b, v := read(m, p, 8*n), make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return v
	}
	return map[string]any{
		"host_add": func(a, b int32) int32 { return int32(harness.Add(float64(a), float64(b))) },
		"host_upper": func(_ context.Context, m api.Module, p, n, out uint32) uint32 {
			s := harness.Upper(string(read(m, p, n)))
			write(m, out, []byte(s))
			return uint32(len(s))
		},
		"host_obj": func(_ context.Context, m api.Module, p, out uint32) {
			in := harness.Obj{ID: int32(u32(m, p)), Name: str(m, p+4), X: f64(m, p+16), Y: f64(m, p+24),
				Tags: [3]string{str(m, p+32), str(m, p+40), str(m, p+48)}, PosA: f64(m, p+56), PosB: f64(m, p+64)}
			r := harness.ObjHost(&in)
			m.Memory().WriteUint32Le(out, uint32(r.ID))
			ok := byte(0)
			if r.OK {
				ok = 1
			}
			m.Memory().WriteByte(out+4, ok)
			m.Memory().WriteFloat64Le(out+8, r.X)
		},
		"host_record": func(_ context.Context, m api.Module, p, out uint32) {
			in := harness.Record{ID: int32(u32(m, p)), Text: str(m, p+4)}
			r := harness.RecordHost(&in)
			m.Memory().WriteUint32Le(out, uint32(r.ID))
			m.Memory().WriteUint32Le(out+4, u32(m, p+4)) // the same text, where the guest keeps it
			m.Memory().WriteUint32Le(out+8, uint32(len(r.Text)))
		},
		"host_sum": func(_ context.Context, m api.Module, p, n uint32) float64 { return harness.Sum(f64s(m, p, n)) },
		"host_bytes": func(_ context.Context, m api.Module, p, n uint32) uint32 {
			return uint32(harness.BytesSum(read(m, p, n)))
		},
		"host_fail": func(i int32) { panic(errors.New(harness.FailMessage(i))) },
		"host_register": func(i uint32) {
			g.callback, g.registered = i, true
		},
		"set_prop": func(_ context.Context, m api.Module, id, kp, kn uint32, v float64) {
			fail("set_prop", g.ui.Set(float64(int32(id)), float64(harness.UIKey(string(read(m, kp, kn)))), v))
		},
		"apply_ops": func(_ context.Context, m api.Module, p, n uint32) { fail("apply_ops", g.ui.Apply(f64s(m, p, n))) },
		"set_node":  func(_ context.Context, m api.Module, p uint32) { node(m, p) },
		"apply_batch": func(_ context.Context, m api.Module, p, n uint32) {
			for k := range n {
				node(m, p+k*wasm.NodeSize)
			}
		},
	}
}

// ==== The cases: harness.JS over a guest ====

// loader makes one case's guest.
type loader struct{ guest []byte }

func (l *loader) load(c cases.Case, fn string) (js harness.JS, err error) {
	g := &guest{ctx: context.Background(), caseName: c.Name, fn: fn, fns: map[string]api.Function{}}
	g.rt = wazero.NewRuntime(g.ctx)
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	b := g.rt.NewHostModuleBuilder("bb")
	for name, f := range g.hostFunctions() {
		b.NewFunctionBuilder().WithFunc(f).Export(name)
	}
	if _, err := b.Instantiate(g.ctx); err != nil {
		return nil, err
	}
	if g.mod, err = g.rt.Instantiate(g.ctx, l.guest); err != nil {
		return nil, err
	}
	if _, err := g.call("init", uint64(c.Bytes)); err != nil {
		return nil, err
	}
	e := wasm.Exports[c.Name]
	if e.Check != "" {
		if _, err := g.call(e.Check); err != nil {
			return nil, fmt.Errorf("the guest's %s: %w", e.Check, err)
		}
	}
	switch fn {
	case "":
		_, err = g.call("register")
	case "bench":
		g.fn = e.Bench
	}
	return g, err
}

func (g *guest) Bench(n uint64) (float64, error) {
	if g.caseName != wasm.ErrorHostCase {
		r, err := g.call(g.fn, n)
		if err != nil {
			return 0, err
		}
		return float64(int32(r[0])), nil
	}
	total := 0
	for i := range n {
		_, err := g.call(g.fn, i&0x7fffffff)
		if err == nil {
			return 0, errors.New("error_host returned without host_fail's error")
		}
		total += len(err.Error())
	}
	return float64(total), nil
}

func (g *guest) CallAdd(a, b float64) (float64, error) {
	var r []uint64
	var err error
	if g.registered {
		r, err = g.call("call_ref", uint64(g.callback), uint64(uint32(int32(a))), uint64(uint32(int32(b))))
	} else {
		r, err = g.call(g.fn, uint64(uint32(int32(a))), uint64(uint32(int32(b))))
	}
	if err != nil {
		return 0, err
	}
	return float64(int32(r[0])), nil
}

func (g *guest) CallObj(in *harness.Obj) (harness.ObjOut, error) {
	m, p := g.mod, g.global("obj_in")
	m.Memory().WriteUint32Le(p, uint32(in.ID))
	data := putStr(m, p+4, p+wasm.ObjSize, in.Name)
	for k, tag := range in.Tags {
		data = putStr(m, p+32+8*uint32(k), data, tag)
	}
	m.Memory().WriteFloat64Le(p+16, in.X)
	m.Memory().WriteFloat64Le(p+24, in.Y)
	m.Memory().WriteFloat64Le(p+56, in.PosA)
	m.Memory().WriteFloat64Le(p+64, in.PosB)
	r, err := g.call(g.fn, uint64(p))
	if err != nil {
		return harness.ObjOut{}, err
	}
	out := uint32(r[0])
	ok, _ := m.Memory().ReadByte(out + 4)
	return harness.ObjOut{ID: int32(u32(m, out)), OK: ok != 0, X: f64(m, out+8)}, nil
}

func (g *guest) CallText(s string) (string, error) {
	p := g.global("text_in")
	write(g.mod, p, []byte(s))
	r, err := g.call(g.fn, uint64(p), uint64(len(s)))
	if err != nil {
		return "", err
	}
	return string(read(g.mod, uint32(r[0]), uint32(r[1]))), nil
}

func (g *guest) CallRecord(in *harness.Record) (harness.Record, error) {
	m, p := g.mod, g.global("record_in")
	m.Memory().WriteUint32Le(p, uint32(in.ID))
	putStr(m, p+4, g.global("text_in"), in.Text)
	r, err := g.call(g.fn, uint64(p))
	if err != nil {
		return harness.Record{}, err
	}
	return harness.Record{ID: int32(u32(m, uint32(r[0]))), Text: str(m, uint32(r[0])+4)}, nil
}

// CallFail calls fail(i), which traps: the error's text is the guest's message, then wazero's error.
func (g *guest) CallFail(i int32) (string, error) {
	_, err := g.call(g.fn, uint64(uint32(i)))
	if err == nil {
		return "", fmt.Errorf("fail(%d) returned instead of trapping", i)
	}
	at := g.global("err")
	return "Error: " + string(read(g.mod, at+4, u32(g.mod, at))) + "\n" + err.Error(), nil
}

func (g *guest) Registered() bool { return g.registered }

func (g *guest) UI() *harness.UI { return &g.ui }

func (g *guest) Close() { g.rt.Close(g.ctx) }
