// Package cases holds the case catalogue: every case's name, what one op is and whether it crosses the boundary. The
// C programs that implement the cases are in cases/c (the harness and the reference bridge) and floor/floor.c.
package cases

import (
	"fmt"
	"strings"
)

// Case is one entry of the catalogue: what one op is and whether it crosses the boundary.
type Case struct {
	Name     string
	Op       string
	Crossing bool
}

// RefCase is the pure-JavaScript loop every ratio is taken against.
const RefCase = "ref_js_loop"

// Catalogue lists every case, in the order programs run them.
var Catalogue = []Case{
	{RefCase, "one turn of script_to_host_scalar's loop with the call replaced by its arithmetic", false},
	{"script_to_host_scalar", "JS calls a host function (number, number) -> number", true},
	{"script_to_host_string_16", "JS calls the host with a 16-byte UTF-8 string, gets a string back", true},
	{"script_to_host_string_1k", "JS calls the host with a 1 KiB UTF-8 string, gets a string back", true},
	{"script_to_host_string_64k", "JS calls the host with a 64 KiB UTF-8 string, gets a string back", true},
	{"script_to_host_object", "JS calls the host with a small object, gets an object back", true},
	{"script_to_host_array", "JS calls the host with an array of 64 numbers, gets a number back", true},
	{"host_to_script_scalar", "the host calls a JS function (number, number) -> number", true},
	{"host_to_script_object", "the host calls a JS function with a small object, gets an object back", true},
	{"callback", "the host calls back a JS function it was handed once", true},
	{"error_host_to_script", "JS calls a host function that throws, and catches the error", true},
	{"ui_ops_calls", "one UI mutation (node id, key, value), sent as its own call", true},
	{"ui_ops_buffer", "one UI mutation written into a typed array; 16 are sent with one call", true},
	{"bytes_64k", "64 KiB of bytes from JS to the host", true},
}

// Lookup returns the catalogue entry for name.
func Lookup(name string) (Case, bool) {
	for _, c := range Catalogue {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// Names returns the catalogue's case names in order.
func Names() []string {
	names := make([]string, len(Catalogue))
	for i, c := range Catalogue {
		names[i] = c.Name
	}
	return names
}

// Select resolves a --cases list (comma separated, empty for all) against the catalogue, keeping catalogue order and
// always including RefCase, since every ratio needs it.
func Select(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return Names(), nil
	}
	want := map[string]bool{RefCase: true}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, ok := Lookup(n); !ok {
			return nil, fmt.Errorf("unknown case %q (bench-bridge cases lists them)", n)
		}
		want[n] = true
	}
	var out []string
	for _, c := range Catalogue {
		if want[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out, nil
}
