// Package cases holds the case catalogue: every case's name, what one op is and whether it crosses the boundary. The
// catalogue is read from cases/c/cases.def, the one list the C programs build their tables from (the harness in
// cases/c, the reference bridge and every floor), so the two sides cannot disagree.
package cases

import (
	"fmt"
	"strings"

	benchbridge "github.com/bench-bridge/bench-bridge"
)

// Case is one entry of the catalogue: what one op is and whether it crosses the boundary.
type Case struct {
	Name     string
	Op       string
	Crossing bool
	UnitOps  int // ops in one loop unit of the bench program: 16 for the ui_ops_* frames, else 1
	Bytes    int // the length of the case's string in UTF-8 bytes; 0 when it has none
	// TypedArrays is set for a case whose script needs typed arrays (cases.def's BB_CASE_TYPED_ARRAYS): the floor of
	// an engine without them (MuJS, ES5) records it as not implemented.
	TypedArrays bool
}

// RefCase is the pure-JavaScript loop every ratio is taken against.
const RefCase = "ref_js_loop"

// Catalogue lists every case, in the order programs run them.
var Catalogue = mustCatalogue()

func mustCatalogue() []Case {
	src, err := benchbridge.CSources.ReadFile(benchbridge.CaseList)
	if err != nil {
		panic(err)
	}
	cat, err := ParseList(benchbridge.CaseList, string(src))
	if err != nil {
		panic(err) // the embedded list is checked by this package's tests
	}
	return cat
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
