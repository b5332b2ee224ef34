package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/bench-bridge/bench-bridge/targets"
)

// A lab's command measures many devices at once: every device the adb server lists (--all), several serials or
// models (--serial A,B) or several ssh hosts (--host A,B), each device a target of its own that runs in its own
// session, beside the others, and holds its device (a lease on the device) for the run.

// ListADBFunc lists the devices of the adb server that the overrides name.
type ListADBFunc func(ctx context.Context, o targets.Overrides) ([]targets.ADBDevice, error)

// OpenFunc opens a target by name; whoever opens a target closes it.
type OpenFunc func(ctx context.Context, name string, specs map[string]targets.Spec, o targets.Overrides) (targets.Target, error)

// Devices gives each device a target of its own where the flags name several: an adb target with --all (every
// device the adb server lists) or --serial A,B (serials, or models the adb server reports), and an ssh or novacom
// target with --host A,B. The target NAME on device D becomes NAME-D, which joins specs as NAME's spec naming D; the
// overrides returned no longer name a device, since each spec does.
func Devices(ctx context.Context, names []string, specs map[string]targets.Spec, o targets.Overrides, all bool,
	list ListADBFunc) ([]string, targets.Overrides, error) {
	serials, hosts := SplitList(o.Serial), SplitList(o.Host)
	switch {
	case all && len(serials) > 0:
		return nil, o, fmt.Errorf("--all and --serial %s: --all measures every device the adb server lists; --serial names some", o.Serial)
	case !all && len(serials) < 2 && len(hosts) < 2:
		return names, o, nil
	}
	if list == nil {
		list = targets.ADBDevices
	}
	var out []string
	var adb []targets.ADBDevice // what the adb server listed, asked once
	expanded := map[string]bool{}
	for _, name := range names {
		spec, ok := targets.Lookup(name, specs)
		var devices []labDevice
		switch {
		case ok && spec.Kind == "adb" && (all || len(serials) > 1):
			if adb == nil {
				var err error
				if adb, err = list(ctx, o); err != nil {
					return nil, o, err
				}
				if len(adb) == 0 {
					return nil, o, errors.New("no Android device attached: the adb server lists none (adb devices)")
				}
			}
			var err error
			if devices, err = pickADB(adb, serials, all); err != nil {
				return nil, o, err
			}
		case ok && (spec.Kind == "ssh" || spec.Kind == "novacom") && len(hosts) > 1:
			for _, h := range hosts {
				devices = append(devices, labDevice{word: h[strings.LastIndex(h, "@")+1:], addr: h})
			}
		default:
			out = append(out, name)
			continue
		}
		expanded[spec.Kind] = true
		for _, d := range devices {
			s := spec
			if spec.Kind == "adb" {
				s.Serial = d.addr
			} else {
				s.Host = d.addr
			}
			n := name + "-" + DeviceWord(d.word)
			if _, taken := specs[n]; taken {
				return nil, o, fmt.Errorf("target %s on device %s would be named %s, which the config already names", name, d.addr, n)
			}
			specs[n] = s
			out = append(out, n)
		}
	}
	switch {
	case all && !expanded["adb"]:
		return nil, o, errors.New("--all measures the devices of the adb server: name an adb target (android)")
	case len(serials) > 1 && !expanded["adb"]:
		return nil, o, fmt.Errorf("--serial %s names several devices of the adb server: name an adb target (android)", o.Serial)
	case len(hosts) > 1 && !expanded["ssh"] && !expanded["novacom"]:
		return nil, o, fmt.Errorf("--host %s names several hosts: name an ssh target (webos, or one of the config's)", o.Host)
	}
	if expanded["adb"] {
		o.Serial = ""
	}
	if expanded["ssh"] || expanded["novacom"] {
		o.Host = ""
	}
	return out, o, nil
}

// labDevice is one device of a target that names several: the word its target's name takes, and its serial or host.
type labDevice struct{ word, addr string }

// pickADB chooses the adb server's devices: all of them, named by serial, or each of words, a serial or a model the
// server reports for exactly one device, named as written. A serial the server does not list is kept: opening it
// says what the server lists instead.
func pickADB(list []targets.ADBDevice, words []string, all bool) ([]labDevice, error) {
	var devices []labDevice
	if all {
		for _, d := range list {
			devices = append(devices, labDevice{word: d.Serial, addr: d.Serial})
		}
		return devices, nil
	}
	for _, w := range words {
		var byModel []string
		found := false
		for _, d := range list {
			found = found || d.Serial == w
			if d.Model == w {
				byModel = append(byModel, d.Serial)
			}
		}
		switch {
		case found || len(byModel) == 0:
			devices = append(devices, labDevice{word: w, addr: w})
		case len(byModel) == 1:
			devices = append(devices, labDevice{word: w, addr: byModel[0]})
		default:
			return nil, fmt.Errorf("--serial %s: %d devices are of model %s (%s): name them by serial", w, len(byModel), w, strings.Join(byModel, ", "))
		}
	}
	return devices, nil
}

// SplitList splits a flag's comma-separated values, leaving out empty ones.
func SplitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// DeviceWord makes a serial, model or host part of a target's name, and so of an artifact's file name: letters,
// digits, dots, dashes and underscores stay, anything else becomes a dash ("10.0.0.2:5555" is "10.0.0.2-5555").
func DeviceWord(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '-'
	}, s)
}

// OpenAll opens the named targets at once, each with its own error: a device that cannot be opened fails alone.
func OpenAll(ctx context.Context, open OpenFunc, names []string, specs map[string]targets.Spec, o targets.Overrides) ([]targets.Target, []error) {
	ts, errs := make([]targets.Target, len(names)), make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := open(ctx, name, specs, o)
			if err == nil { // an opener may return a typed nil with its error
				ts[i] = t
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return ts, errs
}

// Reach opens every named target at once and runs `true` on each within bound: per name, "yes", or "no: " and the
// first line of why. skip, when it says something of a name, is that name's status instead.
func Reach(ctx context.Context, open OpenFunc, names []string, specs map[string]targets.Spec, o targets.Overrides, bound time.Duration,
	skip func(name string) string) []string {
	status := make([]string, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		if status[i] = skip(name); status[i] != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			status[i] = reach(ctx, open, name, specs, o, bound)
		}()
	}
	wg.Wait()
	return status
}

// reach opens the target name and runs `true` on it within bound.
func reach(ctx context.Context, open OpenFunc, name string, specs map[string]targets.Spec, o targets.Overrides, bound time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	t, err := open(ctx, name, specs, o)
	if err == nil {
		defer t.Close()
		err = t.Run(ctx, "true", nil, io.Discard, io.Discard)
	}
	if err != nil {
		return "no: " + strings.SplitN(err.Error(), "\n", 2)[0]
	}
	return "yes"
}
