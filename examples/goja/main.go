// Command goja is a bridge of a user's over goja (JavaScript in pure Go), on bench-bridge's Go harness: the harness
// speaks protocol 2 for it (timing, calibration, the ref beside every sample, --slowdown, the memory pass, rss) and
// gives it the catalogue's set-ups and loops (harness.JSCases), so this file holds only the bridge.
//
// The bridge's own design, as an app's might be: values cross as generic Go values (any: float64 and int64, string,
// map[string]any, []any, []byte), goja's Value.Export one way and Runtime.ToValue the other; a host function is a
// func([]any) (any, error) that the bridge registers by name; a script function the host keeps is a handle (*fn)
// called with generic values. It is not the floor: the floor of the same engine (floor/goja, bench-bridge floor linux
// --engine goja) reads each value straight from goja's Values, and is what this bridge can approach.
package main

import (
	"errors"
	"fmt"

	"github.com/dop251/goja"

	"github.com/bench-bridge/bench-bridge/cases"
	"github.com/bench-bridge/bench-bridge/harness"
)

func main() {
	cs, missing := harness.JSCases(load)
	harness.Main(harness.Program{Kind: harness.Bridge, Codec: "goja-export",
		Engine: "goja " + harness.ModuleVersion("github.com/dop251/goja"), Cases: cs, Missing: missing})
}

// ==== The generic layer ====

// hostFn is a host function of the bridge: generic values in, one out; an error is thrown into the script.
type hostFn func(args []any) (any, error)

// bridge is one runtime and what its host functions share.
type bridge struct {
	vm  *goja.Runtime
	fn  *fn // bench(n), the function the host calls, or the callback the script registered
	ui  harness.UI
	reg bool
}

// fn is a script function the host holds.
type fn struct {
	b    *bridge
	call goja.Callable
}

// value is a script value as the bridge's generic Go value; a function becomes a handle.
func (b *bridge) value(v goja.Value) any {
	if f, ok := goja.AssertFunction(v); ok {
		return &fn{b, f}
	}
	return v.Export()
}

// register makes f the global function name.
func (b *bridge) register(name string, f hostFn) error {
	return b.vm.Set(name, func(call goja.FunctionCall) goja.Value {
		args := make([]any, len(call.Arguments))
		for i, a := range call.Arguments {
			args[i] = b.value(a)
		}
		r, err := f(args)
		if err != nil {
			panic(b.vm.NewGoError(err))
		}
		return b.vm.ToValue(r)
	})
}

// Call calls the function with generic values and gives its result as one; a script error is its text and stack.
func (f *fn) Call(args ...any) (any, error) {
	vs := make([]goja.Value, len(args))
	for i, a := range args {
		vs[i] = f.b.vm.ToValue(a)
	}
	r, err := f.call(goja.Undefined(), vs...)
	if exc, ok := err.(*goja.Exception); ok {
		return nil, errors.New(exc.String())
	}
	if err != nil {
		return nil, err
	}
	return f.b.value(r), nil
}

// num, str and obj read generic values.
func num(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// ==== The host functions ====

func (b *bridge) hostFns() map[string]hostFn {
	return map[string]hostFn{
		"host_add":   func(a []any) (any, error) { return harness.Add(num(a[0]), num(a[1])), nil },
		"host_upper": func(a []any) (any, error) { return harness.Upper(str(a[0])), nil },
		"host_obj": func(a []any) (any, error) {
			o, tags := obj(a[0]), a[0].(map[string]any)["tags"].([]any)
			in := harness.Obj{ID: int32(num(o["id"])), Name: str(o["name"]), X: num(o["x"]), Y: num(o["y"]),
				Tags: [3]string{str(tags[0]), str(tags[1]), str(tags[2])}, PosA: num(obj(o["pos"])["a"]), PosB: num(obj(o["pos"])["b"])}
			out := harness.ObjHost(&in)
			return map[string]any{"id": out.ID, "ok": out.OK, "x": out.X}, nil
		},
		"host_sum": func(a []any) (any, error) {
			in := a[0].([]any)
			v := make([]float64, len(in))
			for i, x := range in {
				v[i] = num(x)
			}
			return harness.Sum(v), nil
		},
		"host_register": func(a []any) (any, error) {
			f, ok := a[0].(*fn)
			if !ok {
				return nil, errors.New("host_register: not a function")
			}
			b.fn, b.reg = f, true
			return nil, nil
		},
		"host_fail": func(a []any) (any, error) { return nil, errors.New(harness.FailMessage(int32(num(a[0])))) },
		"set_prop": func(a []any) (any, error) {
			return nil, b.ui.Set(num(a[0]), float64(harness.UIKey(str(a[1]))), num(a[2]))
		},
		"apply_ops":  func(a []any) (any, error) { return nil, b.ui.Apply(a[0].([]float64)) },
		"host_bytes": func(a []any) (any, error) { return harness.BytesSum(a[0].([]byte)), nil },
		"host_record": func(a []any) (any, error) {
			out := harness.RecordHost(&harness.Record{ID: int32(num(obj(a[0])["id"])), Text: str(obj(a[0])["text"])})
			return map[string]any{"id": out.ID, "text": out.Text}, nil
		},
		"set_node": func(a []any) (any, error) { return nil, b.setNode(obj(a[0])) },
		"apply_batch": func(a []any) (any, error) {
			for _, n := range a[0].([]any) {
				if err := b.setNode(obj(n)); err != nil {
					return nil, err
				}
			}
			return nil, nil
		},
	}
}

func (b *bridge) setNode(n map[string]any) error {
	return b.ui.SetNamed(num(n["id"]), str(n["key"]), num(n["value"]))
}

// load makes a runtime with the host functions, N, the prelude and the case's script, and keeps the function fname.
func load(c cases.Case, fname string) (harness.JS, error) {
	b := &bridge{vm: goja.New()}
	for name, f := range b.hostFns() {
		if err := b.register(name, f); err != nil {
			return nil, err
		}
	}
	prelude, err := harness.Prelude()
	if err != nil {
		return nil, err
	}
	script, err := harness.Script(c.Name)
	if err != nil {
		return nil, err
	}
	if err := b.vm.Set("N", c.Bytes); err != nil {
		return nil, err
	}
	for _, src := range []string{prelude, script} {
		if _, err := b.vm.RunString(src); err != nil {
			return nil, err
		}
	}
	if fname != "" {
		f, ok := b.value(b.vm.Get(fname)).(*fn)
		if !ok {
			return nil, fmt.Errorf("the script of %s defines no function %s", c.Name, fname)
		}
		b.fn = f
	}
	return b, nil
}

// ==== The cases' calls, through the generic layer (harness.JS) ====

func (b *bridge) Bench(n uint64) (float64, error) {
	r, err := b.fn.Call(n)
	return num(r), err
}

func (b *bridge) CallAdd(x, y float64) (float64, error) {
	r, err := b.fn.Call(x, y)
	return num(r), err
}

func (b *bridge) CallObj(in *harness.Obj) (harness.ObjOut, error) {
	r, err := b.fn.Call(map[string]any{"id": in.ID, "name": in.Name, "x": in.X, "y": in.Y,
		"tags": []any{in.Tags[0], in.Tags[1], in.Tags[2]}, "pos": map[string]any{"a": in.PosA, "b": in.PosB}})
	o := obj(r)
	ok, _ := o["ok"].(bool)
	return harness.ObjOut{ID: int32(num(o["id"])), OK: ok, X: num(o["x"])}, err
}

func (b *bridge) CallText(s string) (string, error) {
	r, err := b.fn.Call(s)
	return str(r), err
}

func (b *bridge) CallRecord(in *harness.Record) (harness.Record, error) {
	r, err := b.fn.Call(map[string]any{"id": in.ID, "text": in.Text})
	return harness.Record{ID: int32(num(obj(r)["id"])), Text: str(obj(r)["text"])}, err
}

func (b *bridge) CallFail(i int32) (string, error) {
	if _, err := b.fn.Call(i); err != nil {
		return err.Error(), nil
	}
	return "", fmt.Errorf("fail(%d) returned instead of throwing", i)
}

func (b *bridge) Registered() bool { return b.reg }

func (b *bridge) UI() *harness.UI { return &b.ui }

func (b *bridge) Close() {}
